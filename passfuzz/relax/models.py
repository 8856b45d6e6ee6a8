"""Real models as seeds: an ONNX model or a PyTorch one through TVM's own frontends
(``tvm.relax.frontend.onnx``, ``tvm.relax.frontend.torch.from_exported_program``).

``import_model`` takes what a user has: an ``.onnx`` file; a ``torch.export`` program saved as
``.pt2``; or a Python file and the name of a callable in it returning ``(nn.Module,
example_inputs)`` (``FILE.py::NAME``, NAME ``model`` when left out), which is exported here. A
PyTorch model's example inputs are its inputs' arguments; an ONNX model's inputs are drawn.

``import_onnx`` returns the frontend's module as an object, made fit to import and to print (the
torch frontend's module goes through the same ``fit_function``):

- A graph input that is also an initializer (ONNX's "input with a default value", as older
  exporters write every weight) is listed twice among ``main``'s parameters: with
  ``keep_params_in_input=True`` the frontend appends every initializer after the graph inputs,
  the same Var again (``docs/onnx_duplicate_parameters.py`` shows it). Such a function is
  ill-formed (``Var 1 is defined more than once``) and prints two parameters of one name; the
  second occurrence is dropped, and ``num_input`` counts the parameters left before it.
- Parameter names that are no Python identifier (``0``, ``input.1``: the frontend sanitizes the
  names of graph inputs but not those of initializers) are renamed (``p_0``, ``input_1``), since
  TVMScript prints them as they are and cannot parse them back.
- Bindings nothing reads are dropped (``batch_norm``'s unread mean and variance items), so
  each op's result has the one reader the catalogue's patterns expect.
- The ONNX test data's "light" networks (AlexNet, ResNet-50, ... in the onnx wheel) carry no
  convolution or dense weights: each is a ``ConstantOfShape`` of an initializer named
  ``<weight>__SHAPE``, filled with 0.02. Such a placeholder becomes an initializer of drawn
  values (``placeholder_weights``): with every kernel element 0.02 a 576-wide convolution
  multiplies its input's bound by 11.5, and VGG-19's sixteen of them reach 1e31, past what any
  program passfuzz draws may hold (``FLOAT_LIMIT``).
- ONNX's ``Sum`` of several tensors, which the frontend writes as each broadcast, stacked and
  summed over the new axis, becomes a chain of ``Add`` first (``sums_as_adds``; the same sum, in
  the same order). A stack's bound is the widest item's, so its sum's is that times the count:
  through ShuffleNet's sixteen residual ``Sum``s the bound doubled each time, to 1e4 at the
  final softmax, while an ``add`` adds the two operands' own bounds.
- Integer initializers (shapes, axes, positions, split sizes) become constants
  (``integer_constants``), and so does an integer input read only as a shape (``Expand``'s,
  ``Reshape``'s) when the model's folder holds the ONNX test data's value for it
  (``shape_inputs``; the onnx wheel's ``test_expand_shape_model3``); the forms of opsets before
  7 and 10 that the frontend reads by the later rules (``PRelu``'s per-channel slope, ``Slice``'s
  attributes) are rewritten to those rules (``older_opsets``).
- An inference ``batch_norm``'s ``momentum`` (which ONNX models set, and which only training
  reads) is reset to the op's default, the form the catalogue emits.

The weights stay parameters of ``main`` (``num_input`` marks them), and ``model_arguments``
gives ``main``'s arguments: the model's own weights, which the frontend keeps in a "params"
attribute, and drawn values for the inputs. The importer declares each parameter's range from
them, so a deep network's value bounds stay those its real weights give (a range guessed per
parameter, such as [-4, 4] for a batch_norm's variance or a 576-wide convolution's kernel, makes
fifty layers overflow any float bound). ``onnx`` and ``torch`` are optional dependencies
(``pip install ".[onnx]"``, ``pip install ".[torch]"``).
"""

from __future__ import annotations

import keyword
import re
import warnings
from pathlib import Path

