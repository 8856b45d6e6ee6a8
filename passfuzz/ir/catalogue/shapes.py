"""Shape programs: a tensor's shape and size as values, and reshaping to a shape known only at run
time.

The shape of every value is statically known to passfuzz (it works on the drawn arguments'
shapes), so these ops have exact static rules; what makes them interesting to passes is how the
module is typed. On a parameter typed with symbolic dims, ``shape_of`` reads a shape (``size`` a
product of dims) that only the call fixes, and ``reshape_runtime``'s target shape goes through a
tensor and back (``shape_of``, ``shape_to_tensor``, ``tensor_to_shape``, ``match_cast`` to fresh
shape variables), so its result is typed with variables no parameter defines. R.Shape values
themselves (``shape_value`` and its kin below) are imported only.

``reshape_runtime`` binds values of its own (the ``match_cast`` that defines the variables), so
it is emitted through ``emit_in``, which gets the BlockBuilder; its ``emit`` is never used.
"""

from __future__ import annotations

import numpy as np

from .base import DTYPES, INT_RANGE, Chooser, OpDef, Sketch, ValueInfo, checked, operand, pick, require


def _shape_of_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and not attrs, "shape_of takes one operand and no attributes")
    (x,) = args
    require(x.rank >= 1, "shape_of of a scalar is an empty tensor")
    return checked((x.rank,), "int64", min(x.shape), max(x.shape), True)


def _shape_of_propose(sketch: Sketch, choose: Chooser) -> None:
    sketch.add("shape_of", [pick(sketch, choose, lambda info: info.rank >= 1)])


SHAPE_OF = OpDef(
    "shape_of", _shape_of_infer,
    lambda R, args, at: R.op.shape_to_tensor(R.op.shape_of(args[0])),
    lambda args, at: np.array(args[0].shape, dtype="int64"),
    _shape_of_propose, lambda info: info.rank >= 1,
    notes="R.shape_to_tensor(R.shape_of(x)): the shape as an int64 tensor",
    symbolic=True)


# -- R.Shape values -------------------------------------------------------------------------------
# What TVM's tests write with an R.Shape in between: ``R.shape_of(x)`` returned as it is,
# ``R.shape_to_tensor(s)`` of an R.Shape parameter, ``R.tensor_to_shape(t)``. Proposed only to teach
# the importer these forms (the drawn ``shape_of`` above is the pair of the first two): an R.Shape
# value is read by these ops alone (``takes_shapes``) and stays in main (graph and structure check it).


def _shape_value_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and not attrs, "shape_value takes one operand and no attributes")
    (x,) = args
    require(not x.shape_value and x.rank >= 1, "shape_value reads a tensor of rank >= 1")
    return ValueInfo((x.rank,), "int64", min(x.shape), max(x.shape), True, shape_value=True)


def _shape_value_propose(sketch: Sketch, choose: Chooser) -> None:
    sketch.add("shape_value", [pick(sketch, choose, lambda info: info.rank >= 1)])


SHAPE_VALUE = OpDef(
    "shape_value", _shape_value_infer, lambda R, args, at: R.op.shape_of(args[0]),
    lambda args, at: np.array(args[0].shape, dtype="int64"),
    _shape_value_propose, lambda info: info.rank >= 1,
    notes="R.shape_of(x): the shape as an R.Shape value (not drawn; see catalogue/shapes.py)",
    symbolic=True, drawn=False)


def _shape_to_tensor_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and not attrs, "shape_to_tensor takes one operand and no attributes")
    (s,) = args
    require(s.shape_value, "shape_to_tensor reads an R.Shape value")
    return ValueInfo(s.shape, "int64", s.lo, s.hi, True)


def _shape_to_tensor_propose(sketch: Sketch, choose: Chooser) -> None:
    """An R.Shape value of the sketch (candidates offers none), or one of a tensor's."""
    shapes = [i for i, info in enumerate(sketch.infos) if isinstance(info, ValueInfo) and info.shape_value]
    if not shapes:
        shapes = [sketch.add("shape_value", [pick(sketch, choose, lambda info: info.rank >= 1)])]
    sketch.add("shape_to_tensor", [choose.choice(shapes)])


SHAPE_TO_TENSOR = OpDef(
    "shape_to_tensor", _shape_to_tensor_infer, lambda R, args, at: R.op.shape_to_tensor(args[0]),
    lambda args, at: np.asarray(args[0], dtype="int64"),
    _shape_to_tensor_propose, lambda info: info.rank >= 1,  # a tensor whose shape it reads
    notes="R.shape_to_tensor(s) of an R.Shape value (not drawn; see catalogue/shapes.py)",
    symbolic=True, takes_shapes=True, drawn=False)


