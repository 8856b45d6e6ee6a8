"""``passfuzz import-model``: ONNX models, built here, written as seed files that --seeds reads."""

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from passfuzz.campaign.seeds import find_seeds  # noqa: E402


def _model(path: Path, nodes, inputs, outputs, weights) -> Path:
    graph = helper.make_graph(nodes, "g", inputs, outputs, [numpy_helper.from_array(w, n) for n, w in weights])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def dense_relu(path: Path) -> Path:
    return _model(path, [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
                         helper.make_node("Relu", ["a"], ["y"])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                  [("w", np.ones((3, 4), "float32")), ("b", np.zeros(4, "float32"))])


def test_a_model_becomes_a_seed_file_with_its_weights_as_parameters(run_cli, tmp_path):
    model = dense_relu(tmp_path / "dense.onnx")
    result = run_cli("import-model", str(model), "--out", str(tmp_path / "seeds"), timeout=300)
    assert result.returncode == 0, result.stderr
    assert "imports as 3 param(s), 3 node(s): add, matmul, relu" in result.stdout, result.stdout
    found = find_seeds([tmp_path / "seeds"])
    (program,) = found.programs
    assert [p.role for _, p in program.params] == ["input", "weight", "weight"]
    assert program.node_ops() == ["matmul", "add", "relu"]


def test_an_op_outside_the_catalogue_is_written_and_said(run_cli, tmp_path):
    model = _model(tmp_path / "lrn.onnx", [helper.make_node("LRN", ["x"], ["y"], size=3)],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])], [])
    result = run_cli("import-model", str(model), "--out", str(tmp_path / "seeds"), timeout=300)
    # TVM lowers LRN to an avg_pool3d, which the catalogue does not draw: the file is written all the same
    assert result.returncode == 0 and (tmp_path / "seeds" / "lrn.py").is_file(), result.stderr
    assert "passfuzz cannot import it yet" in result.stdout and "avg_pool3d" in result.stdout, result.stdout


def test_bad_models_are_one_line_each(run_cli, tmp_path):
    (tmp_path / "junk.onnx").write_text("not a model")
    result = run_cli("import-model", str(tmp_path / "junk.onnx"), "--out", str(tmp_path / "seeds"), timeout=300)
    assert result.returncode == 1 and "junk.onnx: not an ONNX model" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = run_cli("import-model", str(tmp_path / "missing.onnx"), "--out", str(tmp_path), timeout=300)
    assert result.returncode == 2 and "no such model file" in result.stderr, result.stderr
