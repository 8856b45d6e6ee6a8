"""``passfuzz import-model``: ONNX models, built here, written as seed files that --seeds reads."""

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from passfuzz.campaign.seeds import find_seeds  # noqa: E402
from passfuzz.relax.importer import import_module  # noqa: E402
from passfuzz.relax.models import import_onnx, placeholder_weights, printable_name  # noqa: E402

ZOO = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"  # the onnx wheel's model-zoo networks


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
    assert (tmp_path / "seeds" / "dense.json").is_file()
    found = find_seeds([tmp_path / "seeds"])
    (program,) = found.programs
    assert [p.role for _, p in program.params] == ["input", "weight", "weight"]
    assert program.node_ops() == ["matmul", "add", "relu"]
    # the weights' own values are the arguments, and each declared range is its argument's
    _, w = program.params[1]
    assert np.array_equal(np.asarray(w.value), np.ones((3, 4))) and (w.lo, w.hi) == (1.0, 1.0)


def weights_also_inputs(path: Path) -> Path:
    """Weights that are graph inputs too (as older exporters write every initializer), named as
    PyTorch's exporter names them ("1", "weight.1")."""
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["0", "weight.1"], ["m"]), helper.make_node("Add", ["m", "1"], ["y"])], "g",
        [helper.make_tensor_value_info("0", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("weight.1", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("1", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [numpy_helper.from_array(np.full((3, 4), 0.5, "float32"), "weight.1"),
         numpy_helper.from_array(np.arange(4, dtype="float32"), "1")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_a_weight_that_is_also_an_input_is_one_parameter_under_a_printable_name(tmp_path):
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    model = weights_also_inputs(tmp_path / "m.onnx")
    raw = from_onnx(onnx.load(str(model)), keep_params_in_input=True)["main"]
    assert len(raw.params) == 5  # the frontend's fault this works around: "weight.1" and "1" listed twice
    mod, arguments = import_onnx(model)
    main = mod["main"]
    assert [p.name for p in main.params] == ["input_0", "weight_1", "p_1"]
    assert relax.analysis.check_well_formed(mod)
    assert int(main.attrs["num_input"]) == 1 and "params" not in main.attrs
    assert [a.shape for a in arguments] == [(2, 3), (3, 4), (4,)]
    assert np.array_equal(arguments[2], np.arange(4, dtype="float32"))  # the initializer's own value
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    assert program.node_ops() == ["matmul", "add"] and [p.role for _, p in program.params] == ["input", "weight", "weight"]


def test_printable_names():
    assert [printable_name(n) for n in ("0", "input.1", "lambda", "x", "_y", "a-b")] == \
        ["p_0", "input_1", "p_lambda", "x", "_y", "a_b"]


def test_placeholder_weights_of_the_light_networks_become_drawn_initializers():
    """ONNX's light model-zoo networks write each kernel as ConstantOfShape(<name>__SHAPE) of 0.02;
    a ConstantOfShape of any other input is the model's own computation and stays."""
    graph = helper.make_graph(
        [helper.make_node("ConstantOfShape", ["w__SHAPE"], ["w"], value=numpy_helper.from_array(np.full(1, 0.02, "float32"))),
         helper.make_node("ConstantOfShape", ["s"], ["c"]),
         helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8]),
         helper.make_tensor_value_info("w__SHAPE", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        [numpy_helper.from_array(np.array([8, 4], "int64"), "w__SHAPE"), numpy_helper.from_array(np.array([3], "int64"), "s")])
    model = helper.make_model(graph)
    assert placeholder_weights(model) == 1
    assert [n.op_type for n in model.graph.node] == ["ConstantOfShape", "MatMul"]
    assert {t.name for t in model.graph.initializer} == {"w", "s"} and [i.name for i in model.graph.input] == ["x"]
    w = numpy_helper.to_array(next(t for t in model.graph.initializer if t.name == "w"))
    assert w.shape == (8, 4) and w.dtype == np.float32 and np.abs(w).max() <= 1 / (64 * 4) and len(np.unique(w)) > 1


def test_a_model_the_catalogue_cannot_express_yet_is_kept_as_tvmscript_and_said(run_cli, tmp_path):
    # a hand-written instance norm, x / sqrt(variance + 1e-9): no range keeps sqrt's operand positive
    model = ZOO.parent / "pytorch-operator" / "test_operator_symbolic_override" / "model.onnx"
    result = run_cli("import-model", str(model), "--out", str(tmp_path / "seeds"), timeout=300)
    assert result.returncode == 0 and (tmp_path / "seeds" / "test_operator_symbolic_override.py").is_file(), \
        result.stderr
    assert "passfuzz cannot import it yet" in result.stdout and "sqrt" in result.stdout, result.stdout


def test_a_model_whose_frontend_writes_a_call_tir_imports_it_as_an_opaque_kernel(run_cli, tmp_path):
    # PyTorch's ZeroPad2d, which the frontend writes as a call_tir of its own kernel
    model = ZOO.parent / "pytorch-converted" / "test_ZeroPad2d" / "model.onnx"
    result = run_cli("import-model", str(model), "--out", str(tmp_path / "seeds"), timeout=300)
    assert result.returncode == 0 and "imports as" in result.stdout and "call_tir" in result.stdout, result.stdout
    assert (tmp_path / "seeds" / "test_ZeroPad2d.json").is_file()


def test_local_response_normalization_imports_through_avg_pool3d(tmp_path):
    model = _model(tmp_path / "lrn.onnx", [helper.make_node("LRN", ["x"], ["y"], size=3)],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])], [])
    mod, arguments = import_onnx(model)
    assert "avg_pool3d" in import_module(mod, arguments=arguments, argument_ranges=True).node_ops()


def test_bad_models_are_one_line_each(run_cli, tmp_path):
    (tmp_path / "junk.onnx").write_text("not a model")
    result = run_cli("import-model", str(tmp_path / "junk.onnx"), "--out", str(tmp_path / "seeds"), timeout=300)
    assert result.returncode == 1 and "junk.onnx: not an ONNX model" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = run_cli("import-model", str(tmp_path / "missing.onnx"), "--out", str(tmp_path), timeout=300)
    assert result.returncode == 2 and "no such model file" in result.stderr, result.stderr


def test_a_split_read_part_by_part_is_one_split_tuple_and_its_items(tmp_path):
    """The frontend binds split's tuple once and reads every part from it; the catalogue's split
    (split and one part) is split_tuple and tuple_get_item, which the importer reads as pieces, so
    the Program holds one split as the module does, and computes the same."""
    from passfuzz.ir.graph import evaluate

    model = _model(tmp_path / "split.onnx",
                   [helper.make_node("Split", ["x", "parts"], ["a", "b"], axis=1),
                    helper.make_node("Sub", ["a", "b"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
                   [("parts", np.array([2, 2], "int64"))])
    mod, arguments = import_onnx(model)
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    assert program.node_ops() == ["split_tuple", "tuple_get_item", "tuple_get_item", "subtract"]
    x = np.asarray(arguments[0])
    (y,) = evaluate(program)
    assert np.allclose(y, x[:, :2] - x[:, 2:])


def test_model_zoo_networks_import_and_seed_a_fuzzing_run(run_cli, tmp_path):
    """Two of the model-zoo networks the onnx wheel ships: SqueezeNet is written as a seed file and
    a short run is seeded with it; AlexNet imports too, but its 61 million weights are more than a
    seed file holds by default, which is said in one line."""
    seeds = tmp_path / "seeds"
    result = run_cli("import-model", str(ZOO / "light_squeezenet.onnx"), str(ZOO / "light_bvlc_alexnet.onnx"),
                     "--out", str(seeds), timeout=600)
    assert result.returncode == 1, result.stderr  # AlexNet not written
    assert "light_squeezenet.json: imports as 53 param(s), 120 node(s)" in result.stdout, result.stdout
    assert "conv2d×26" in result.stdout and "dropout" in result.stdout
    (alexnet,) = [line for line in result.stderr.splitlines() if "light_bvlc_alexnet" in line]
    assert "imports as" in alexnet and "avg_pool3d×2" in alexnet and "more than --max-elements" in alexnet
    assert sorted(p.name for p in seeds.iterdir()) == ["light_squeezenet.json"]
    run = run_cli("--seeds", str(seeds), "--passes", "FoldConstant", "--max-examples", "3", "--seed", "1",
                  "--corpus", str(tmp_path / "corpus"), timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 module(s) in 1 file(s), 1 imported, 0 rejected" in run.stderr
    assert "half the programs are mutations of 1 seed(s)" in run.stderr
    assert "3 examples" in run.stderr and "generator defects 0" in run.stderr, run.stderr


def test_a_broken_model_seed_is_one_warning_naming_the_field(run_cli, tmp_path):
    model = dense_relu(tmp_path / "dense.onnx")
    assert run_cli("import-model", str(model), "--out", str(tmp_path / "seeds"), timeout=300).returncode == 0
    seed = tmp_path / "seeds" / "dense.json"
    doc = json.loads(seed.read_text())
    assert doc["frontend"] == "tvm.relax.frontend.onnx" and doc["origin"] == "dense.onnx"
    doc["program"]["values"][0]["dtype"] = "float128"
    seed.write_text(json.dumps(doc))
    found = find_seeds([tmp_path / "seeds"])
    assert found.programs == [] and len(found.warnings) == 1
    assert found.warnings[0].startswith(f"{seed}: field program/values/0") and "\n" not in found.warnings[0]


def test_max_elements_must_be_positive(run_cli, tmp_path):
    result = run_cli("import-model", str(dense_relu(tmp_path / "d.onnx")), "--out", str(tmp_path), "--max-elements", "0")
    assert result.returncode == 2 and "--max-elements must be at least 1" in result.stderr, result.stderr


def test_a_float64_model_imports_in_float64_and_computes_what_numpy_does(tmp_path):
    from passfuzz.ir.graph import evaluate

    model = _model(tmp_path / "f64.onnx", [helper.make_node("Add", ["x", "w"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [2, 3])],
                   [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2, 3])],
                   [("w", np.linspace(-1, 1, 3))])
    mod, arguments = import_onnx(model)
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    assert [p.dtype for _, p in program.params] == ["float64", "float64"] and program.node_ops() == ["add"]
    (y,) = evaluate(program)
    assert y.dtype == np.float64 and np.array_equal(y, arguments[0] + np.linspace(-1, 1, 3))


def test_an_onnx_sum_is_a_chain_of_adds_whose_bound_adds_the_operands_own(tmp_path):
    """The frontend writes Sum as stack-and-sum, whose bound is the widest operand's times the
    count; through ShuffleNet's residual Sums that bound doubled sixteen times."""
    from passfuzz.ir.graph import analyse, evaluate

    model = _model(tmp_path / "sum.onnx", [helper.make_node("Sum", ["x", "a", "b"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                   [("a", np.full((3,), 0.01, "float32")), ("b", np.full((2, 1), 0.02, "float32"))])
    mod, arguments = import_onnx(model)
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    assert program.node_ops() == ["add", "add"]
    bound = analyse(program)[program.outputs[0]]
    assert bound.hi <= arguments[0].max() + 0.031 and bound.lo >= arguments[0].min() - 0.001
    (y,) = evaluate(program)
    assert np.allclose(y, arguments[0] + 0.03)


def test_an_opset_6_prelu_slopes_each_channel(tmp_path):
    """Before opset 7 a PRelu slope of shape (C,) is one per channel (axis 1); the frontend puts it
    on the last axis (its own output reads 3 slopes along an axis of 4)."""
    from tvm.relax.frontend.onnx import from_onnx

    from passfuzz.ir.graph import evaluate

    slope = np.array([0.5, 2.0, -1.0], "float32")
    graph = helper.make_graph([helper.make_node("PRelu", ["x", "s"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])],
                              [numpy_helper.from_array(slope, "s")])
    path = tmp_path / "prelu.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)]), str(path))
    raw = from_onnx(onnx.load(str(path)), keep_params_in_input=True)["main"]
    assert "axis=2" in raw.script()  # the frontend's reading, which this works around
    mod, arguments = import_onnx(path)
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    assert "prelu" in program.node_ops()
    x = arguments[0]
    (y,) = evaluate(program)
    assert np.allclose(y, np.where(x < 0, x * slope.reshape(3, 1), x))


def test_an_opset_6_slice_and_integer_positions_import(tmp_path):
    """Slice before opset 10 takes its starts and ends as attributes, which the frontend does not
    read; a SequenceAt at an integer initializer's position fails to convert while the position
    is a parameter."""
    from tvm.relax.frontend.onnx import from_onnx

    from passfuzz.ir.graph import evaluate

    graph = helper.make_graph([helper.make_node("Slice", ["x"], ["y"], axes=[1], starts=[1], ends=[3])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])])
    path = tmp_path / "slice.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)]), str(path))
    mod, arguments = import_onnx(path)
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    (y,) = evaluate(program)
    assert program.node_ops() == ["strided_slice"] and np.array_equal(y, arguments[0][:, 1:3])

    positions = _model(tmp_path / "seq.onnx",
                       [helper.make_node("SequenceConstruct", ["x", "z"], ["s"]),
                        helper.make_node("SequenceAt", ["s", "at"], ["y"]), helper.make_node("Relu", ["y"], ["r"])],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                        helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])],
                       [helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3])],
                       [("at", np.array(1, "int64"))])
    with pytest.raises(Exception, match="SequenceAt"):
        from_onnx(onnx.load(str(positions)), keep_params_in_input=True)
    mod, arguments = import_onnx(positions)
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    (r,) = evaluate(program)
    assert program.node_ops() == ["relu"] and np.array_equal(r, np.maximum(arguments[1], 0))


def test_a_negative_index_wrap_never_taken_and_a_negative_power_base_import():
    """The test data's Embedding: the frontend wraps negative indices (where(i < 0, i + 4, i)),
    which indices drawn in [0, 2] never take; its pow: a base drawn in [-1, 1] is clipped into
    power's domain, the exponent left as it is."""
    data = ZOO.parent
    mod, arguments = import_onnx(data / "pytorch-converted" / "test_Embedding" / "model.onnx")
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    assert {"where", "take"} <= set(program.node_ops())
    index = program.values[0]
    assert (index.lo, index.hi) == (float(arguments[0].min()), float(arguments[0].max()))  # the argument's own
    mod, arguments = import_onnx(data / "pytorch-operator" / "test_operator_pow" / "model.onnx")
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    assert program.node_ops() == ["clip", "power"]
    clip, power = program.nodes
    assert clip.args == (0,) and power.args == (1, 2)  # base, its clip, exponent (as given), power


def test_a_shape_input_the_test_data_gives_becomes_that_constant_and_the_network_runs(tmp_path):
    """The onnx wheel's test_expand_shape_model3: Expand to a shape that is an input. Its value,
    in the model's test data, fixes the result's shape, so the network imports with that shape
    constant; a built module and numpy then compute the broadcast the test data expects. Without
    the test data the shapes stay inputs, and the frontend refuses the Reshape."""
    from tvm import relax

    from passfuzz.ir.graph import evaluate
    from passfuzz.portable.standalone import load, numpy_outputs, to_tvm
    from passfuzz.relax.build import build_module
    from passfuzz.relax.models import ModelError

    folder = tmp_path / "expand"
    (folder / "test_data_set_0").mkdir(parents=True)
    model = _model(folder / "model.onnx",
                   [helper.make_node("Reshape", ["x", "flat"], ["r"]), helper.make_node("Expand", ["r", "shape"], ["y"])],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 1]),
                    helper.make_tensor_value_info("flat", TensorProto.INT64, [2]),
                    helper.make_tensor_value_info("shape", TensorProto.INT64, [3])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [])
    given = [np.array([[[1.0], [2.0], [3.0]]], "float32"), np.array([3, 1], "int64"), np.array([2, 3, 4], "int64")]
    for k, (name, value) in enumerate(zip(["x", "flat", "shape"], given)):
        (folder / "test_data_set_0" / f"input_{k}.pb").write_bytes(numpy_helper.from_array(value, name).SerializeToString())
    mod, arguments = import_onnx(model)
    assert [p.name for p in mod["main"].params] == ["x"]
    program = import_module(mod, arguments=arguments, argument_ranges=True)
    expected = np.broadcast_to(arguments[0].reshape(3, 1), (2, 3, 4))
    executable, device = load(build_module(program), "llvm")
    (built,) = numpy_outputs(relax.VirtualMachine(executable, device)["main"](*[to_tvm(a, device) for a in program.arguments()]))
    (reference,) = evaluate(program)
    assert np.array_equal(built, expected) and np.array_equal(reference, expected)

    for k in range(3):
        (folder / "test_data_set_0" / f"input_{k}.pb").unlink()
    with pytest.raises(ModelError, match="Reshape requires the input new shape to be Shape"):
        import_onnx(model)