import numpy as np
import tvm
import tvm_ffi
from tvm import relax

ONNX_FRONTEND = "tvm.relax.frontend.onnx"
TORCH_FRONTEND = "tvm.relax.frontend.torch"
MODEL_FORMS = ".onnx, .pt2 (a saved torch.export program) or FILE.py::NAME"


class ModelError(ValueError):
    """A model that cannot be read or converted; the message is one line."""


def model_file(spec: str) -> Path:
    """The file a model argument names: ``FILE.py::NAME`` names ``FILE.py``."""
    return Path(spec.split("::", 1)[0])


def model_frontend(spec: str) -> str | None:
    """The TVM frontend that converts the model ``spec`` names, or None for no form passfuzz reads."""
    suffix = model_file(spec).suffix
    if "::" not in spec and suffix == ".onnx":
        return ONNX_FRONTEND
    if ("::" not in spec and suffix == ".pt2") or suffix == ".py":
        return TORCH_FRONTEND
    return None


def import_model(spec: str) -> tuple[tvm.IRModule, list]:
    """``import_onnx`` or ``import_torch``, by the form of ``spec`` (see the module's docstring)."""
    if model_frontend(spec) == ONNX_FRONTEND:
        return import_onnx(Path(spec))
    if model_frontend(spec) == TORCH_FRONTEND:
        return import_torch(spec)
    raise ModelError(f"{spec}: not a model passfuzz reads ({MODEL_FORMS})")


def import_torch(spec: str) -> tuple[tvm.IRModule, list]:
    """The Relax module TVM's PyTorch frontend makes of the ``torch.export`` program ``spec``
    names (a ``.pt2`` file, or ``FILE.py::NAME`` exported here), weights as parameters and every
    function fit as ``import_onnx``'s, and the arguments of its ``main``: the example inputs,
    then the weights' own values."""
    try:
        import torch
    except ImportError:
        raise ModelError('reading PyTorch models needs torch: pip install ".[torch]"') from None
    from tvm.relax.frontend.torch import from_exported_program

    path = model_file(spec)
    if path.suffix == ".pt2":
        try:
            exported = torch.export.load(str(path))
        except Exception as exc:  # noqa: BLE001 - any unreadable file, told in one line
            raise ModelError(f"{spec}: not a saved torch.export program: {_first_line(exc)}") from None
        given = getattr(exported, "example_inputs", None)  # (args, kwargs), when it was saved with them
        inputs = tuple(given[0]) if given is not None and not given[1] else None
    else:
        module, inputs = _torch_callable(path, spec.split("::", 1)[1] if "::" in spec else "model")
        try:
            exported = torch.export.export(module.eval(), inputs)
        except Exception as exc:  # noqa: BLE001 - the exporter's refusal, told in one line
            raise ModelError(f"{spec}: torch.export fails: {type(exc).__name__}: {_first_line(exc)}") from None
    try:
        mod = from_exported_program(exported, keep_params_as_input=True, unwrap_unit_return_tuple=True)
    except Exception as exc:  # noqa: BLE001 - the frontend's own refusal, told in one line
        raise ModelError(f"{spec}: TVM's PyTorch frontend fails: {type(exc).__name__}: {_first_line(exc)}") from None
    tensors = [t.detach().cpu().numpy() for t in inputs] if inputs is not None and \
        all(isinstance(t, torch.Tensor) for t in inputs) else None
    arguments = model_arguments(mod["main"], inputs=tensors)
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = fit_function(func)
    return mod, arguments


