"""[Bug][TVMScript][TIR] T.float64(v) rejects a value beyond float32's range: a float64 max reduction does not parse back

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the call under test). Needs: tvm, numpy.
"""
import sys

try:
    import numpy as np
    from tvm.script import tirx as T

    lowest = float(np.finfo("float64").min)  # what TOPI's max reduction starts from in float64
except Exception as error:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {error!r}")
    sys.exit(125)

try:
    value = T.float64(lowest)  # what the printer writes and the parser calls: T.float64(-1797...0.0)
except Exception as error:
    if "exceeds minimum of float32" not in str(error):
        print(f"cannot run: another failure: {error!r}")
        sys.exit(125)
    print(f"REPRODUCES: T.float64({lowest}) raised: {str(error).strip().splitlines()[-1]}")
    sys.exit(1)
if str(value.ty.dtype) != "float64" or float(value.value) != lowest:
    print(f"cannot run: T.float64({lowest}) gave {value!r}")
    sys.exit(125)
print("fixed: T.float64 takes every float64 value")
