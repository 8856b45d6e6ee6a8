"""passfuzz pass-error-6f3cd6b77df5: pass-error after BindParams, LazyGetInput on llvm.

error at pass:LazyGetInput: ValueError: Check failed: static_cast<size_t>(num_input_params) <= func->params.size() (1 vs. 0) : Annotation for attr::kNumInput ("num_input") specifies 1 parameters to be provided at runtime, but the function only accepts 0 parameters in total
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import sys

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def main(n: T.int64, w0: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            gv: R.Tensor((n,), dtype="float32") = w0
            R.output(gv)
        return gv


mod = relax.transform.BindParams('main', {'w0': np.array([0.0, 0.0, 0.0], dtype='float32')})(Module)
try:
    mod = relax.transform.LazyGetInput()(mod)
except Exception as error:
    print(f"BUG REPRODUCES (pass-error): LazyGetInput raised {type(error).__name__}:", *str(error).strip().splitlines()[:1])
    sys.exit(1)
print("fixed: LazyGetInput no longer raises")
