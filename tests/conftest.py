import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw real TVM programs, and TVM has bugs passfuzz has not met yet. A suite that
# passes once must pass again on the same code, so examples come from a fixed seed; set
# HYPOTHESIS_PROFILE=explore to draw fresh ones.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def _draw_no_constants_from_loaded_modules():
    """Hypothesis also draws literals it reads from every local module imported (its "local
    constants"), so a draw changes when a test file beside it changes, and differs between an
    editable and an installed passfuzz. The repeatable profile draws from Hypothesis' own pool only."""
    from hypothesis.internal.conjecture import providers

    if not hasattr(providers, "_get_local_constants"):  # releases before local constants draw none
        return
    empty = providers.Constants(integers=providers.SortedSet(), floats=providers.SortedSet(key=providers.float_to_int),
                                bytes=providers.SortedSet(), strings=providers.SortedSet())
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()


if settings.default.derandomize:
    _draw_no_constants_from_loaded_modules()

ROOT = Path(__file__).resolve().parent.parent


def pytest_collection_modifyitems(items):
    """Tests by cost: a test running the real command line (the run_cli fixture) is marked ``cli``,
    so ``-m "not cli and not slow"`` is the quick loop of unit and property tests."""
    for item in items:
        if "run_cli" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.cli)


# `python -m passfuzz ARGS` with the modules named in its first argument missing, as an
# interpreter without them sees them (an import fails, importlib.util.find_spec finds nothing).
_WITHOUT = ("import runpy, sys; sys.modules.update(dict.fromkeys(sys.argv.pop(1).split(','))); "
            "runpy.run_module('passfuzz', run_name='__main__', alter_sys=True)")


@pytest.fixture
def run_cli(tmp_path):
    """Run the real `passfuzz` command in a subprocess from the repository root; ``without``:
    Python packages it must run as if they were not installed; ``env``: variables to set."""
    import subprocess

    def run(*args, timeout=900, cwd=ROOT, without=(), env=None):
        env = dict(os.environ, **(env or {}), PYTHONPATH=str(ROOT))
        command = [sys.executable, "-c", _WITHOUT, ",".join(without)] if without else [sys.executable, "-m", "passfuzz"]
        return subprocess.run([*command, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)

    return run
