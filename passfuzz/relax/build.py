"""Program -> Relax IRModule, through BlockBuilder (so TVM's own type checks run on emit).

This module and passfuzz.run.execute are the only places that construct Relax IR or call the
compiler; TVM's Python API changes between releases, so keep new calls here.

``main`` is one dataflow block for plain programs. Structure (passfuzz.ir.catalogue.structure)
splits it: an ``if`` and a closure (a ``call`` with ``local``) are bound outside dataflow
blocks, as Relax requires, and every dataflow value used after its block leaves it through
``R.output``. A ``call`` without ``local`` calls a private function of the module, built before
``main``.

Parameters may be typed with symbolic dims or an unknown rank (Program.dims, unknown_rank),
R.Shape parameters sit between the inputs and the weights, and R.Prim parameters before the
first tensor parameter that uses their variable (Program.main_parameters). An op whose OpDef is ``symbolic``
takes such operands as typed; every other op gets them ``match_cast`` to the static shape the
analysis knows.
"""

from __future__ import annotations

import functools
from collections import Counter

import tvm
import tvm_ffi
from tvm import relax

# Reproducer scripts parse TVMScript, and the parser imports parts of TVM that some passes use
# without importing them (LazyTransformParams needs tvm.relax.op.vm). Importing it here too makes
# passfuzz see what its reproducers will see.
from tvm.script import relax as _tvmscript_relax  # noqa: F401

from passfuzz.ir.catalogue import BY_NAME
from passfuzz.ir.catalogue.base import TupleInfo, ValueInfo
from passfuzz.ir.catalogue.structure import analyse_region
from passfuzz.ir.graph import analyse
from passfuzz.ir.program import EFFECTS, Node, Param, Program, dim_value
from passfuzz.portable.standalone import to_tvm  # noqa: F401 - passfuzz converts arguments as its scripts do


def build_module(program: Program) -> tvm.IRModule:
    """A fresh IRModule: ``main`` (with ``num_input`` when there are weights) and a private
    function for each ``call`` node."""
    # Tuple parameters, function bodies and values not statically typed are typed from the facts
    # of the values; a program with none of them builds without (Gradient's float64 twin, outside
    # the catalogue's dtypes, is one).
    infos = analyse(program, check_values=False) if _needs_facts(program) else [None] * len(program.values)
    bb = relax.BlockBuilder()
    symbols = {name: tvm.tirx.Var(name, "int64") for name in program.symbol_values()}
    nodes = _annotate([(i, {"op": v.op, "args": list(v.args), "attrs": v.attrs})
                       for i, v in enumerate(program.values) if isinstance(v, Node)], infos)
    functions = _private_functions(bb, nodes, "f")
    exprs: dict[int, relax.Expr] = {}
    params = []
    for _, kind, what in program.main_parameters():
        if kind == "prim":  # in TVM 0.27 the symbolic variable itself is the R.Prim parameter
            params.append(symbols[what.name])
        elif kind == "shape":
            shapes = sum(isinstance(q.ty, relax.ShapeType) for q in params)
            params.append(relax.Var(f"s{shapes}", relax.ShapeType([symbols[n] for n in what])))
        elif isinstance(what, tuple):
            params.append(relax.Var(program.tuple_param_name(what), _tuple_param_type(program, what, symbols)))
            _bind_leaves(params[-1], what, exprs)
        else:
            params.append(relax.Var(program.param_name(what), param_type(program.values[what], symbols)))
            exprs[what] = params[-1]
    with bb.function("main", params, pure=not any(n.op in EFFECTS for n in program.nodes)):
        result = _emit_body(bb, nodes, exprs, list(program.outputs), functions, "f", dataflow=True)
        bb.emit_func_output(result)
    mod = bb.get()
    if program.num_input is not None:
        mod["main"] = mod["main"].with_attr("num_input", program.num_input)
    return mod


def relax_ops(program: Program) -> list[str]:
    """The Relax ops ``program``'s module calls (``relax.permute_dims``, ...): what a pass sees. A
    catalogue op may emit several (``linear`` is a permute_dims and a matmul)."""
    return sorted(op_counts(build_module(program)))


