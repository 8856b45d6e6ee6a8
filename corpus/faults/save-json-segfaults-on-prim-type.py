"""[Bug][FFI] tvm.ir.save_json segfaults on ir.PrimType (its DataType field): every PrimExpr and every Relax module

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the call under test). Needs: tvm.
"""
import os
import signal
import sys

try:
    import tvm

    node = tvm.ir.PrimType("int32")  # the type of every PrimExpr: T.int32(1), a shape's extents, ...
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

if os.fork() == 0:  # the child makes the round trip; this process reads how it ends
    signal.alarm(60)
    try:
        back = tvm.ir.load_json(tvm.ir.save_json(node))
        tvm.ir.assert_structural_equal(back, node)
    except BaseException:  # noqa: BLE001 - an error, not the crash under test
        os._exit(3)
    os._exit(0)
_, status = os.wait()
if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV:
    print("REPRODUCES: tvm.ir.save_json(tvm.ir.PrimType('int32')) crashes with SIGSEGV")
    sys.exit(1)
if os.WEXITSTATUS(status) != 0 or os.WIFSIGNALED(status):
    print(f"cannot run: the round trip fails another way (status {status})")
    sys.exit(125)
print("fixed: PrimType saves and loads back as JSON")
