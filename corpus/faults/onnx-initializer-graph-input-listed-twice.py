"""[Bug][Frontend][ONNX] keep_params_in_input=True lists an initializer that is also a graph input twice among main's parameters

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the import under test). Needs: tvm, onnx, numpy.
"""
import sys

try:
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    from tvm.relax.frontend.onnx import from_onnx

    graph = helper.make_graph(  # y = x + w, where w is an initializer and also a graph input
        [helper.make_node("Add", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("x", "w")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [numpy_helper.from_array(np.ones(2, "float32"), "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod = from_onnx(model, keep_params_in_input=True)
    params = list(mod["main"].params)
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

twice = [p.name for k, p in enumerate(params) if any(p.same_as(q) for q in params[:k])]
if twice:
    print(f"REPRODUCES: main({', '.join(p.name for p in params)}): {', '.join(twice)} listed twice "
          f"(num_input={mod['main'].attrs['num_input']}); the function is ill-formed")
    sys.exit(1)
print(f"fixed: main({', '.join(p.name for p in params)}) lists each parameter once")
