"""Naming passes on the command line.

A pass is ``Name`` or ``Name(arguments)`` where Name is in ``tvm.relax.transform``, or
``package.module:attr`` (a Pass instance, or a callable returning one, which may take arguments
too). Arguments are Python literals; a bare word stands for a string, so
``ToMixedPrecision(out_dtype=float16)`` works as typed in a shell. A list is split on the commas
outside brackets and quotes: ``ConvertLayout({'relax.nn.conv2d': ['NHWC', 'OHWI']}),FoldConstant``.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import os
import sys
from dataclasses import dataclass, field

import numpy as np
import tvm
from tvm import relax

from passfuzz.ir.program import Program

# Passes whose arguments, when none are given, are derived from each program they run on: the
# reproducer shows them in full (np.array literals), so it rebuilds exactly what ran.
PROGRAM_ARGUMENTS = {
    "BindParams": "BindParams('main', {weight name: its argument}): the program's own weights",
    "BindSymbolicVars": "BindSymbolicVars({name: size}): the program's own symbolic variables, "
                        "as the arguments fix them",
}

# The arguments a bare name stands for.
DEFAULT_ARGUMENTS = {"Gradient": "'main'"}

# FuseOpsByPattern takes dataflow patterns, which are no Python literal: a backend's name in their
# place, ``FuseOpsByPattern(tensorrt)``, stands for the patterns TVM registers for it,
# ``get_patterns_with_prefix("tensorrt")``, as its partition functions call them. The registry
# is filled when the backend's module is imported: the prefix, and the module that registers it.
BACKEND_PATTERNS = {
    "tensorrt": "tvm.relax.backend.contrib.tensorrt",
    "nnapi": "tvm.relax.backend.contrib.nnapi",
    "coreml": "tvm.relax.backend.metal.coreml",
    "openclml": "tvm.relax.backend.adreno.clml",
    "cutlass": "tvm.relax.backend.cuda.cutlass",
    "cublas": "tvm.relax.backend.cuda.cublas",
    "cudnn": "tvm.relax.backend.cuda.cudnn",
    "hipblas": "tvm.relax.backend.rocm.hipblas",
}


class PassSpecError(ValueError):
    """A pass that cannot be resolved; the message is one line for the user."""


@dataclass(frozen=True)
class PassSpec:
    """A pass as the user named it. ``instantiate`` gives a fresh Pass each time, because a pass
    may keep state between runs."""

    text: str
    name: str = ""  # "FoldConstant" or "package.module:attr"
    args: tuple = ()
    kwargs: tuple = field(default=())  # ((key, value), ...)

    def __post_init__(self) -> None:
        if not self.name:
            name, args, kwargs = parse_call(self.text)
            object.__setattr__(self, "name", name)
            object.__setattr__(self, "args", args)
            object.__setattr__(self, "kwargs", kwargs)

    @property
    def is_builtin(self) -> bool:
        return ":" not in self.name

    def _target(self):
        if self.is_builtin:
            return getattr(relax.transform, self.name)
        module_name, attr = self.name.split(":", 1)
        return getattr(importlib.import_module(module_name), attr)

    @property
    def backend(self) -> str:
        """The backend whose registered patterns this FuseOpsByPattern takes ('' for any other pass)."""
        if self.is_builtin and self.name == "FuseOpsByPattern" and self.args and isinstance(self.args[0], str):
            return self.args[0]
        return ""

    def instantiate(self) -> tvm.transform.Pass:
        target = self._target()
        if isinstance(target, tvm.transform.Pass):
            return target
        args = self.args
        if self.backend:
            args = (backend_patterns(self.backend), *args[1:])
        return target(*args, **dict(self.kwargs))

    def for_program(self, program: Program) -> "PassSpec":
        """This pass with the arguments derived from ``program`` (PROGRAM_ARGUMENTS) when it
        needs them and none were given; otherwise itself."""
        if not self.is_builtin or self.args or self.kwargs or self.name not in PROGRAM_ARGUMENTS:
            return self
        if self.name == "BindParams":
            return PassSpec(self.text, self.name, ("main", program.weight_values()))
        return PassSpec(self.text, self.name, (program.symbol_values(),))

    def python_expr(self) -> str:
        """How a reproducer script builds this pass (a custom one after ``python_import``)."""
        arguments = ", ".join([_python_literal(a) for a in self.args] +
                              [f"{k}={_python_literal(v)}" for k, v in self.kwargs])
        if self.backend:
            arguments = arguments.replace(repr(self.backend), f'get_patterns_with_prefix("{self.backend}")', 1)
        if self.is_builtin:
            return f"relax.transform.{self.name}({arguments})"
        attr = self.name.split(":", 1)[1]
        return attr if isinstance(self._target(), tvm.transform.Pass) else f"{attr}({arguments})"

    @property
    def python_import(self) -> str:
        """The import a reproducer script needs for this pass ('' for TVM's own)."""
        if self.is_builtin:
            return ""
        module_name, attr = self.name.split(":", 1)
        return f"from {module_name} import {attr}"

    @property
    def tvm_imports(self) -> tuple[str, ...]:
        """The imports of TVM's own modules a reproducer script needs for this pass (() for most)."""
        if not self.backend:
            return ()
        return ("from tvm.relax.backend.pattern_registry import get_patterns_with_prefix",
                f"import {BACKEND_PATTERNS[self.backend]}  # registers the {self.backend} patterns")


def backend_patterns(backend: str) -> list:
    """The patterns TVM registers for ``backend`` (BACKEND_PATTERNS), its module imported first;
    PassSpecError for a backend it has no patterns for."""
    if backend not in BACKEND_PATTERNS:
        raise PassSpecError(f"FuseOpsByPattern({backend}): no backend {backend!r} registers patterns; "
                            f"name one of {', '.join(BACKEND_PATTERNS)}")
    from tvm.relax.backend.pattern_registry import get_patterns_with_prefix

    importlib.import_module(BACKEND_PATTERNS[backend])
    return list(get_patterns_with_prefix(backend))


def _python_literal(value) -> str:
    """Python source for an argument; arrays as exact np.array literals."""
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, dtype={value.dtype.name!r})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_python_literal(k)}: {_python_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        items = ", ".join(_python_literal(v) for v in value) + ("," if isinstance(value, tuple) and len(value) == 1 else "")
        return f"[{items}]" if isinstance(value, list) else f"({items})"
    return repr(value)


def split_list(text: str) -> list[str]:
    """Split on the commas that are outside brackets and quotes."""
    parts, depth, quote, current = [], 0, "", []
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    if quote or depth:
        raise PassSpecError(f"unbalanced brackets or quotes in {text!r}")
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _literal(node: ast.expr):
    if isinstance(node, ast.Name):  # a bare word: ToMixedPrecision(out_dtype=float16)
        return node.id
    return ast.literal_eval(node)


def parse_call(text: str) -> tuple[str, tuple, tuple]:
    text = text.strip()
    if "(" not in text:
        return text, (), ()
    if not text.endswith(")"):
        raise PassSpecError(f"malformed pass {text!r}: arguments must end with ')'")
    name, inner = text[:text.index("(")].strip(), text[text.index("(") + 1:-1]
    try:
        call = ast.parse(f"_({inner})", mode="eval").body
        assert isinstance(call, ast.Call)
        args = tuple(_literal(a) for a in call.args)
        kwargs = tuple((k.arg, _literal(k.value)) for k in call.keywords)
    except (SyntaxError, ValueError, AssertionError) as exc:
        raise PassSpecError(f"malformed arguments in {text!r}: arguments must be Python literals "
                            f"({type(exc).__name__})") from None
    if any(k is None for k, _ in kwargs):
        raise PassSpecError(f"malformed arguments in {text!r}: ** is not supported")
    return name, args, kwargs


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
    if spec.is_builtin and "(" not in text and spec.name in DEFAULT_ARGUMENTS:
        spec = PassSpec(f"{text}({DEFAULT_ARGUMENTS[spec.name]})")
    if spec.is_builtin:
        if spec.name not in builtin_pass_names():
            close = difflib.get_close_matches(spec.name, builtin_pass_names(), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else "; `module.path:attr` names your own pass"
            raise PassSpecError(f"unknown pass {spec.name!r} in tvm.relax.transform{hint}")
    else:
        module_name, _, attr = spec.name.partition(":")
        if os.getcwd() not in sys.path:  # as `python -m` does, so a pass next to the user is found
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # noqa: BLE001 - any import failure is the user's to fix
            raise PassSpecError(f"cannot import {module_name!r} for pass {text!r}: {type(exc).__name__}: {exc}")
        if not hasattr(module, attr):
            raise PassSpecError(f"module {module_name!r} has no attribute {attr!r}")
    try:
        made = spec.for_program(Program((), ())).instantiate()
    except PassSpecError:  # a backend without patterns: its message says so
        raise
    except Exception as exc:  # noqa: BLE001
        how = "with these arguments" if spec.args or spec.kwargs else "without arguments"
        raise PassSpecError(f"cannot construct pass {text!r} {how}: {type(exc).__name__}: "
                            f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}")
    if not isinstance(made, tvm.transform.Pass):
        raise PassSpecError(f"{text!r} is neither a tvm.transform.Pass nor a callable returning one")
    return spec


def resolve_list(text: str) -> list[PassSpec]:
    return [resolve(part) for part in split_list(text)]
