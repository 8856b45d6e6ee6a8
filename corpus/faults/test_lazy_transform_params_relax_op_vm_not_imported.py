# Deliberately no `from tvm.script import relax`: the parser imports tvm.relax.op.vm and would
# hide the missing import in lazy_transform_params.py.
import tvm
import tvm.testing
from tvm import relax


def test_lazy_transform_params_without_tvmscript_imported():
    params = relax.Var("params", relax.TupleType([relax.TensorType((2,), "float32")]))
    bb = relax.BlockBuilder()
    with bb.function("transform_params", [params], pure=False):
        w = bb.emit(relax.TupleGetItem(params, 0))
        y = bb.emit(relax.op.exp(w))
        bb.emit_func_output(bb.emit(relax.Tuple([y])))
    mod = bb.get()

    after = relax.transform.LazyTransformParams()(mod)
    relax.analysis.well_formed(after)  # raises on the first violation in 0.27
    assert "R.vm.kill_object" in after.script()


if __name__ == "__main__":
    tvm.testing.main()
