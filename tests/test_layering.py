"""ARCHITECTURE.md's map, held against the code: every module lives in a folder of the map's
table, each folder imports only itself and the folders its row lets it (imports inside functions
count too: a lazy import is a dependency all the same), the portable folder imports nothing but
tvm, numpy and the standard library, and no module reads another one's private names."""

import ast
import re
import sys

from .conftest import ROOT

SOURCES = ("passfuzz", "strategies")
ROW = re.compile(r"^\| `((?:passfuzz|strategies)/[^`]*)` \|(.*)\|(.*)\|\s*$", re.M)


def table() -> dict[str, set[str]]:
    """The map's table: folder (or file) -> the folders it may import."""
    text = (ROOT / "ARCHITECTURE.md").read_text()
    return {m.group(1): set(re.findall(r"`([^`]+/)`", m.group(3))) for m in ROW.finditer(text)}


def home(path: str, rows) -> str | None:
    """The row holding ``path`` (relative to the root): its own, else the deepest folder holding it."""
    found = [name for name in rows if path == name or (name.endswith("/") and path.startswith(name))]
    return max(found, key=len) if found else None


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
            if str(path.relative_to(ROOT)) != "passfuzz/__init__.py"]


def test_the_map_lists_the_folders():
    rows = table()
    assert {"passfuzz/ir/", "passfuzz/portable/", "passfuzz/cli/", "strategies/"} <= set(rows), rows
    folders = {f"{p.parent.relative_to(ROOT)}/" for p in (ROOT / "passfuzz").glob("*/__init__.py")}
    assert folders <= set(rows), f"folders missing from ARCHITECTURE.md's map: {folders - set(rows)}"
    assert all(allowed <= set(rows) for allowed in rows.values()), rows


def test_every_module_lives_in_a_folder_of_the_map():
    rows = table()
    unplaced = [str(p.relative_to(ROOT)) for p in modules() if home(str(p.relative_to(ROOT)), rows) is None]
    assert not unplaced, f"list these in ARCHITECTURE.md's map: {unplaced}"


def test_each_folder_imports_only_what_its_row_allows():
    rows = table()
    against = set()
    for path in modules():
        here = str(path.relative_to(ROOT))
        mine = home(here, rows)
        for line, name in imports(path):
            target = source_of(name)
            if target is None or target == "passfuzz/":  # outside, or the package's __version__
                continue
            theirs = home(target, rows)
            if theirs != mine and theirs not in rows[mine]:
                against.add(f"{here}:{line} imports {target} ({mine} may import {sorted(rows[mine]) or 'nothing'})")
    assert not against, "\n".join(sorted(against))


def test_portable_modules_need_only_tvm_numpy_and_the_standard_library():
    """Reproducer scripts copy these modules' functions: what they import, a script imports."""
    allowed = set(sys.stdlib_module_names) | {"tvm", "numpy", "__future__"}
    outside = [f"{path.relative_to(ROOT)}:{line} imports {name}"
               for path in sorted((ROOT / "passfuzz" / "portable").glob("*.py"))
               for line, name in imports(path)
               if name.split(".")[0] not in allowed and not name.startswith("passfuzz.portable.")]
    assert not outside, "\n".join(outside)


def test_no_module_imports_another_ones_private_names():
    private = [f"{path.relative_to(ROOT)}:{line} imports {name}" for path in modules()
               for line, name in imports(path)
               if name.rsplit(".", 1)[-1].startswith("_") and not name.rsplit(".", 1)[-1].startswith("__")
               and source_of(name.rsplit(".", 1)[0]) not in (None, str(path.relative_to(ROOT)))]
    assert not private, "\n".join(private)


def test_the_distribution_ships_every_folder():
    """``pip install .`` must install every layer folder (a new folder missing from the package
    list would import in a checkout and fail in an installed passfuzz)."""
    import ast as syntax

    from setuptools import find_packages

    text = (ROOT / "pyproject.toml").read_text()
    include = syntax.literal_eval(re.search(r"^include = (\[.*?\])", text, re.M).group(1))
    shipped = set(find_packages(str(ROOT), include=include))
    folders = {".".join(p.parent.relative_to(ROOT).parts) for source in SOURCES
               for p in (ROOT / source).rglob("__init__.py")}
    assert folders and folders <= shipped, f"not installed: {sorted(folders - shipped)}"
    assert not {name for name in shipped if name.split(".")[0] not in SOURCES}, shipped


def test_the_old_module_paths_still_import_the_moved_modules_with_a_warning():
    import importlib
    import warnings

    for old, new in (("passfuzz.relax_build", "passfuzz.relax.build"),
                     ("passfuzz.catalogue.excluded", "passfuzz.ir.catalogue.excluded")):
        sys.modules.pop(old, None)  # imported afresh, so the warning is given
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(old)
        assert module is importlib.import_module(new), old
        assert module.__name__ == new  # one module under both names, not a second copy
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught), old