def op_counts(mod: tvm.IRModule, forms: bool = False) -> Counter:
    """How many calls of each Relax op the Relax functions of ``mod`` hold (what a pass removed or
    added is the difference of two of these). With ``forms``, each op with its attributes
    bucketed (``op_form``), so that rewrites differing only in an attribute count apart."""
    counts: Counter = Counter()

    def note(expr) -> None:
        if isinstance(expr, relax.Call) and isinstance(expr.op, tvm.ir.Op):
            counts[op_form(expr) if forms else expr.op.name] += 1

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, note)
    return counts


def op_form(call: relax.Call) -> str:
    """``relax.sum[axis=last,keepdims=true]``: the op of ``call`` with each attribute in a
    bucket, few per attribute so the behaviours they key stay few: an axis by its position in the
    first operand (first, middle, last, or only), an integer by its sign and whether it is 0 or
    1, a float by its sign, a dtype by its family, a flag or a string (a layout, a method) as it
    is, an array by the set of its elements' buckets; other fields are left out."""
    fields = getattr(type(call.attrs), "__tvm_ffi_type_info__", None) if call.attrs is not None else None
    if fields is None:
        return call.op.name
    rank = getattr(call.args[0].ty, "ndim", -1) if call.args else -1
    parts = []
    for field in fields.fields:
        value = getattr(call.attrs, field.name, None)
        bucket = _axis_bucket(value, rank) if field.name in ("axis", "axes") else _bucket(value)
        if bucket is not None:
            parts.append(f"{field.name}={bucket}")
    return f"{call.op.name}[{','.join(parts)}]"


def _axis_bucket(value, rank: int) -> str | None:
    if value is None:
        return "none"
    axes = [value] if isinstance(value, int) else list(value) if isinstance(value, (list, tuple, tvm.ir.Array)) else None
    if axes is None or not all(isinstance(a, int) for a in axes):
        return None
    if rank <= 0:
        return "?"

    def where(axis: int) -> str:
        axis %= rank
        return "only" if rank == 1 else "first" if axis == 0 else "last" if axis == rank - 1 else "middle"

    return "+".join(sorted({where(a) for a in axes})) or "empty"


def _bucket(value) -> str | None:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return "0" if value == 0 else "1" if value == 1 else "neg" if value < 0 else ">1"
    if isinstance(value, float):
        return "0" if value == 0 else "neg" if value < 0 else "pos"
    if isinstance(value, tvm_ffi.dtype):  # a str too
        return _dtype_family(str(value))
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, tvm.ir.Array)):
        items = [_bucket(v) for v in value]
        return "|".join(sorted({b for b in items if b is not None})) or "empty"
    if isinstance(value, tvm.tirx.IntImm):
        return _bucket(int(value))
    return None


def _dtype_family(dtype: str) -> str:
    return next((family for family in ("bfloat", "float", "uint", "int", "bool") if dtype.startswith(family)), dtype)


def _needs_facts(program: Program) -> bool:
    return program.symbolic or any(p.pack for _, p in program.params) or \
        any(BY_NAME[n.op].takes_tuples or BY_NAME[n.op].emit_in for n in program.nodes)


def _type(info):
    """The Relax type of a value's facts (a tensor or a nested tuple)."""
    if isinstance(info, TupleInfo):
        return relax.TupleType([_type(item) for item in info.items])
    return relax.TensorType(info.shape, info.dtype)


def _tuple_param_type(program: Program, entry, symbols: dict):
    """A tuple parameter's type: each item typed as ``main`` types a tensor parameter (symbolic
    dims included)."""
    return relax.TupleType([_tuple_param_type(program, e, symbols) if isinstance(e, tuple)
                            else param_type(program.values[e], symbols) for e in entry])


def _bind_leaves(expr, entry, exprs) -> None:
    """Each input of a tuple parameter is read through a TupleGetItem chain (left inline: the
    BlockBuilder binds it where it is used)."""
    for k, item in enumerate(entry):
        getter = relax.TupleGetItem(expr, k)
        if isinstance(item, tuple):
            _bind_leaves(getter, item, exprs)
        else:
            exprs[item] = getter


