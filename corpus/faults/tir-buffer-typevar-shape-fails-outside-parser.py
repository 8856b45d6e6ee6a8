"""[Bug][TVMScript][TIR] printed PrimFunc with a TypeVar buffer shape cannot run as Python: T.Buffer((M,)) raises "data must be int or Expr"

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the definition under test). Needs: tvm.
"""
import sys
from typing import TypeVar

try:
    import tvm
    from tvm.script import tirx as T

    M = TypeVar("M")  # what `func.script()` prints above `def main(A: T.Buffer((M,), "float32"))`
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    @T.prim_func(private=True)
    def main(A: T.Buffer((M,), "float32")):
        A[0] = T.float32(1)
except AssertionError as error:  # Python evaluates the annotation before the parser sees it
    if "data must be int or Expr" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: the printed PrimFunc does not run as Python: {error}")
    sys.exit(1)
except Exception as error:
    print(f"cannot run: another failure: {error!r}")
    sys.exit(125)
print("fixed: a PrimFunc with a TypeVar buffer shape is defined in a Python file")
