"""The Program and the op catalogue: plain data, each op defined once (type rule, Relax emit, numpy
reference, value ranges), analysis and numpy evaluation of a Program. Imports nothing else of passfuzz."""