def _torch_callable(path: Path, name: str) -> tuple:
    """The ``(nn.Module, example_inputs)`` the callable ``name`` of the Python file ``path``
    returns, the inputs as a tuple of tensors."""
    import importlib.util

    import torch

    loader = importlib.util.spec_from_file_location(f"passfuzz_model_{printable_name(path.stem)}", path)
    if loader is None or loader.loader is None:
        raise ModelError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(loader)
    try:
        loader.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the user's file raising, told in one line
        raise ModelError(f"{path}: running it raises {type(exc).__name__}: {_first_line(exc)}") from None
    make = getattr(module, name, None)
    if not callable(make):
        raise ModelError(f"{path}: defines no callable {name} returning (nn.Module, example_inputs)")
    try:
        made = make()
    except Exception as exc:  # noqa: BLE001 - the user's callable raising, told in one line
        raise ModelError(f"{path}::{name}() raises {type(exc).__name__}: {_first_line(exc)}") from None
    if not (isinstance(made, (tuple, list)) and len(made) == 2 and isinstance(made[0], torch.nn.Module)):
        raise ModelError(f"{path}::{name}() returns {type(made).__name__}, not (nn.Module, example_inputs)")
    inputs = (made[1],) if isinstance(made[1], torch.Tensor) else made[1]
    if not (isinstance(inputs, (tuple, list)) and inputs and all(isinstance(t, torch.Tensor) for t in inputs)):
        raise ModelError(f"{path}::{name}(): example_inputs must be a tensor or a non-empty tuple of tensors")
    return made[0], tuple(inputs)


def import_onnx(path: Path) -> tuple[tvm.IRModule, list]:
    """The Relax module TVM's ONNX frontend makes of the model at ``path``, weights as parameters,
    every function well-formed and printable (see the module's docstring), and the arguments of
    its ``main`` (``model_arguments``)."""
    try:
        import onnx
    except ImportError:
        raise ModelError('reading ONNX models needs the onnx package: pip install ".[onnx]"') from None
    from tvm.relax.frontend.onnx import from_onnx

    try:
        model = onnx.load(str(path))
    except Exception as exc:  # noqa: BLE001 - any unreadable file, told in one line
        raise ModelError(f"{path}: not an ONNX model: {_first_line(exc)}") from None
    placeholder_weights(model)
    sums_as_adds(model)
    integer_constants(model)
    shape_inputs(model, path.parent / "test_data_set_0")
    older_opsets(model)
    try:
        with warnings.catch_warnings():  # "Renaming name 0 to input_0", once per input: not the user's concern
            warnings.simplefilter("ignore", UserWarning)
            mod = from_onnx(model, keep_params_in_input=True)
    except Exception as exc:  # noqa: BLE001 - the frontend's own refusal, told in one line
        raise ModelError(f"{path}: TVM's ONNX frontend fails: {type(exc).__name__}: {_first_line(exc)}") from None
    arguments = model_arguments(mod["main"])
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = fit_function(func)
    return mod, arguments


def placeholder_weights(model, seed: int = 0) -> int:
    """Replace, in the ONNX ``model``, each placeholder weight (``ConstantOfShape`` of an
    initializer named ``<output>__SHAPE``) by an initializer of that name holding drawn values,
    and return how many: a bias (rank 1) uniform in [0, 0.1], a kernel (rank >= 2) uniform in
    +-1/(64 fan-in), fan-in the product of all but the first dim. At +-1/fan-in a convolution
    keeps its input's bound; the further 1/64 absorbs what the batch norms after it multiply
    (ResNet-50's shipped statistics scale a bound by up to 11 each, 53 times over), so that the
    bounds stay within FLOAT_LIMIT and the final softmax's rounding rule. The file holds no
    kernel values, so their scale is passfuzz's to choose."""
    from onnx import numpy_helper

    graph = model.graph
    initializers = {t.name: t for t in graph.initializer}
    rng = np.random.default_rng(seed)
    replaced = []
    for node in graph.node:
        shape_name = node.input[0] if node.op_type == "ConstantOfShape" and node.input else ""
        if shape_name != f"{node.output[0]}__SHAPE" or shape_name not in initializers:
            continue
        shape = [int(d) for d in numpy_helper.to_array(initializers[shape_name])]
        value = next((numpy_helper.to_array(a.t) for a in node.attribute if a.name == "value"), np.zeros(1, "float32"))
        fan_in = int(np.prod(shape[1:])) if len(shape) >= 2 else 0
        scale = 1 / (64 * fan_in) if fan_in else 0.0
        drawn = rng.uniform(-scale, scale, shape) if fan_in else rng.uniform(0, 0.1, shape)
        graph.initializer.append(numpy_helper.from_array(drawn.astype(value.dtype), node.output[0]))
        replaced.append(node)
    for node in replaced:
        graph.node.remove(node)
    read = {name for node in graph.node for name in node.input}
    for tensor in [t for t in graph.initializer if t.name.endswith("__SHAPE") and t.name not in read]:
        graph.initializer.remove(tensor)
    for value in [v for v in graph.input if v.name.endswith("__SHAPE") and v.name not in read]:
        graph.input.remove(value)
    return len(replaced)


