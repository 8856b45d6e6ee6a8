"""[Bug][Relax][BindParams] binding a weight that defines a prim input's value drops that input but keeps num_input

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm, numpy.
"""
import sys

try:
    import numpy as np
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Before:
        @R.function
        def main(n: T.int64, w: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            R.func_attr({"num_input": 1})
            return R.exp(w)

    after = relax.transform.BindParams("main", {"w": np.zeros(3, "float32")})(Before)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

func = after["main"]
if int(func.attrs["num_input"]) > len(func.params):
    print(f"REPRODUCES: main has {len(func.params)} parameter(s) and num_input {int(func.attrs['num_input'])}")
    sys.exit(1)
print(f"fixed: main has {len(func.params)} parameter(s) and num_input {int(func.attrs['num_input'])}")
