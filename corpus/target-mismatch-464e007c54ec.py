"""passfuzz target-mismatch-464e007c54ec: target-mismatch between llvm and c in the unoptimized module.

c disagrees with llvm on the same module: output 0 (float64, shape ()): 1 of 1 elements differ, first at []: llvm 0.8411919906082768, c 0.8411920015490915
Exit status: 1 reproduces, 0 fixed, 125 cannot run (an error outside the call under test, or another kind of failure).
"""
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile

sys.excepthook = lambda *error: (sys.__excepthook__(*error), sys.exit(125))  # cannot run

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def run_child(argv, timeout):
    """Run ``argv`` (a script re-running itself with an argument) in a fresh process, which arms
    ``signal.alarm(timeout)`` once it has imported TVM: '' when it exits 0, else how it ended:
    "died of SIGSEGV", "no result after 60 s", or "exited with status 1: " and the last line
    it wrote to stderr. Importing TVM takes seconds, so the parent waits that much longer before
    it gives up on a child that never armed its alarm."""
    try:
        child = subprocess.run(argv, capture_output=True, text=True, timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return f"no result after {timeout + 60:g} s"
    if child.returncode == -signal.SIGALRM:
        return f"no result after {timeout:g} s"
    if child.returncode < 0:
        return f"died of {signal.Signals(-child.returncode).name}"
    if child.returncode > 0:
        last = (child.stderr.strip().splitlines() or [""])[-1]
        return f"exited with status {child.returncode}: {last}"
    return ""


def outputs_in_child(script, target, timeout):
    """(outputs, '') of ``script`` run as ``script target path`` in a fresh process, which
    pickles its outputs on ``target`` to ``path``; (None, how it ended) when it fails. Each target
    gets a process of its own: a GPU runtime does not survive a fork once initialised."""
    directory = tempfile.mkdtemp(prefix="passfuzz-")
    try:
        path = os.path.join(directory, "outputs.pickle")
        fate = run_child([sys.executable, script, target, path], timeout)
        if fate:
            return None, fate
        with open(path, "rb") as file:
            return pickle.load(file), ""
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def kind_of(target):
    """The target kind of a target string such as "llvm" or "cuda -arch=sm_80"."""
    return target.split()[0] if target.split() else ""


def compile_with(mod, target, build, steps):
    """(executable, device): ``mod`` built by ``relax.build`` for ``target`` under ``build`` after
    ``steps`` (``steps_for``), phase by phase; without steps, the plain build."""
    for step in steps.get("module", ()):
        mod = step(mod)
    config = {"kind": kind_of(target)}
    for step in steps.get("target", ()):
        config = step(config, target, build)
    tgt = tvm.target.Target(config)
    pipeline = "default"
    for step in steps.get("pipeline", ()):
        pipeline = step(pipeline, tgt, build)
    pass_config = {key: dict(value) if isinstance(value, (tuple, list)) else value  # config=random's keys (a
                   for key, value in build.get("pass_config", ())}  # struct's: its fields); else the caller's context
    with tvm.transform.PassContext(config=pass_config) if pass_config else tvm.transform.PassContext.current():
        executable = relax.build(mod, tgt, relax_pipeline=pipeline, exec_mode=build.get("exec_mode", "bytecode"))
    for step in steps.get("executable", ()):
        executable = step(executable)
    kind = config["kind"]
    return executable, tvm.cpu(0) if kind in ("llvm", "c") else tvm.runtime.device(kind, 0)


def numpy_outputs(value):
    """The VM's result (a tensor or nested tuples of tensors) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [array for item in value for array in numpy_outputs(item)]


@I.ir_module
class Module:
    @R.function
    def main(x0: R.Tensor((), dtype="float64")) -> R.Tensor((), dtype="float64"):
        with R.dataflow():
            lv: R.Tensor((), dtype="float64") = R.nn.gelu_tanh(x0)
            gv: R.Tensor((), dtype="float64") = lv
            R.output(gv)
        return gv


if len(sys.argv) == 3:  # a child: the outputs on target sys.argv[1], pickled to sys.argv[2]
    mod = Module
    arguments = [np.array(1.0, dtype='float64')]
    executable, device = compile_with(mod, sys.argv[1], {}, {'llvm': {}, 'c': {}}[sys.argv[1]])
    args = [tvm.runtime.tensor(a, device) for a in arguments]
    vm = relax.VirtualMachine(executable, device)
    outputs = numpy_outputs(vm["main"](*args))
    with open(sys.argv[2], "wb") as file:
        pickle.dump(outputs, file)
    sys.exit(0)
expected, fate = outputs_in_child(__file__, 'llvm', 60)
actual, other_fate = outputs_in_child(__file__, 'c', 60)
if fate or other_fate:
    print(f"BUG REPRODUCES (target-mismatch): the module fails on llvm ({fate or 'ok'}) or c ({other_fate or 'ok'}); the targets cannot be compared")
    sys.exit(1)
try:
    assert len(actual) == 1, f"1 output(s) expected, {len(actual)} returned"
    assert (actual[0].dtype, actual[0].shape) == (expected[0].dtype, expected[0].shape), f"{expected[0].dtype}{expected[0].shape} became {actual[0].dtype}{actual[0].shape}"
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-09, atol=3.999929754051828e-09, equal_nan=True, err_msg='output 0')
except AssertionError as error:
    print("BUG REPRODUCES (target-mismatch): c disagrees with llvm:", " ".join(str(error).split()))
    sys.exit(1)
print("fixed: the module gives the same outputs on llvm and c")