def sums_as_adds(model) -> int:
    """Replace, in the ONNX ``model``, each ``Sum`` of two or more inputs by the chain of ``Add``
    nodes that computes it (both broadcast alike), in place; return how many were replaced."""
    from onnx import helper

    nodes, replaced = [], 0
    for node in model.graph.node:
        if node.op_type != "Sum" or len(node.input) < 2:
            nodes.append(node)
            continue
        replaced += 1
        total = node.input[0]
        for k, item in enumerate(node.input[1:], 1):
            out = node.output[0] if k == len(node.input) - 1 else f"{node.output[0]}__sum{k}"
            nodes.append(helper.make_node("Add", [total, item], [out]))
            total = out
    if replaced:
        del model.graph.node[:]
        model.graph.node.extend(nodes)
    return replaced


def integer_constants(model) -> int:
    """Turn, in the ONNX ``model``, each int32 or int64 initializer into a ``Constant`` node (and
    drop it from the graph's inputs, where an older exporter lists it as an input with a default);
    return how many. Such a tensor is a shape, an axis, a position or a split's sizes, which the
    frontend reads only from a constant (a ``SequenceInsert`` at a parameter's position fails to
    convert), and no value passfuzz could draw for it would stay valid."""
    from onnx import TensorProto, helper

    graph = model.graph
    integers = [t for t in graph.initializer if t.data_type in (TensorProto.INT32, TensorProto.INT64)]
    if not integers:
        return 0
    constants = [helper.make_node("Constant", [], [t.name], value=t) for t in integers]
    names = {t.name for t in integers}
    for tensor in integers:
        graph.initializer.remove(tensor)
    for value in [v for v in graph.input if v.name in names]:
        graph.input.remove(value)
    nodes = constants + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    return len(integers)


# Where an ONNX op reads a shape (the dims of its result, or the repeats of a Tile): an input there
# fixes the result's shape by its value.
SHAPE_OPERANDS = {("Expand", 1), ("Reshape", 1), ("Tile", 1), ("ConstantOfShape", 0)}


def shape_inputs(model, test_data: Path) -> int:
    """Turn, in the ONNX ``model``, each integer graph input that only ops' shape operands read
    (``SHAPE_OPERANDS``) into a ``Constant`` node of its value in ``test_data`` (the ONNX test
    data's ``input_<k>.pb``: the k-th input that is no initializer, or the one it is named after),
    when that folder holds it; return how many. As for ``integer_constants``, no value passfuzz could draw for a shape
    stays valid: the result's shape would follow the drawn value, while a Program's shapes are
    those of its arguments, fixed."""
    from onnx import TensorProto, helper

    graph = model.graph
    if not test_data.is_dir():
        return 0
    weights = {t.name for t in graph.initializer}
    fed = [v.name for v in graph.input if v.name not in weights]
    given = {}
    for k, name in enumerate(fed):
        tensor = TensorProto()
        try:
            tensor.ParseFromString((test_data / f"input_{k}.pb").read_bytes())
        except Exception:  # noqa: BLE001 - missing or not a tensor: the input stays an input
            tensor = None
        if tensor is not None:
            given[tensor.name or name] = tensor
    readers: dict[str, set] = {}
    for node in graph.node:
        for position, name in enumerate(node.input):
            readers.setdefault(name, set()).add((node.op_type, position))
    integer = (TensorProto.INT32, TensorProto.INT64)
    shapes = [v for v in graph.input if v.type.tensor_type.elem_type in integer and v.name in given
              and given[v.name].data_type in integer and readers.get(v.name) and readers[v.name] <= SHAPE_OPERANDS]
    if not shapes:
        return 0
    for value in shapes:
        graph.input.remove(value)
    nodes = [helper.make_node("Constant", [], [v.name], value=given[v.name]) for v in shapes] + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    return len(shapes)


