"""Opaque kernels: ``R.call_tir`` of a PrimFunc the imported module holds, and
``R.call_pure_packed`` of a function TVM registers.

TVM's own tests write most of their modules as calls of hand-written TIR kernels. The importer
keeps such a call as one node whose attributes carry the kernel as TVMScript text, so a Program
stays plain data (JSON, a reproducer's literal); ``passfuzz.relax.build`` parses it back and calls
it. passfuzz does not know what a kernel computes:

- its numpy reference is NO_REFERENCE, so the reference oracle skips every output computed from
  it and the original is compared with the optimized module only;
- its float results are unbounded (``ValueInfo.bounded``): a nominal [-1, 1] that an op needing
  its operand's range (an index, a divisor, a log) refuses, so nothing that needs one is drawn or
  mutated onto it; its integer results may be anything their dtype holds;
- its operands must have exactly the types it was imported with (``inputs``), so a mutation that
  retypes one, or moves another value into its place, is refused; an integer operand lies in
  [0, 1], since a kernel may index or divide with it (a zero divisor stays possible: a kernel that
  divides by an integer input is not one passfuzz can keep safe);
- it is never drawn (no ``propose``): only imports hold it.

A ``call_pure_packed`` node is the same but for its callee, a global function by ``name``
(``vm.builtin.copy``) that the importer found registered before any test file ran, so that every
process passfuzz builds the Program in has it; the call declares itself pure, so it sits in
dataflow blocks and passes may move or drop it. Attributes: ``name``, ``inputs``, ``outputs`` and
``tuple``, as below.

Attributes of ``call_tir``: ``name`` (the PrimFunc's), ``kernel`` (an IRModule holding only it, as TVMScript),
``inputs`` and ``outputs`` (``[shape, dtype]`` each), ``tuple`` (the call returns a tuple of its
outputs, even of one), ``prims`` when the kernel takes scalars (the positions of the operands
that are R.Prim parameters, of shape () in ``inputs``; ``graph.check_prims`` holds those operands
to be R.Prim parameters, and only those), ``sizes`` when the kernel takes a scalar its buffers'
shapes name, or that it only stores (``[position, size]`` pairs: relax_build passes it the size as an int64 literal at that
position of the call, between the operands; TVM checks the buffers against it, so it is no value
and has no range of its own), and ``inplace`` for an ``R.call_tir_inplace`` (per
output, the position of the operand it overwrites, or -1 for a fresh tensor).

An in-place kernel writes its result into an operand. Relax types the call as pure, and its
docstring asks that no operand it overwrites be aliased or live after it, which passes rely on
without checking (CSE may merge an overwritten value with an equal one read later; FoldConstant
may make one a constant, which a second call of the same VM then finds overwritten).
``graph.check_inplace`` keeps it where nothing can: in main, overwriting only inputs of main
(not weights, which BindParams may make constants) that nothing else reads and that are no
output; the harness gives each call of main fresh argument tensors.
"""

from __future__ import annotations

from .base import (
    DTYPES,
    INT_RANGE,
    OpDef,
    TupleInfo,
    ValueInfo,
    is_float,
    is_int,
    require,
)

NOMINAL = (-1.0, 1.0)  # an unbounded float's lo and hi (see ValueInfo.bounded)
INTEGER_OPERAND_RANGE = (0, 1)  # where an integer operand lies (see above)


def _result(shape, dtype: str) -> ValueInfo:
    if is_float(dtype):
        return ValueInfo(tuple(shape), dtype, *NOMINAL, exact=False, bounded=False)
    return ValueInfo(tuple(shape), dtype, *(INT_RANGE[dtype] if is_int(dtype) else (0, 1)), True)


