"""[Bug][Relax][AdjustMatmulOrder] segfault when the result of matmul(matmul(a, b), c) is rebound

Exit status: 1 while the fault reproduces, 0 once it is fixed, 125 when this script cannot run here
(an import or API failure before the pass). Needs: tvm. The pass runs in a child process (it segfaults).
"""
import os
import subprocess
import sys
import tempfile

CHILD = '''
from tvm import relax
from tvm.script import ir as I, relax as R
@I.ir_module
class Before:  # lv1 is rebound: gv = lv1
    @R.function
    def main(a: R.Tensor((2, 2), "float32"), b: R.Tensor((2, 2), "float32"),
             c: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
        with R.dataflow():
            lv = R.matmul(a, b)
            lv1 = R.matmul(lv, c)
            gv = lv1
            R.output(gv)
        return gv
print("parsed", flush=True)
relax.transform.AdjustMatmulOrder()(Before)
print("pass ran", flush=True)
'''
with tempfile.TemporaryDirectory() as tmp:  # TVMScript reads its source from a file
    path = os.path.join(tmp, "child.py")
    with open(path, "w") as f:
        f.write(CHILD)
    child = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=600)
if "parsed" not in child.stdout:  # not the fault: this TVM cannot run the script at all
    print(f"cannot run: {child.stderr.strip()[-300:]}")
    sys.exit(125)
if child.returncode < 0 or child.returncode == 139 or "Segfault" in child.stderr:
    print(f"REPRODUCES: AdjustMatmulOrder died of signal {-child.returncode if child.returncode < 0 else 11}")
    sys.exit(1)
if child.returncode != 0 or "pass ran" not in child.stdout:
    print(f"cannot run: unexpected failure: {child.stderr.strip()[-300:]}")
    sys.exit(125)
print("fixed: AdjustMatmulOrder handles a rebound result")