def older_opsets(model) -> int:
    """Rewrite, in the ONNX ``model``, the two forms of opsets before 7 and 10 that the frontend
    reads by the later opsets' rules, whatever the model's opset; return how many nodes changed:

    - ``PRelu`` before opset 7 has one slope per channel (axis 1); from 7 on the slope broadcasts
      against the trailing axes, and the frontend puts a slope of shape (C,) on the last axis. A
      constant slope of shape (C,) becomes (C, 1, ..., 1), the same slopes by the later rule.
    - ``Slice`` before opset 10 takes starts, ends and axes as attributes; the frontend reads them
      as inputs only, and fails on None. They become constant inputs."""
    from onnx import TensorProto, helper, numpy_helper, shape_inference

    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    graph, changed = model.graph, 0
    if opset < 7 and any(n.op_type == "PRelu" for n in graph.node):
        ranks = {v.name: len(v.type.tensor_type.shape.dim)
                 for v in [*shape_inference.infer_shapes(model).graph.value_info, *graph.input]
                 if v.type.tensor_type.HasField("shape")}
        initializers = {t.name: t for t in graph.initializer}
        for node in (n for n in graph.node if n.op_type == "PRelu"):
            slope = initializers.get(node.input[1])
            rank = ranks.get(node.input[0], 0)
            if slope is None or len(slope.dims) != 1 or slope.dims[0] == 1 or rank < 3:
                continue
            value = numpy_helper.to_array(slope).reshape((slope.dims[0],) + (1,) * (rank - 2))
            slope.CopyFrom(numpy_helper.from_array(value, slope.name))
            for item in (v for v in graph.input if v.name == slope.name):
                del item.type.tensor_type.shape.dim[:]
                for d in value.shape:
                    item.type.tensor_type.shape.dim.add().dim_value = d
            changed += 1
    if opset < 10:
        nodes = []
        for node in graph.node:
            fields = {a.name: list(a.ints) for a in node.attribute}
            if node.op_type != "Slice" or len(node.input) != 1 or "starts" not in fields:
                nodes.append(node)
                continue
            inputs = [node.input[0]]
            for name in ("starts", "ends", "axes"):
                if name in fields:
                    out = f"{node.output[0]}__{name}"
                    nodes.append(helper.make_node("Constant", [], [out], value=helper.make_tensor(
                        out, TensorProto.INT64, [len(fields[name])], fields[name])))
                    inputs.append(out)
            nodes.append(helper.make_node("Slice", inputs, list(node.output)))
            changed += 1
        del graph.node[:]
        graph.node.extend(nodes)
    return changed