def _whole_parameter(items: list):
    """The tuple parameter (or item of one) whose every item, in order, ``items`` are (as
    ``_bind_leaves`` reads them), else None: a tuple of them is that parameter itself."""
    if not items or not all(isinstance(e, relax.TupleGetItem) and e.index == k for k, e in enumerate(items)):
        return None
    source = items[0].tuple_value
    if not all(e.tuple_value.same_as(source) for e in items):
        return None
    ty, path = source, []
    while isinstance(ty, relax.TupleGetItem):
        path.append(ty.index)
        ty = ty.tuple_value
    if not isinstance(ty, relax.Var) or not isinstance(ty.ty, relax.TupleType):
        return None
    ty = ty.ty
    for k in reversed(path):
        ty = ty.fields[k]
    return source if len(ty.fields) == len(items) else None


def _outside_dataflow(node: dict) -> bool:
    """Relax binds If, local functions and effects (an impure call) outside dataflow blocks."""
    return node["op"] in ("if", *EFFECTS) or (node["op"] == "call" and node["attrs"].get("local", False))


def _private_functions(bb, nodes, prefix: str) -> dict[str, relax.GlobalVar]:
    """Build the private function of every non-local ``call`` in ``nodes`` (and, first, of those
    inside their bodies and branches), named after where the call sits: f5 for node 5 of main,
    f5_2 for node 2 of f5's body, f5_then_1 for node 1 of the then branch of node 5."""
    functions: dict[str, relax.GlobalVar] = {}
    for i, node in nodes:
        name = f"{prefix}{i}"
        for key in ("body", "then", "else"):
            region = node["attrs"].get(key)
            if isinstance(region, dict):
                functions.update(_private_functions(bb, _region_nodes(node, key), _prefix(name, key)))
        if node["op"] == "call" and not node["attrs"].get("local", False):
            params, exprs = _region_params(node)
            with bb.function(name, params, private=True):
                result = _emit_body(bb, _region_nodes(node, "body"), exprs, node["attrs"]["body"]["outputs"],
                                    functions, _prefix(name, "body"), dataflow=True)
                # BlockBuilder gives structurally equal functions one GlobalVar: a shared helper.
                functions[name] = bb.emit_func_output(result)
    return functions


def _annotate(nodes, infos) -> list[tuple[int, dict]]:
    """``nodes`` with the facts of their operands attached (a function body's parameters are
    typed from them)."""
    return [(i, {**node, "operands": [infos[a] for a in node["args"]]}) for i, node in nodes]


def _prefix(name: str, key: str) -> str:
    """How functions inside region ``key`` of node ``name`` are named."""
    return f"{name}_" if key == "body" else f"{name}_{key}_"


def _region_nodes(node: dict, key: str) -> list[tuple[int, dict]]:
    """The nodes of a region, numbered as the region numbers its values (parameters first)."""
    params = _region_param_infos(node)
    region = node["attrs"][key]
    infos = analyse_region(region, params)
    return _annotate([(len(params) + j, v) for j, v in enumerate(region["values"])], infos)


def _region_param_infos(node: dict) -> list:
    return node["operands"][1:] if node["op"] == "if" else node["operands"]


def _region_params(node: dict):
    """Fresh parameters for a function body, typed as the call's operands."""
    params = [relax.Var(f"p{k}", _type(info)) for k, info in enumerate(_region_param_infos(node))]
    return params, dict(enumerate(params))


