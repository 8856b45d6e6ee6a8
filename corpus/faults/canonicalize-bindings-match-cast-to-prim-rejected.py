"""[Bug][Relax][CanonicalizeBindings] match_cast of an object to R.Prim fails ("Explicit binding for symbolic variable")

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm.
"""
import sys

try:
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Before:
        @R.function
        def main(o: R.Object) -> R.Prim("int64"):
            k = R.match_cast(o, R.Prim("int64"))
            return k
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    relax.transform.CanonicalizeBindings()(Before)
except Exception as error:
    if "Explicit binding for symbolic variable" in str(error):
        print("REPRODUCES:", str(error).strip().splitlines()[-1])
        sys.exit(1)
    print(f"cannot run: {error!r}")
    sys.exit(125)
print("fixed: CanonicalizeBindings keeps the match_cast to R.Prim")