def _call_tir_infer(args: list, attrs: dict):
    require(isinstance(attrs["kernel"], str), "a kernel is TVMScript")
    inplace = attrs.get("inplace")
    if inplace is not None:  # R.call_tir_inplace: output k overwrites operand inplace[k] (-1: a fresh tensor)
        inputs, outputs = attrs["inputs"], attrs["outputs"]
        require(isinstance(inplace, list), "inplace: a list")
        written = [j for j in inplace if j != -1]
        require(len(inplace) == len(outputs) and written
                and all(isinstance(j, int) and -1 <= j < len(inputs) for j in inplace)
                and len(set(written)) == len(written) and not set(written) & set(attrs.get("prims", ())),
                "inplace: per output, the tensor operand it overwrites or -1, at least one, each once")
        require(not (attrs["tuple"] and len(outputs) == 1), "an in-place kernel of one output returns it alone")
        for k, j in enumerate(inplace):
            require(j == -1 or list(inputs[j]) == list(outputs[k]),
                    f"output {k} overwrites operand {j}, of another type")
    sizes = attrs.get("sizes", [])
    require(isinstance(sizes, list) and not (sizes and inplace is not None)
            and all(isinstance(s, list) and len(s) == 2 and all(isinstance(n, int) and n >= 0 for n in s)
                    for s in sizes) and len({k for k, _ in sizes}) == len(sizes)
            and all(k <= len(attrs["inputs"]) + j for j, (k, _) in enumerate(sorted(sizes))),
            "sizes: [position among the kernel's operands, size] pairs, of a kernel not in place")
    return _opaque_infer(args, attrs)


def inplace_operands(attrs: dict) -> list[int]:
    """The positions of the operands an in-place kernel (``inplace``) overwrites."""
    return [j for j in attrs.get("inplace") or () if j != -1]


def _opaque_infer(args: list, attrs: dict):
    """An opaque call's rule: operands of exactly the types it was imported with, results of
    the types it declared, unbounded (see the module docstring)."""
    inputs, outputs = attrs["inputs"], attrs["outputs"]
    require(isinstance(attrs["name"], str), "an opaque call names its function")
    require(len(args) == len(inputs), f"the kernel takes {len(inputs)} operands, not {len(args)}")
    prims = attrs.get("prims", [])
    require(isinstance(prims, list) and all(isinstance(k, int) and 0 <= k < len(inputs) and not inputs[k][0]
                                            for k in prims), "prims: positions of scalar operands")
    for k, (arg, (shape, dtype)) in enumerate(zip(args, inputs)):
        require(arg.shape == tuple(shape) and arg.dtype == dtype,
                f"operand {k} is {arg.dtype}{list(arg.shape)}, the kernel takes {dtype}{list(shape)}")
        low, high = INTEGER_OPERAND_RANGE
        require(not is_int(dtype) or (arg.lo >= low and arg.hi <= high),
                f"integer operand {k} in [{arg.lo:g}, {arg.hi:g}], not inside [{low}, {high}]")
    require(len(outputs) >= 1 and all(dtype in DTYPES for _, dtype in outputs), "outputs of passfuzz's dtypes")
    results = tuple(_result(shape, dtype) for shape, dtype in outputs)
    return TupleInfo(results) if attrs["tuple"] else results[0]


CALL_TIR = OpDef(
    "call_tir", _call_tir_infer, None, None, None, lambda info: False,
    notes="an imported module's TIR kernel (R.call_tir, or R.call_tir_inplace with inplace), kept opaque: "
          "no numpy reference, its floats unbounded")


def _call_pure_packed_emit(R, args, attrs):
    outputs = [R.TensorType(shape, dtype) for shape, dtype in attrs["outputs"]]
    return R.op.call_pure_packed(attrs["name"], *args, ty_args=R.TupleType(outputs) if attrs["tuple"] else outputs[0])


CALL_PURE_PACKED = OpDef(
    "call_pure_packed", _opaque_infer, _call_pure_packed_emit, None, None, lambda info: False,
    notes="R.call_pure_packed of one of TVM's global functions, kept opaque as a kernel is: no numpy "
          "reference, its floats unbounded")

OPS = [CALL_TIR, CALL_PURE_PACKED]
