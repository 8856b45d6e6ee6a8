"""A Dask worker preload (``--preload tests/pythonpath_alone.py``): the worker imports passfuzz from
PYTHONPATH alone, as a machine holding only that copy would. Where passfuzz is installed editable,
that install's import finder (after sys.path's own) would supply the modules the copy lacks."""

import sys

sys.meta_path[:] = [finder for finder in sys.meta_path
                    if not getattr(finder, "__module__", "").startswith("__editable__")]
