import numpy as np
import pytest

import tvm
import tvm.testing
from tvm import relax

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from tvm.relax.frontend.onnx import from_onnx  # noqa: E402


def test_initializer_that_is_also_graph_input_with_keep_params_in_input():
    """An initializer listed among the graph inputs (as PyTorch's older exporter writes every
    weight) becomes one parameter of main, after the num_input real inputs."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [2]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [numpy_helper.from_array(np.ones(2, "float32"), "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod = from_onnx(model, keep_params_in_input=True)

    func = mod["main"]
    assert [p.name for p in func.params] == ["x", "w"]
    assert int(func.attrs["num_input"]) == 1
    assert len(func.attrs["params"]) == 1
    assert relax.analysis.well_formed(mod)


if __name__ == "__main__":
    tvm.testing.main()
