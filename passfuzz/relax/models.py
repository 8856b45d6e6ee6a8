"""Real models as seeds: an ONNX model through TVM's own frontend (``tvm.relax.frontend.onnx``),
written out as a TVMScript file that ``--seeds`` and ``passfuzz reduce`` read like any other.

The weights stay parameters of ``main`` (``keep_params_in_input``, so ``num_input`` marks them):
their values are drawn like every other argument, and the script needs no metadata section,
which a TVMScript file cannot carry. ``onnx`` is an optional dependency (``pip install
".[onnx]"``).
"""

from __future__ import annotations

from pathlib import Path

import tvm
import tvm_ffi
from tvm import relax


class ModelError(ValueError):
    """A model that cannot be read or converted; the message is one line."""


def import_onnx(path: Path) -> tvm.IRModule:
    """The Relax module TVM's ONNX frontend makes of the model at ``path``, weights as parameters."""
    try:
        import onnx
    except ImportError:
        raise ModelError('reading ONNX models needs the onnx package: pip install ".[onnx]"') from None
    from tvm.relax.frontend.onnx import from_onnx

    try:
        model = onnx.load(str(path))
    except Exception as exc:  # noqa: BLE001 - any unreadable file, told in one line
        raise ModelError(f"{path}: not an ONNX model: {_first_line(exc)}") from None
    try:
        mod = from_onnx(model, keep_params_in_input=True)
    except Exception as exc:  # noqa: BLE001 - the frontend's own refusal, told in one line
        raise ModelError(f"{path}: TVM's ONNX frontend fails: {type(exc).__name__}: {_first_line(exc)}") from None
    # The frontend records the weights' values in a "params" attribute, which only a metadata
    # section can print; the values are drawn as arguments instead.
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function) and func.attrs is not None and "params" in func.attrs:
            mod[gv] = func.without_attr("params")
    return mod


def seed_source(mod: tvm.IRModule, origin: Path) -> str:
    """A Python file defining ``mod`` as TVMScript, checked to parse back to the same module."""
    script = "\n".join(line for line in mod.script().splitlines() if not line.startswith("# from tvm.script"))
    text = (f'"""A seed module: {origin.name} through tvm.relax.frontend.onnx (TVM {tvm.__version__}),\n'
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
