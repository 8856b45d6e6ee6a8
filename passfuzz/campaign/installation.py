"""Which passfuzz and TVM this process runs: what a cluster's client and its workers must share.

Another passfuzz source draws other programs and speaks another event protocol; another TVM has
other bugs (and the corpus records name its version). The version number alone misses a worker
running a checkout with local edits, so the source is hashed too: the ``.py`` files of the
distribution's packages (``passfuzz`` and the ``strategies`` it draws from), by relative path and
content, so compiled caches and timestamps do not count.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.util
from pathlib import Path

from passfuzz import __version__

PACKAGES = ("passfuzz", "strategies")


@functools.cache
def identity() -> dict[str, str]:
    """This process's passfuzz version, source digest and TVM version, computed once. Plain
    strings, so that a client can read the answer of a worker whose passfuzz differs."""
    import tvm

    return {"passfuzz": __version__, "source": source_digest(package_directories()), "tvm": tvm.__version__}


async def identity_in_a_thread() -> dict[str, str]:
    """identity() for a caller on an event loop (a Dask worker's, through ``Client.run``): the
    first call imports TVM, seconds during which that loop must go on answering its scheduler."""
    return await asyncio.to_thread(identity)


def package_directories() -> list[Path]:
    """Where this process imports each package from (found without importing it)."""
    found = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.append(Path(list(spec.submodule_search_locations)[0]))
    return found


def source_digest(directories: list[Path]) -> str:
    digest = hashlib.sha256()
    for directory in directories:
        for path in sorted(directory.rglob("*.py")):
            digest.update(f"{directory.name}/{path.relative_to(directory).as_posix()}\0".encode())
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
