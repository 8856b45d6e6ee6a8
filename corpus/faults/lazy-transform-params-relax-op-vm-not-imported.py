"""[Bug][Relax][LazyTransformParams] AttributeError: module 'tvm.relax.op' has no attribute 'vm'

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm. Builds the module with BlockBuilder on
purpose: importing TVMScript's Relax parser imports tvm.relax.op.vm and hides the fault.
"""
import sys

try:
    from tvm import relax

    params = relax.Var("params", relax.TupleType([relax.TensorType((2,), "float32")]))
    bb = relax.BlockBuilder()
    with bb.function("transform_params", [params], pure=False):
        w = bb.emit(relax.TupleGetItem(params, 0))
        y = bb.emit(relax.op.exp(w))  # the last use of w: the pass kills it here
        bb.emit_func_output(bb.emit(relax.Tuple([y])))
    mod = bb.get()
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.LazyTransformParams()(mod)
except AttributeError as error:
    if "has no attribute 'vm'" in str(error):
        print(f"REPRODUCES: {error}")
        sys.exit(1)
    raise SystemExit(f"cannot run: {error!r}") from None
print("fixed: LazyTransformParams emits kill_object without TVMScript imported")
