"""TVM's ONNX frontend lists a weight twice when it is also a graph input (tvm.relax.frontend.onnx,
keep_params_in_input=True): the same Var appears twice among main's parameters, so the function
is ill-formed, prints two parameters of one name, and takes that argument twice.

ONNX allows an initializer to be a graph input too (an input with a default value); older exporters,
PyTorch's among them, write every weight so, as do the model-zoo networks in the onnx wheel.
The frontend (0.27.0.post1, relax/frontend/onnx/onnx_frontend.py) makes a Var per initializer and
keeps it in `_params` (lines 6377-6383), then, for a graph input already known as an initializer,
records that same Var in `_inputs` too without counting it in num_input (6435-6451); main's
parameters are `_inputs` followed by `_params` (6326-6329), so the Var is listed twice. (The same
lines show why names such as `0` or `input.1` reach the printer: graph inputs' names are
sanitized, initializers' are not.)

    python docs/onnx_duplicate_parameters.py

Exits 1 while the frontend does this, 0 once each weight is listed once. Needs tvm, onnx, numpy.
passfuzz works around it in passfuzz/relax/models.py (each parameter listed once).
"""

import sys

import numpy as np
import onnx
import tvm
from onnx import TensorProto, helper, numpy_helper
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx

graph = helper.make_graph(
    [helper.make_node("Add", ["x", "w"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    [numpy_helper.from_array(np.ones(2, "float32"), "w")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
mod = from_onnx(model, keep_params_in_input=True)
params = list(mod["main"].params)
print(f"TVM {tvm.__version__}: main({', '.join(p.name for p in params)}), "
      f"num_input={mod['main'].attrs['num_input']}, well-formed: {relax.analysis.check_well_formed(mod)}")
twice = [p.name for k, p in enumerate(params) if any(p.same_as(q) for q in params[:k])]
if twice:
    print(f"listed twice: {', '.join(twice)}")
    sys.exit(1)
print("each parameter listed once")