def _emit_body(bb, nodes, exprs, outputs, functions, prefix: str, dataflow: bool):
    """Emit ``nodes`` into the current function (or branch) and return its result expression.
    With ``dataflow``, runs of ordinary nodes go into dataflow blocks."""
    segments: list[tuple[bool, list]] = []  # (in a dataflow block?, nodes)
    for i, node in nodes:
        inside = dataflow and not _outside_dataflow(node)
        if not segments or segments[-1][0] != inside:
            segments.append((inside, []))
        segments[-1][1].append((i, node))
    if dataflow and (not segments or not segments[-1][0]):
        segments.append((True, []))  # a function's result leaves through a dataflow block
    segment_of = {i: s for s, (_, seg) in enumerate(segments) for i, _ in seg}
    # A dataflow value leaves its block (R.output) when a later block or the result uses it;
    # the result is built inside the last block when that block is a dataflow block.
    leaving = set()
    for s, (_, seg) in enumerate(segments):
        for i, node in seg:
            leaving.update(a for a in node["args"] if a in segment_of and segment_of[a] != s)
    final = len(segments) - 1
    result_inside = segments[-1][0] if segments else False
    leaving.update(o for o in outputs if not result_inside or segment_of.get(o, final) != final)

    def result_expr():
        outs = [exprs[o] for o in outputs]
        return outs[0] if len(outs) == 1 else relax.Tuple(outs)

    result = None
    for s, (inside, seg) in enumerate(segments):
        casts: dict[int, relax.Expr] = {}  # match_casts bound in this block (DataflowVars stay in it)
        if inside:
            with bb.dataflow():
                for i, node in seg:
                    _emit_node(bb, i, node, exprs, casts, functions, prefix, output=i in leaving)
                if s == final:
                    result = bb.emit_output(result_expr())
        else:
            for i, node in seg:
                _emit_node(bb, i, node, exprs, casts, functions, prefix, output=False)
    if result is None:  # a branch or closure body
        result = result_expr()
        if isinstance(result, relax.Tuple):
            result = bb.emit(result)
    return result


def _emit_node(bb, i: int, node: dict, exprs, casts, functions, prefix: str, output: bool) -> None:
    op, attrs = node["op"], node["attrs"]
    if op == "const":  # constants stay inline (as TVMScript shows them)
        exprs[i] = BY_NAME[op].emit(relax, [], attrs)
        return
    if op == "call":
        operands = _static_operands(bb, node, exprs, casts)
        name = f"{prefix}{i}"
        if attrs.get("local", False):
            callee = bb.emit(_closure(bb, node, functions, _prefix(name, "body")))
        else:
            callee = functions[name]
        expr = relax.Call(callee, operands)
    elif op == "call_tir":
        expr = _kernel_call(bb, attrs, _static_operands(bb, node, exprs, casts))
    elif op == "tuple" and attrs.get("parameter") and _whole_parameter([exprs[a] for a in node["args"]]) is not None:
        exprs[i] = _whole_parameter([exprs[a] for a in node["args"]])  # no binding, as TVM's tests write it
        return
    elif op == "if":
        operands = _static_operands(bb, node, exprs, casts)
        branches = [_branch(bb, node, key, operands[1:], functions, _prefix(f"{prefix}{i}", key))
                    for key in ("then", "else")]
        expr = relax.If(operands[0], *branches)
    else:
        expr = _op_expr(bb, i, node, exprs, casts, f"v{prefix[1:]}{i}")  # v3 in main, v5_2 in f5
    exprs[i] = bb.emit_output(expr) if output else bb.emit(expr)


def _op_expr(bb, i: int, node: dict, exprs, casts, name: str):
    """The expression of a catalogue op. An op whose OpDef is ``symbolic`` takes its operands as
    they are typed (symbolic dims), unless one has an unknown rank or the result would lose its
    shape (a broadcast Relax cannot prove, such as (n, 4) with (3, 4)); every other op gets its
    operands ``match_cast`` to the static shapes the analysis knows they have."""
    op = BY_NAME[node["op"]]
    operands = [exprs[a] for a in node["args"]]
    if op.symbolic and all(getattr(e.ty, "ndim", -1) != -1 for e in operands):
        expr = _make(bb, op, operands, node["attrs"], name)
        if op.emit_in is not None or _is_static(expr.ty) or isinstance(getattr(expr.ty, "shape", None), relax.ShapeExpr) \
                or isinstance(expr.ty, relax.ShapeType):
            return expr
    return _make(bb, op, _static_operands(bb, node, exprs, casts), node["attrs"], name)


def _make(bb, op, operands: list, attrs: dict, name: str):
    if op.emit_in is not None:  # it binds values of its own (a match_cast)
        return op.emit_in(bb, relax, operands, attrs, name)
    if op.var_operands:
        operands = [e if isinstance(e, relax.Var) else bb.emit(e) for e in operands]
    return bb.normalize(op.emit(relax, operands, attrs))


