import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_match_cast_object_to_prim_is_kept():
    @I.ir_module
    class Before:
        @R.function
        def main(o: R.Object) -> R.Prim("int64"):
            k = R.match_cast(o, R.Prim("int64"))
            return k

    # Nothing to canonicalize: the match_cast is the only definition of k.
    After = relax.transform.CanonicalizeBindings()(Before)
    tvm.ir.assert_structural_equal(After, Before)


if __name__ == "__main__":
    tvm.testing.main()
