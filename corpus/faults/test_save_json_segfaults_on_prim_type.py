import subprocess
import sys
import textwrap

import tvm
import tvm.testing

# save_json segfaults on these today: run each round trip in a child process so that the failure
# is reported as a test failure instead of killing the test session.
CHILD = textwrap.dedent(
    """
    import tvm

    def check_json_roundtrip(node):
        back = tvm.ir.load_json(tvm.ir.save_json(node))
        tvm.ir.assert_structural_equal(back, node, map_free_vars=True)

    check_json_roundtrip(tvm.ir.PrimType("int32"))
    check_json_roundtrip(tvm.tirx.const(1, "int32") + tvm.tirx.const(10, "int32"))
    check_json_roundtrip(tvm.relax.ShapeExpr([1, 2]))
    """
)


def test_save_json_prim_type_and_prim_expr():
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, f"JSON round trip failed (status {child.returncode}): {child.stderr[-2000:]}"


if __name__ == "__main__":
    tvm.testing.main()
