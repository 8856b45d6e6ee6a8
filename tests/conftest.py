import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def run_cli(tmp_path):
    """Run the real `passfuzz` command in a subprocess from the repository root."""
    import subprocess

    def run(*args, timeout=900, cwd=ROOT):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        return subprocess.run([sys.executable, "-m", "passfuzz", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=timeout)

    return run
