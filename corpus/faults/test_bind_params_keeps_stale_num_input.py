import numpy as np

import tvm
import tvm.testing
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_bind_params_keeps_num_input_consistent():
    @I.ir_module
    class Before:
        @R.function
        def main(n: T.int64, w: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            R.func_attr({"num_input": 1})
            return R.exp(w)

    After = relax.transform.BindParams("main", {"w": np.zeros(3, "float32")})(Before)
    func = After["main"]
    # num_input counts the leading runtime parameters: it cannot exceed the parameters left.
    assert int(func.attrs["num_input"]) <= len(func.params)
    relax.transform.LazyGetInput()(After)  # rejects a stale num_input


if __name__ == "__main__":
    tvm.testing.main()