def model_arguments(func: relax.Function, seed: int = 0, inputs: list[np.ndarray] | None = None) -> list[np.ndarray]:
    """The arguments of ``func`` as the frontend made it, in the order of its parameters once
    ``fit_function`` listed each once: a weight's own value (the "params" attribute holds one per
    parameter after the inputs, duplicates included), an input's ``inputs`` item when given, else
    drawn (floats in [-1, 1], integers in [0, 2], booleans either)."""
    values = list(func.attrs["params"]) if func.attrs is not None and "params" in func.attrs else []
    known = dict(zip(list(func.params)[len(func.params) - len(values):], values))
    rng = np.random.default_rng(seed)
    arguments, seen = [], []
    for k, p in enumerate(func.params):
        if any(p.same_as(q) for q in seen):
            continue
        seen.append(p)
        if k < len(inputs or []):
            arguments.append(np.asarray(inputs[k]))
            continue
        value = next((v for q, v in known.items() if q.same_as(p)), None)
        if value is not None:
            arguments.append(value.numpy())
            continue
        shape, dtype = [int(d) for d in p.ty.shape.values], str(p.ty.dtype)
        if dtype == "bool":
            arguments.append(rng.integers(0, 2, shape).astype("bool"))
        elif dtype.startswith(("int", "uint")):
            arguments.append(rng.integers(0, 3, shape).astype(dtype))
        else:
            arguments.append(rng.uniform(-1, 1, shape).astype(dtype))
    return arguments


def fit_function(func: relax.Function) -> relax.Function:
    """``func`` with each parameter listed once, under a printable name, without its unread
    bindings, and without the "params" attribute (the frontend records the weights' values there,
    which only a metadata section can print; the values are drawn as arguments instead)."""
    params, num_input = [], None
    given = func.attrs.get("num_input") if func.attrs is not None else None
    for k, p in enumerate(func.params):
        if given is not None and k == int(given):
            num_input = len(params)
        if not any(p.same_as(q) for q in params):
            params.append(p)
    renamed = [relax.Var(printable_name(p.name), p.ty) for p in params]
    # bind_params substitutes the new Vars and drops the old parameters; the new ones are then listed
    body = relax.Function(params, func.body, func.ret_ty, func.is_pure, func.attrs).bind_params(
        dict(zip(params, renamed))).body
    fitted = relax.Function(renamed, body, func.ret_ty, func.is_pure, func.attrs)
    if func.attrs is not None and "params" in func.attrs:
        fitted = fitted.without_attr("params")
    if num_input is not None and num_input != int(given):
        fitted = fitted.with_attr("num_input", num_input)
    return relax.analysis.remove_all_unused(_InferenceMomentum().visit_expr(fitted))


@relax.expr_functor.mutator
class _InferenceMomentum(relax.PyExprMutator):
    """Every ``batch_norm(..., training=False)`` with the default momentum: nothing reads it."""

    def visit_call_(self, call: relax.Call) -> relax.Expr:
        call = super().visit_call_(call)
        if isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.nn.batch_norm" and not call.attrs.training:
            a = call.attrs
            return relax.op.nn.batch_norm(*call.args, axis=a.axis, epsilon=a.epsilon, center=a.center,
                                          scale=a.scale, training=False)
        return call


def printable_name(name: str) -> str:
    """``name`` as a Python identifier TVMScript parses back: ``input.1`` -> ``input_1``,
    ``0`` -> ``p_0``, ``lambda`` -> ``p_lambda``."""
    name = re.sub(r"\W", "_", name) or "p"
    return f"p_{name}" if name[0].isdigit() or keyword.iskeyword(name) else name


def seed_source(mod: tvm.IRModule, origin: Path, frontend: str = ONNX_FRONTEND) -> str:
    """A Python file defining ``mod`` as TVMScript, checked to parse back to the same module."""
    script = "\n".join(line for line in mod.script().splitlines() if not line.startswith("# from tvm.script"))
    text = (f'"""A seed module: {origin.name} through {frontend} (TVM {tvm.__version__}),\n'
            f'written by passfuzz import-model."""\n\n'
            "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tirx as T\n\n"
            + script)
    try:
        parsed = tvm.script.from_source(script)
    except Exception as exc:  # noqa: BLE001 - TVMScript that does not parse back is no seed
        raise ModelError(f"{origin}: TVM prints a module it cannot parse back: {_first_line(exc)}") from None
    if not tvm_ffi.structural_equal(parsed, mod):
        raise ModelError(f"{origin}: the printed module parses back to a different one")
    return text.rstrip() + "\n"


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
