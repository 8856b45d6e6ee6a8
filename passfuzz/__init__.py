"""passfuzz: a property-based fuzzer for the compiler passes of Apache TVM's Relax layer.

The Program (passfuzz.ir.program) is plain data; the op catalogue (passfuzz.ir.catalogue) defines
each op once; the public Hypothesis strategies live in the top-level ``strategies`` package.
"""

__version__ = "0.1.0"

from ._moved import install as _install_moved_paths

_install_moved_paths()
