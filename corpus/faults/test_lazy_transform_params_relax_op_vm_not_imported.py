import subprocess
import sys
import textwrap

import tvm
import tvm.testing

# Run in a fresh interpreter: any earlier `from tvm.script import relax` in the test session
# imports tvm.relax.op.vm and would hide the missing import in lazy_transform_params.py.
CHILD = textwrap.dedent(
    """
    from tvm import relax

    params = relax.Var("params", relax.TupleType([relax.TensorType((2,), "float32")]))
    bb = relax.BlockBuilder()
    with bb.function("transform_params", [params], pure=False):
        w = bb.emit(relax.TupleGetItem(params, 0))
        y = bb.emit(relax.op.exp(w))
        bb.emit_func_output(bb.emit(relax.Tuple([y])))

    after = relax.transform.LazyTransformParams()(bb.get())
    assert "R.vm.kill_object" in after.script()
    """
)


def test_lazy_transform_params_without_tvmscript_imported():
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, child.stderr[-2000:]


if __name__ == "__main__":
    tvm.testing.main()