def _static_operands(bb, node: dict, exprs, casts) -> list:
    """The operands of ``node``, each tensor not statically typed ``match_cast`` to the shape the
    analysis knows it has (once per value and block)."""
    operands = []
    for a, info in zip(node["args"], node["operands"]):
        expr = exprs[a]
        if isinstance(info, ValueInfo) and not _is_static(expr.ty) and not isinstance(expr.ty, tvm.ir.PrimType) \
                and not info.shape_value:
            if a not in casts:
                casts[a] = bb.match_cast(expr, relax.TensorType(info.shape, info.dtype))
            expr = casts[a]
        operands.append(expr)
    return operands


def _kernel_call(bb, attrs: dict, operands: list) -> relax.Call:
    """An opaque kernel (passfuzz/ir/catalogue/kernels.py): its PrimFunc parsed back from its
    TVMScript and added to the module (once: BlockBuilder gives an equal function one GlobalVar),
    then called as the imported module called it."""
    kernel = bb.add_func(parse_kernel(attrs["kernel"], attrs["name"]), attrs["name"])
    outputs = [relax.TensorType(shape, dtype) for shape, dtype in attrs["outputs"]]
    operands = list(operands)
    for k, size in sorted(attrs.get("sizes", ())):  # a size the kernel takes as a scalar, written as a literal
        operands.insert(k, tvm.tirx.IntImm("int64", size))
    if attrs.get("inplace"):
        return relax.call_tir_inplace(kernel, relax.Tuple(operands), list(attrs["inplace"]),
                                      outputs if attrs["tuple"] else outputs[0])
    return relax.call_tir(kernel, relax.Tuple(operands), outputs if attrs["tuple"] else outputs[0])


@functools.cache
def parse_kernel(text: str, name: str) -> tvm.tirx.PrimFunc:
    """The PrimFunc ``name`` of a kernel's TVMScript (an IRModule holding it)."""
    return tvm.script.from_source(text)[name]


def _closure(bb, node, functions, prefix: str) -> relax.Function:
    """A local function: its body in one binding block (LambdaLift lifts it before compiling)."""
    params, exprs = _region_params(node)
    body = node["attrs"]["body"]
    bb._begin_binding_block()
    result = _emit_body(bb, _region_nodes(node, "body"), exprs, body["outputs"], functions, prefix, dataflow=False)
    block = bb._end_block()
    returns = analyse_region(body, _region_param_infos(node))[body["outputs"][0]]
    return relax.Function(params, relax.SeqExpr([block], result), _type(returns))


def _branch(bb, node, key: str, operands, functions, prefix: str) -> relax.SeqExpr:
    exprs = dict(enumerate(operands))
    bb._begin_binding_block()
    result = _emit_body(bb, _region_nodes(node, key), exprs, node["attrs"][key]["outputs"], functions, prefix,
                        dataflow=False)
    block = bb._end_block()
    return relax.SeqExpr([block], result)


def param_type(param: Param, symbols: dict):
    """How ``main`` types a tensor parameter: static, with symbolic dims, or of unknown rank; an
    R.Prim scalar (``Param.prim``) as R.Prim of its dtype; an R.Shape value (``Param.shape_value``) as
    R.Shape(ndim=k)."""
    if param.prim:
        return tvm.ir.PrimType(param.dtype)
    if param.shape_value:
        return relax.ShapeType(ndim=-1 if param.unknown_rank else param.shape[0])
    if param.unknown_rank:
        return relax.TensorType(dtype=param.dtype, ndim=-1)
    if param.dims:
        # an expression dim computed on the variables themselves is their TIR expression
        return relax.TensorType([dim_value(n, symbols) if n else d for n, d in zip(param.dims, param.shape)],
                                param.dtype)
    return relax.TensorType(param.shape, param.dtype)


def _is_static(ty) -> bool:
    shape = getattr(ty, "shape", None)
    return isinstance(ty, relax.TensorType) and isinstance(shape, relax.ShapeExpr) and \
        all(isinstance(d, tvm.tirx.IntImm) for d in shape.values)
