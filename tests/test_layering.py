"""ARCHITECTURE.md's layering rule, held against the code: each layer of its list imports only
the layers below it (imports inside functions count too: a lazy import is a dependency all the
same), and every module of passfuzz/ and strategies/ belongs to a layer."""

import ast
import re

from .conftest import ROOT

SOURCES = ("passfuzz", "strategies")


def layers() -> list[str]:
    """The layers, top first, as ARCHITECTURE.md's first code block lists them: a module
    (passfuzz/engine.py) or a folder (passfuzz/cli/)."""
    block = (ROOT / "ARCHITECTURE.md").read_text().split("```")[1]
    return [m.group(1) for m in re.finditer(r"^((?:passfuzz|strategies)/\S*)", block, re.M)]


def layer_of(path: str, names: list[str]) -> int | None:
    """The index of the layer holding ``path`` (relative to the root): its own line, else the
    deepest folder that holds it."""
    found = [(len(name), i) for i, name in enumerate(names)
             if path == name or (name.endswith("/") and path.startswith(name))]
    return max(found)[1] if found else None


def source_of(module: str) -> str | None:
    """The file or package folder (relative, a folder ending in /) a dotted name imports from."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        if base.with_suffix(".py").is_file():
            return str(base.with_suffix(".py").relative_to(ROOT))
        if (base / "__init__.py").is_file():
            return f"{base.relative_to(ROOT)}/"
    return None


def imports(path) -> list[tuple[int, str]]:
    """(line, dotted name) of everything a module imports, anywhere in it; ``from X import y``
    gives X.y, which is module y when X is a package."""
    package = str(path.parent.relative_to(ROOT)).split("/")
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def modules() -> list:
    return [path for source in SOURCES for path in sorted((ROOT / source).rglob("*.py"))
            if path.name not in ("__init__.py", "__main__.py") or path.parent.name != "passfuzz"]


def test_every_module_belongs_to_a_layer():
    names = layers()
    assert len(names) > 20, names  # the list was found
    unplaced = [str(p.relative_to(ROOT)) for p in modules() if layer_of(str(p.relative_to(ROOT)), names) is None]
    assert not unplaced, f"list these in ARCHITECTURE.md's layers: {unplaced}"


def test_each_layer_imports_only_the_layers_below_it():
    names = layers()
    upward = set()
    for path in modules():
        here = str(path.relative_to(ROOT))
        mine = layer_of(here, names)
        for line, name in imports(path):
            target = source_of(name)
            theirs = layer_of(target, names) if target else None
            if theirs is not None and theirs < mine:
                upward.add(f"{here}:{line} imports {target} ({names[theirs]} is above {names[mine]})")
    assert not upward, "\n".join(sorted(upward))


def test_no_module_imports_another_ones_private_names():
    private = [f"{path.relative_to(ROOT)}:{line} imports {name}" for path in modules()
               for line, name in imports(path)
               if name.rsplit(".", 1)[-1].startswith("_") and not name.rsplit(".", 1)[-1].startswith("__")
               and source_of(name.rsplit(".", 1)[0]) not in (None, str(path.relative_to(ROOT)))]
    assert not private, "\n".join(private)
