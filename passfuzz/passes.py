"""Naming passes on the command line: ``FoldConstant`` or ``package.module:attr``."""

from __future__ import annotations

import difflib
import importlib
import os
import sys
from dataclasses import dataclass

import tvm
from tvm import relax


class PassSpecError(ValueError):
    """A pass name that cannot be resolved; the message is one line for the user."""


@dataclass(frozen=True)
class PassSpec:
    """A pass as the user named it. ``instantiate`` gives a fresh Pass each time, because a pass
    may keep state between runs."""

    text: str

    @property
    def is_builtin(self) -> bool:
        return ":" not in self.text

    def instantiate(self) -> tvm.transform.Pass:
        if self.is_builtin:
            return getattr(relax.transform, self.text)()
        module_name, attr = self.text.split(":", 1)
        obj = getattr(importlib.import_module(module_name), attr)
        return obj if isinstance(obj, tvm.transform.Pass) else obj()

    def python_expr(self) -> str:
        """How the reproducer script builds this pass."""
        if self.is_builtin:
            return f"relax.transform.{self.text}()"
        module_name, attr = self.text.split(":", 1)
        return f"_custom_pass({module_name!r}, {attr!r})"


def builtin_pass_names() -> list[str]:
    return sorted(name for name in dir(relax.transform)
                  if name[:1].isupper() and callable(getattr(relax.transform, name))
                  and name not in ("FunctionPass", "DataflowBlockPass", "FusionPattern", "PatternCheckContext"))


def resolve(text: str) -> PassSpec:
    """Check that ``text`` names a pass that can be built; raise PassSpecError otherwise."""
    text = text.strip()
    if not text:
        raise PassSpecError("empty pass name in --passes")
    spec = PassSpec(text)
    if spec.is_builtin:
        if text not in builtin_pass_names():
            close = difflib.get_close_matches(text, builtin_pass_names(), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else "; `module.path:attr` names your own pass"
            raise PassSpecError(f"unknown pass {text!r} in tvm.relax.transform{hint}")
    else:
        module_name, _, attr = text.partition(":")
        if os.getcwd() not in sys.path:  # as `python -m` does, so a pass next to the user is found
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # noqa: BLE001 - any import failure is the user's to fix
            raise PassSpecError(f"cannot import {module_name!r} for pass {text!r}: {type(exc).__name__}: {exc}")
        if not hasattr(module, attr):
            raise PassSpecError(f"module {module_name!r} has no attribute {attr!r}")
    try:
        made = spec.instantiate()
    except Exception as exc:  # noqa: BLE001
        raise PassSpecError(f"cannot construct pass {text!r} without arguments: {type(exc).__name__}: {exc}")
    if not isinstance(made, tvm.transform.Pass):
        raise PassSpecError(f"{text!r} is neither a tvm.transform.Pass nor a callable returning one")
    return spec


def resolve_list(text: str) -> list[PassSpec]:
    return [resolve(part) for part in text.split(",")]
