"""passfuzz: a property-based fuzzer for the compiler passes of Apache TVM's Relax layer.

The Program (passfuzz.program) is plain data; the op catalogue (passfuzz.catalogue) defines
each op once; the public Hypothesis strategies live in the top-level ``strategies`` package.
"""

__version__ = "0.1.0"