def _tensor_to_shape_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and not attrs, "tensor_to_shape takes one operand and no attributes")
    (t,) = args
    require(t.rank == 1 and t.dtype == "int64" and not t.shape_value, "tensor_to_shape reads a 1-d int64 tensor")
    require(t.bounded and t.lo >= 0, "tensor_to_shape's sizes must be >= 0")
    return ValueInfo(t.shape, "int64", t.lo, t.hi, True, shape_value=True)


def _tensor_to_shape_propose(sketch: Sketch, choose: Chooser) -> None:
    sketch.add("tensor_to_shape", [operand(sketch, choose, [(choose.integer(1, 4),)], "int64", 0, 8)])


TENSOR_TO_SHAPE = OpDef(
    "tensor_to_shape", _tensor_to_shape_infer, lambda R, args, at: R.op.tensor_to_shape(args[0]),
    lambda args, at: np.asarray(args[0], dtype="int64"),
    _tensor_to_shape_propose, lambda info: info.rank == 1 and info.dtype == "int64",
    notes="R.tensor_to_shape(t): a 1-d int64 tensor of sizes >= 0 as an R.Shape value (not drawn; see "
          "catalogue/shapes.py)",
    symbolic=True, drawn=False)


def _shape_tensor_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(not args and set(attrs) == {"shape"}, "shape_tensor takes no operand and a shape")
    shape = attrs["shape"]
    require(isinstance(shape, list) and shape and
            all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape),
            "shape_tensor's shape is a non-empty list of sizes")
    return checked((len(shape),), "int64", min(shape), max(shape), True)


def _shape_tensor_propose(sketch: Sketch, choose: Chooser) -> None:
    like = sketch.infos[pick(sketch, choose, lambda info: info.rank >= 1)]
    sketch.add("shape_tensor", [], {"shape": list(like.shape)})


SHAPE_TENSOR = OpDef(
    "shape_tensor", _shape_tensor_infer,
    lambda R, args, at: R.op.shape_to_tensor(R.ShapeExpr(at["shape"])),
    lambda args, at: np.array(at["shape"], dtype="int64"),
    _shape_tensor_propose, lambda info: info.rank >= 1,
    notes="R.shape_to_tensor(R.shape([...])): a literal shape as an int64 tensor (FoldConstant folds it); "
          "drawn with the shape of an existing value")


def _size_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and not attrs, "size takes one operand and no attributes")
    (x,) = args
    return checked((), "int64", x.size, x.size, True)


def _size_propose(sketch: Sketch, choose: Chooser) -> None:
    sketch.add("size", [pick(sketch, choose, lambda info: True)])


SIZE = OpDef(
    "size", _size_infer, lambda R, args, at: R.op.size(args[0]),
    lambda args, at: np.array(args[0].size, dtype="int64"),
    _size_propose, lambda info: True,
    notes="R.size(x): the element count as an int64 scalar tensor (a product of symbolic dims on a "
          "symbolically typed operand)",
    symbolic=True)


def _reshape_runtime_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 2 and not attrs, "reshape_runtime takes the data and a shape donor, no attributes")
    x, like = args
    require(x.size == like.size, f"cannot reshape {x.shape} to {like.shape}")
    return ValueInfo(like.shape, x.dtype, x.lo, x.hi, x.exact)


def _reshape_runtime_emit_in(bb, R, args, attrs, name: str):
    """reshape(x, (v...)) where (v...) are fresh variables matched to tensor_to_shape of the
    donor's shape tensor: the target shape is a run-time value."""
    from tvm import tirx

    x, like = args
    shape = bb.emit(R.op.tensor_to_shape(bb.emit(R.op.shape_to_tensor(R.op.shape_of(like)))))
    dims = [tirx.Var(f"{name}_{k}", "int64") for k in range(len(like.ty.shape.values))]
    bb.match_cast(shape, R.ShapeType(dims))
    return R.op.reshape(x, R.ShapeExpr(dims))


def _not_emitted_alone(R, args, attrs):
    raise NotImplementedError("reshape_runtime binds a match_cast: relax_build emits it through emit_in")


