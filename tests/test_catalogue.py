"""The op catalogue: its type and range rules reject what would be invalid or undefined."""

import numpy as np
import pytest

from passfuzz.ir.catalogue import BY_NAME, OPS
from passfuzz.ir.catalogue.base import OpError
from passfuzz.ir.program import numpy_dtype

from .catalogue_support import F


def test_each_op_defined_once_with_all_parts():
    names = [op.name for op in OPS]
    assert len(names) == len(set(names)) >= 33
    for op in OPS:
        assert callable(op.infer)
        # relax_build makes functions, branches and opaque kernels; an opaque call has no reference
        assert callable(op.reference) or op.name in ("call_tir", "call_pure_packed")
        assert callable(op.emit) or op.name in ("call", "if", "call_tir")


def test_take_rejects_indices_that_may_leave_the_axis():
    take = BY_NAME["take"].infer
    assert take([F((3, 4)), F((2,), 0, 3, "int64")], {"axis": 1}).shape == (3, 2)
    with pytest.raises(OpError, match="may leave"):
        take([F((3, 4)), F((2,), 0, 4, "int64")], {"axis": 1})
    with pytest.raises(OpError, match="may leave"):
        take([F((3, 4)), F((2,), -1, 2, "int64")], {"axis": 1})
    with pytest.raises(OpError):
        take([F((3, 4)), F((2,), 0, 1, "float32")], {"axis": 1})


def test_integer_divisor_must_exclude_zero():
    divide = BY_NAME["divide"].infer
    divide([F((2,), -8, 8, "int32"), F((2,), 1, 8, "int32")], {})
    with pytest.raises(OpError, match="divisor"):
        divide([F((2,), -8, 8, "int32"), F((2,), 0, 8, "int32")], {})
    with pytest.raises(OpError, match="divisor"):
        divide([F((2,)), F((2,), -0.25, 4)], {})


def test_integer_overflow_and_float_overflow_are_rejected():
    with pytest.raises(OpError, match="overflow"):
        BY_NAME["multiply"].infer([F((2,), -2**20, 2**20, "int32"), F((2,), -2**20, 2**20, "int32")], {})
    with pytest.raises(OpError, match="overflow"):
        BY_NAME["exp"].infer([F((2,), 0, 100)], {})
    with pytest.raises(OpError, match="overflow"):
        BY_NAME["sum"].infer([F((4096, 16), 0, 8, "float16")], {"axis": None, "keepdims": False})


def test_discrete_results_of_inexact_floats_are_refused():
    inexact = F((2,), exact=False)
    with pytest.raises(OpError, match="inexact"):
        BY_NAME["less"].infer([inexact, F((2,))], {})
    with pytest.raises(OpError, match="inexact"):
        BY_NAME["astype"].infer([inexact], {"dtype": "int64"})
    assert BY_NAME["astype"].infer([F((2,))], {"dtype": "int64"}).hi == 4
    assert not BY_NAME["add"].infer([F((2,)), F((2,))], {}).exact
    assert BY_NAME["maximum"].infer([F((2,)), F((2,))], {}).exact


def test_ranges_propagate():
    approx = lambda v: pytest.approx(v, rel=1e-5)  # noqa: E731 - float bounds carry rounding slack
    total = BY_NAME["sum"].infer([F((3, 4), -1, 2)], {"axis": [1], "keepdims": True})
    assert (total.shape, total.lo, total.hi, total.exact) == ((3, 1), approx(-4), approx(8), False)
    assert BY_NAME["clip"].infer([F((2,), -4, 4)], {"min": 0.0, "max": 1.0}).lo == 0.0
    matmul = BY_NAME["matmul"].infer([F((2, 3), -1, 2), F((5, 3, 4), 0, 3)], {})
    assert matmul.shape == (5, 2, 4) and (matmul.lo, matmul.hi) == (approx(-9), approx(18))
    assert BY_NAME["matmul"].infer([F((2, 3), -1, 2, "int32"), F((3, 4), 0, 3, "int32")], {}).hi == 18


@pytest.mark.parametrize("op, attrs, want", [
    ("cumsum", {"axis": 0, "exclusive": False}, [0.5, 0.75, 1.0]),
    ("cumprod", {"axis": 0, "exclusive": False}, [0.5, 0.125, 0.03125]),
    ("collapse_sum_to", {"shape": [1]}, [1.0]),
])
def test_float_references_keep_bfloat16_fractions(op, attrs, want):
    # a bfloat16 array's numpy kind is not "f": a reference that asks the kind would truncate
    x = np.array([0.5, 0.25, 0.25], dtype=numpy_dtype("bfloat16"))
    out = BY_NAME[op].reference([x], attrs)
    assert out.dtype == x.dtype and out.astype("float64").tolist() == want


def test_every_public_opdef_of_a_family_module_is_in_its_ops():
    """An op defined but left out of its module's OPS is never drawn, imported or documented:
    a silent hole in the catalogue. (A private OpDef, ``_ANY_MEDIAN``, is a building block.)"""
    import ast
    import importlib
    import inspect
    import pkgutil

    import passfuzz.ir.catalogue as catalogue
    from passfuzz.ir.catalogue.base import OpDef

    left_out = []
    for info in pkgutil.iter_modules(catalogue.__path__):
        module = importlib.import_module(f"{catalogue.__name__}.{info.name}")
        imported = {alias.asname or alias.name for node in ast.parse(inspect.getsource(module)).body
                    if isinstance(node, ast.ImportFrom) for alias in node.names}
        defined = {name: value for name, value in vars(module).items()
                   if isinstance(value, OpDef) and not name.startswith("_") and name not in imported}
        drawn = {id(op) for op in getattr(module, "OPS", ())}
        left_out += [f"{info.name}.{name}" for name, op in defined.items() if id(op) not in drawn]
    assert not left_out, f"defined but not in their module's OPS: {left_out}"
