"""The oldest Python pyproject.toml admits runs passfuzz: no module names a builtin newer than it
without importing a stand-in (the exception groups Hypothesis raises are builtins from 3.11 on and
come from the ``exceptiongroup`` backport before)."""

import ast
import builtins
import re

from .conftest import ROOT

# builtins by the Python version that introduced them (what passfuzz could plausibly reach for)
NEWER_BUILTINS = {"BaseExceptionGroup": (3, 11), "ExceptionGroup": (3, 11), "aiter": (3, 10), "anext": (3, 10),
                  "EncodingWarning": (3, 10)}


def oldest_python() -> tuple[int, int]:
    text = (ROOT / "pyproject.toml").read_text()
    major, minor = re.search(r'requires-python = ">=(\d+)\.(\d+)"', text).groups()
    return int(major), int(minor)


def bound_names(tree) -> set[str]:
    """Names a module binds anywhere: imports, assignments, definitions."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
    return bound


def test_no_module_relies_on_a_builtin_newer_than_the_oldest_python():
    oldest = oldest_python()
    too_new = {name for name, since in NEWER_BUILTINS.items() if since > oldest and hasattr(builtins, name)}
    found = []
    for path in sorted([*(ROOT / "passfuzz").rglob("*.py"), *(ROOT / "strategies").rglob("*.py")]):
        tree = ast.parse(path.read_text())
        bound = bound_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in too_new and node.id not in bound:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} uses {node.id}, a builtin only from "
                             f"Python {'.'.join(map(str, NEWER_BUILTINS[node.id]))}")
    assert not found, "\n".join(found)