def _factorizations(size: int) -> list[tuple[int, ...]]:
    """Shapes of rank 1 to 3 with ``size`` elements, dims at most 8."""
    divisors = [d for d in range(1, min(size, 8) + 1) if size % d == 0]
    shapes = [(size,)] if size <= 64 else []
    shapes += [(a, size // a) for a in divisors if size // a <= 8]
    shapes += [(a, b, size // (a * b)) for a in divisors for b in divisors
               if (size // a) % b == 0 and size // (a * b) <= 8]
    return list(dict.fromkeys(shapes))


def _reshape_runtime_propose(sketch: Sketch, choose: Chooser) -> None:
    x = pick(sketch, choose, _reshapable)
    info = sketch.infos[x]
    shapes = _factorizations(info.size)
    dtype = choose.choice([info.dtype] + [d for d in DTYPES if d != info.dtype])
    like = operand(sketch, choose, shapes, dtype, 0, 1)
    sketch.add("reshape_runtime", [x, like])


def _reshapable(info: ValueInfo) -> bool:
    return 1 <= info.size <= 64 and bool(_factorizations(info.size))


RESHAPE_RUNTIME = OpDef(
    "reshape_runtime", _reshape_runtime_infer, _not_emitted_alone,
    lambda args, at: args[0].reshape(args[1].shape),
    _reshape_runtime_propose, _reshapable,
    notes="R.reshape(x, R.shape([v...])) after R.match_cast(R.tensor_to_shape(R.shape_to_tensor("
          "R.shape_of(like))), R.Shape([v...])): the target shape is a run-time value",
    symbolic=True, emit_in=_reshape_runtime_emit_in)


# -- view -------------------------------------------------------------------------------------

# Integer dtypes a view may reinterpret another dtype's bytes as: those whose INT_RANGE is every
# value the dtype holds (int64's stops short of it, and float or bool bits may be NaN or not 0/1).
REINTERPRETABLE = ("int8", "uint8", "int32")
_BYTES = {"bool": 1, "bfloat16": 2}


def _itemsize(dtype: str) -> int:
    return _BYTES.get(dtype) or np.dtype(dtype).itemsize


def _view_infer(args: list[ValueInfo], attrs: dict) -> ValueInfo:
    require(len(args) == 1 and set(attrs) <= {"shape", "dtype", "offset"}, "view takes one operand")
    (x,) = args
    dtype = attrs.get("dtype") or x.dtype
    shape = tuple(attrs["shape"]) if attrs.get("shape") is not None else x.shape
    offset = attrs.get("offset") or 0
    require(dtype in DTYPES and all(isinstance(d, int) and d >= 1 for d in shape), "a view's dtype and shape")
    require(isinstance(offset, int) and offset >= 0 and offset % _itemsize(dtype) == 0,
            f"byte offset {offset}: a multiple of {dtype}'s size")
    require(attrs.get("shape") is not None or _itemsize(dtype) <= _itemsize(x.dtype),
            "a view to a wider dtype needs a shape")
    require(offset + int(np.prod(shape)) * _itemsize(dtype) <= x.size * _itemsize(x.dtype),
            "the view reaches past its operand's bytes")
    if dtype == x.dtype:
        return ValueInfo(shape, dtype, x.lo, x.hi, x.exact)
    require(dtype in REINTERPRETABLE, f"{x.dtype}'s bytes read as {dtype} may be any value {dtype} cannot hold")
    return ValueInfo(shape, dtype, *INT_RANGE[dtype], True)


def _view_reference(args: list, attrs: dict) -> np.ndarray:
    (x,) = args
    dtype = np.dtype(attrs["dtype"]) if attrs.get("dtype") else x.dtype
    shape = tuple(attrs["shape"]) if attrs.get("shape") is not None else x.shape
    data = np.ascontiguousarray(x).tobytes()
    return np.frombuffer(data, dtype, int(np.prod(shape)), attrs.get("offset") or 0).reshape(shape).copy()


def _view_emit(R, args, attrs):
    return R.op.memory.view(args[0], shape=attrs.get("shape"), dtype=attrs.get("dtype"),
                            relative_byte_offset=attrs.get("offset"))


VIEW = OpDef(
    "view", _view_infer, _view_emit, _view_reference, None, lambda info: True,
    notes="R.memory.view(x, shape, dtype, relative_byte_offset): x's bytes read with another shape, from "
          "an offset, or as an integer dtype; imported only (the importer reads it; LowerRuntimeBuiltin "
          "lowers it in the build)")

OPS = [SHAPE_OF, SHAPE_TENSOR, SIZE, RESHAPE_RUNTIME, SHAPE_VALUE, SHAPE_TO_TENSOR, TENSOR_TO_SHAPE, VIEW]
