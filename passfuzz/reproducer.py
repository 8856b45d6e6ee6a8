"""Render a finding as a standalone script (tvm + numpy only) and as a markdown bug report.

The script holds the original module as TVMScript with its constants inlined as numpy arrays
(``script(show_meta=True)`` segfaults on tensor constants, so the metadata references are
replaced by value), the arguments inline, the pass list, and a forked runner so that a crash
or hang on the optimized side is reported rather than suffered. It prints one line and exits
1 while the bug reproduces, 0 once it is fixed. A reference mismatch has no passes: its script
holds the numpy-computed outputs (EXPECTED) and compares the unoptimized module with them. A
target mismatch runs the module (optimized, if passes or a build made it) on both TARGETS, each
in a forked child of a process that has touched no device (forking after CUDA is initialised is
unsafe), and compares the two.
"""

from __future__ import annotations

import inspect
import re
from typing import Sequence

import numpy as np
import tvm
from tvm import relax

from . import finite_differences, gradient, standalone
from .builds import PLAIN_BUILD, Build, parse_build
from .calling import PLAIN, Adapter
from .catalogue import RTOL, is_float
from .graph import analyse, evaluate, output_leaves, rounding_dtypes
from .oracle import REFERENCE_SLACK, Finding, target_slack, tolerance
from .pass_catalogue import info as pass_info
from .passes import PassSpec
from .program import Program


# Scalar constants of these dtypes print inline (R.const(1, "int8")); every other constant,
# uint8 and bfloat16 scalars included (measured on TVM 0.27), prints as a metadata reference.
_INLINE_SCALAR_DTYPES = ("float32", "float16", "int32", "int64", "int8", "bool")


def _printed_as_metadata(const) -> bool:
    return len(const.value.shape) > 0 or str(const.value.dtype) not in _INLINE_SCALAR_DTYPES


def _constants_in_print_order(mod: tvm.IRModule) -> list:
    found: list = []
    for gv in sorted(mod.functions.keys(), key=lambda g: g.name_hint):
        func = mod[gv]
        if isinstance(func, relax.Function):
            def visit(expr):
                if isinstance(expr, tvm.ir.expr.GenericConst) and _printed_as_metadata(expr) \
                        and not any(seen.same_as(expr) for seen in found):
                    found.append(expr)
            relax.analysis.post_order_visit(func.body, visit)
    return found


def _array_literal(array) -> str:
    """An argument as Python source: an array, a tuple of ints (an R.Shape parameter), or a tuple
    of arrays (a tuple parameter)."""
    if isinstance(array, tuple) and all(isinstance(item, int) for item in array):
        return repr(array)
    if isinstance(array, tuple):
        return "(" + "".join(f"{_array_literal(item)}, " for item in array) + ")"
    # tolist() then repr() round-trips float32/float16/bfloat16 exactly; -0.0 keeps its sign.
    # numpy has no bfloat16 of its own: ml_dtypes (a dependency of tvm) provides it.
    dtype = "ml_dtypes.bfloat16" if array.dtype.name == "bfloat16" else repr(array.dtype.name)
    return f"np.array({array.tolist()!r}, dtype={dtype})"


def _const_literal(array: np.ndarray) -> str:
    # The dtype is spelled out: TVMScript parses R.const of an int64 array as int32 otherwise.
    return f"R.const({_array_literal(array)}, {array.dtype.name!r})"


def module_script(mod: tvm.IRModule) -> str:
    """TVMScript of ``mod`` that parses on its own: constants inline, no metadata section."""
    constants = _constants_in_print_order(mod)
    text = mod.script()
    text = re.sub(r'metadata\["ir\.GenericConst"\]\[(\d+)\]',
                  lambda m: _const_literal(constants[int(m.group(1))].value.numpy()), text)
    for special in ("nan", "inf", "-inf"):
        text = text.replace(f'R.const("{special}"', f'R.const(float("{special}")')
    lines = [line for line in text.splitlines()  # the script imports what it needs itself
             if not line.startswith("# from tvm.") and "Metadata omitted" not in line]
    return "\n".join(lines).strip() + "\n"


_RUNNER = '''
def isolated(fn, timeout):
    """fn() in a forked child: ("ok", value), ("error", message), ("crash", signal) or ("hang", "")."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        signal.alarm(timeout)
        try:
            message = ("ok", fn())
        except Exception as exc:
            message = ("error", f"{type(exc).__name__}: " + (str(exc).strip().splitlines() or [""])[0])
        with os.fdopen(write_end, "wb") as pipe:
            pickle.dump(message, pipe)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if data:
        return pickle.loads(data)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        return ("hang", f"no result after {timeout} s")
    return ("crash", signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else "exited")


def _custom_pass(module, attr, *args, **kwargs):
    sys.path.insert(0, os.getcwd())
    obj = getattr(importlib.import_module(module), attr)
    return obj if isinstance(obj, tvm.transform.Pass) else obj(*args, **kwargs)


def run(mod, target, adapter=None, build=None):
    """Compile mod for target under build (see load) and call main as the original is called.
    adapter = (transform, lazy, slots, wrap, tuple_wrap, inputs) says how a pass changed main
    (the same rules as passfuzz.calling.Adapter)."""
    executable, device = load(mod, target, build)
    args = [to_tvm(a, device) for a in ARGS]
    transform, lazy, slots, wrap, tuple_wrap, n = adapter if isinstance(adapter, tuple) else \
        (None, False, None, 0, 0, None)
    n = NUM_INPUT if n is None else n
    transformed = {}
    if lazy:  # the weight transform reads each weight with get_item and writes with set_item
        tvm.register_global_func("get_item", lambda i: args[n + int(i)], override=True)
        tvm.register_global_func("set_item", lambda i, v: transformed.__setitem__(
            int(i), tvm.runtime.tensor(v.numpy())), override=True)
    vm = relax.VirtualMachine(executable, device)
    if adapter == "adjoint":  # Gradient: main_adjoint returns (loss, (gradients...))
        return flatten(vm["main_adjoint"](*args))
    if transform is None and slots is None:
        return flatten(vm["main"](*args))
    inputs, weights = args[:n], args[n:]
    if lazy:
        vm[transform]()
        weights = [transformed[i] for i in sorted(transformed)]
    elif transform:
        weights = list(vm[transform](nest(weights, wrap)))
    if slots is None:
        return flatten(vm["main"](*inputs, *weights))
    outputs, remaining = {}, iter(weights)
    make = {"tensor": lambda: next(remaining), "tuple": lambda: nest(weights, tuple_wrap),
            "getter": lambda: (lambda i, name: weights[int(i)]),
            "setter": lambda: (lambda i, v: outputs.__setitem__(int(i), flatten(v)))}  # copies: storage is reused
    result = vm["main"](*inputs, *[make[slot]() for slot in slots])
    return [a for i in sorted(outputs) for a in outputs[i]] if "setter" in slots else flatten(result)


def nest(weights, depth):
    for _ in range(depth):
        weights = [weights]
    return weights


def flatten(value):
    return [value.numpy().copy()] if hasattr(value, "numpy") else [a for item in value for a in flatten(item)]


def optimized(target):
    mod = Module
    for name, make_pass, check_well_formed in PASSES:
        try:
            mod = make_pass()(mod)
        except Exception as exc:
            raise RuntimeError(f"pass {name} raised {type(exc).__name__}: " + str(exc).strip().splitlines()[0])
        if check_well_formed and not relax.analysis.check_well_formed(mod):
            raise RuntimeError(f"the module is ill-formed after {name}")
    return run(mod, target, ADAPTER, BUILD)


def differences(expected, got, names=("original", "optimized")):
    if len(expected) != len(got):
        return f"{len(expected)} outputs became {len(got)}"
    for i, (a, b, (rtol, atol)) in enumerate(zip(expected, got, TOLERANCES)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"output {i}: {a.dtype}{list(a.shape)} became {b.dtype}{list(b.shape)}"
        x, y = a.astype("float64"), b.astype("float64")
        with np.errstate(invalid="ignore"):
            close = (x == y) | (np.abs(x - y) <= atol + rtol * np.abs(x)) | (np.isnan(x) & np.isnan(y))
        if not close.all():
            where = tuple(int(k) for k in np.argwhere(~close)[0])
            return (f"output {i}: {int((~close).sum())} of {close.size} elements differ, first at {list(where)}: "
                    f"{names[0]} {a[where].item()!r}, {names[1]} {b[where].item()!r}")
    return ""


def check_reference():
    status, value = isolated(lambda: run(Module, TARGET, None), TIMEOUT)
    if status != "ok":
        print(f"the unoptimized module itself fails now ({status}: {value}); no comparison with numpy")
        return 1
    difference = differences(EXPECTED, value, ("numpy", "tvm"))
    if difference:
        print(f"BUG REPRODUCES ({KIND}): the unoptimized module differs from numpy: {difference}")
        return 1
    print("fixed: the unoptimized module matches the numpy reference")
    return 0


def check_targets():
    results = [isolated(lambda target=target: optimized(target), TIMEOUT) for target in TARGETS]
    for target, (status, value) in zip(TARGETS, results):
        if status != "ok":
            print(f"the module fails on {target} now ({status}: {value}); the targets cannot be compared")
            return 1
    difference = differences(results[0][1], results[1][1], TARGETS)
    if difference:
        print(f"BUG REPRODUCES ({KIND}): {TARGETS[1]} disagrees with {TARGETS[0]}: {difference}")
        return 1
    print(f"fixed: the module gives the same outputs on {TARGETS[0]} and {TARGETS[1]}")
    return 0


def main():
    if EXPECTED is not None:
        return check_reference()
    if GRADIENT_NOISE is not None:
        return check_gradient()
    if KIND == "target-mismatch":
        return check_targets()
    # The optimized side runs first, in a child of a process that has compiled nothing yet: some
    # bugs hide once compiling has imported more of TVM.
    status, value = isolated(lambda: optimized(TARGET), TIMEOUT)
    expected = run(Module, TARGET, None)
    if status != "ok":
        print(f"BUG REPRODUCES ({KIND}): optimized side {status}: {value}")
        return 1
    difference = differences(expected, value)
    if difference:
        print(f"BUG REPRODUCES ({KIND}): {difference}")
        return 1
    print("fixed: the optimized module compiles, runs and matches the original")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


_GRADIENT_CHECK = '''

def check_gradient():
    """Gradient: main_adjoint's loss and gradients against central differences of the original
    main (the same module, unoptimized, run by TVM on perturbed arguments)."""
    status, value = isolated(lambda: optimized(TARGET), TIMEOUT)
    if status != "ok":
        print(f"BUG REPRODUCES ({KIND}): optimized side {status}: {value}")
        return 1
    executable, device = load(Module, TARGET)
    vm = relax.VirtualMachine(executable, device)
    loss = lambda arrays: float(vm["main"](*[to_tvm(a, device) for a in arrays]).numpy())
    problem = gradient_mismatch(loss, ARGS, value[0], value[1:], GRADIENT_NOISE)
    if problem:
        print(f"BUG REPRODUCES ({KIND}): main_adjoint: {problem}")
        return 1
    print("fixed: main_adjoint's loss and gradients match central differences of main")
    return 0
'''


def render_script(program: Program, passes: Sequence[PassSpec], finding: Finding, mod_script: str,
                  targets: Sequence[str], timeout: float, adapter: Adapter | None, build: Build = PLAIN_BUILD) -> str:
    """``targets``: where the finding shows; the first is TARGET, both are TARGETS for a target mismatch."""
    if gradient.involved(passes):  # the float64 twin ran; its gradients are checked, not main's outputs
        noise = gradient.noise(program)
        program = gradient.promote(program)
        return _script(program, passes, finding, mod_script, targets, timeout, "adjoint", build,
                       [], "None", noise)
    infos = analyse(program, check_values=False)
    against_numpy = finding.kind == "reference-mismatch"
    across = finding.kind == "target-mismatch"
    slack = REFERENCE_SLACK if against_numpy else target_slack(targets) if across else 1.0
    tolerances = []
    rounding = rounding_dtypes(program, infos)
    for index, info in output_leaves(program, infos):
        tolerances.append(tolerance(rounding[index], info.magnitude, passes, slack) if is_float(info.dtype)
                          else (0.0, 0.0))
    expected = "None"
    if against_numpy:
        expected = "[" + "".join(f"\n    {_array_literal(a)}," for a in evaluate(program)) + "\n]"
    adapter_value = None if adapter is None or adapter == PLAIN else \
        (adapter.transform, adapter.lazy_transform, adapter.slots, adapter.transform_wrap, adapter.tuple_wrap,
         adapter.inputs)
    return _script(program, passes, finding, mod_script, targets, timeout, adapter_value, build, tolerances,
                   expected, None)


def _script(program: Program, passes: Sequence[PassSpec], finding: Finding, mod_script: str,
            targets: Sequence[str], timeout: float, adapter_value, build: Build, tolerances: list, expected: str,
            gradient_noise: float | None) -> str:
    against_numpy = finding.kind == "reference-mismatch"
    across = finding.kind == "target-mismatch"
    args = "".join(f"\n    {_array_literal(a)}," for a in program.arguments())
    checking, pass_lines = True, []
    for p in passes:
        checking = checking and pass_info(p).well_formed_after
        pass_lines.append(f"({p.text!r}, lambda: {p.for_program(program).python_expr()}, {checking})")
    passes_text = "".join(f"\n    {line}," for line in pass_lines)
    what = "of the unoptimized module" if against_numpy else describe([p.text for p in passes], build)
    if across:
        what = f"between {' and '.join(targets)} " + (what or "on the unoptimized module")
    header = (f'"""passfuzz reproducer {finding.kind}-{finding.fingerprint}: {finding.kind} {what}.\n\n'
              f'{finding.message}\n\n'
              f'Needs only tvm and numpy. Exits 1 while the bug reproduces, 0 once it is fixed.\n"""\n')
    body = (f"KIND = {finding.kind!r}\nTARGET = {targets[0]!r}\nTARGETS = {list(targets)!r}\n"
            f"TIMEOUT = {int(max(1, timeout))}\n"
            f"NUM_INPUT = {program.num_input!r}\n"
            f"ARGS = [{args}\n]\n"
            f"PASSES = [  # (name, constructor, check well_formed after it){passes_text}\n]\n"
            f"ADAPTER = {adapter_value!r}  # how the passes changed main: (transform, lazy, parameters, wraps)\n"
            f"TOLERANCES = {[(float(r), float(a)) for r, a in tolerances]!r}  # (rtol, atol) per output\n"
            f"EXPECTED = {expected}  # numpy's outputs, for a reference mismatch only\n"
            f"GRADIENT_NOISE = {gradient_noise!r}  # Gradient only: rounding bound of one loss evaluation\n"
            f"BUILD = {build.as_dict()!r}  # how the optimized side is compiled (see load)\n\n\n"
            + mod_script + _LOADER + "\n" + (_FINITE_DIFFERENCES + _GRADIENT_CHECK if gradient_noise is not None
                                              else "") + _RUNNER)
    bfloat16 = "import ml_dtypes\n" if "ml_dtypes.bfloat16" in body else ""
    # TVMScript declares symbolic shape variables with TypeVar.
    typevar = "from typing import TypeVar\n" if "TypeVar(" in body else ""
    return (header +
            "import importlib\nimport os\nimport pickle\nimport shutil\nimport signal\nimport sys\nimport tempfile\n"
            f"{typevar}\n{bfloat16}import numpy as np\nimport tvm\nfrom tvm import relax\n"
            "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tirx as T\n\n"
            + body)


# The one implementation of compiling a side, copied into every script (see passfuzz.standalone).
_LOADER = (f"\n\nGPU_KINDS = {standalone.GPU_KINDS!r}\n\n\n" + inspect.getsource(standalone.kind_of) + "\n\n"
           + inspect.getsource(standalone.target_config) + "\n\n"
           + inspect.getsource(standalone.to_tvm) + "\n\n"
           + inspect.getsource(standalone.has_closures) + "\n\n"
           + inspect.getsource(standalone.load) + "\n")


# Gradient scripts judge gradients with the same code as passfuzz (see passfuzz.finite_differences).
_FINITE_DIFFERENCES = "\n\n" + inspect.getsource(finite_differences).split("import numpy as np\n", 1)[1]


def describe(passes: Sequence[str], build: Build = PLAIN_BUILD) -> str:
    """'after P1, P2', 'after P1 compiled with exec-mode=compiled', 'compiled with export'."""
    text = f'after {", ".join(passes)}' if passes else ""
    if build.text:
        text = f"{text} compiled with {build.text}".strip()
    return text


def _expected_behaviour(record: dict) -> str:
    if any(PassSpec(p).name == gradient.PASS_NAME for p in record["passes"]):
        return ("The module is well formed and compiles, and `main_adjoint` returns `main`'s loss and its\n"
                "gradients: within rounding and truncation error of central finite differences of `main`\n"
                "(float64, step 1e-4; the script computes them and says how large an error it allows).")
    return ("The optimized module is well formed, compiles, runs, and returns the same outputs as the original\n"
            f"(integers and bools exactly; floats within a relative tolerance of {_tolerance_note()}).")


def _tolerance_note() -> str:
    return " or ".join(f"{rtol:g} ({dtype})" for dtype, rtol in RTOL.items())


def render_report(record: dict) -> str:
    """A markdown bug report, ready to paste into an issue."""
    if record["kind"] == "reference-mismatch":
        return _reference_report(record)
    if record["kind"] == "target-mismatch":
        return _target_report(record)
    build = parse_build(record.get("build", ""))
    applying = " and ".join(filter(None, [
        "applying " + ", ".join(f"`{p}`" for p in record["passes"]) if record["passes"] else "",
        f"compiling with `{build.text}`" if build.text else ""]))
    title = describe(record["passes"], build)
    return f"""# [Bug][Relax] {record['kind']} {title}

passfuzz found that {applying} makes the module below diverge from the original (plain build)
on target `{', '.join(record['targets'])}`.

## Actual behaviour

```
{record['message']}
```

## Expected behaviour

{_expected_behaviour(record)}

## Reproduce

Save the attached `{record['id']}.py` and run `python {record['id']}.py`: it needs only `tvm` and
`numpy`, prints one line, and exits 1 while the bug is present (0 once fixed).

""" + _module_and_environment(record)


def _reference_report(record: dict) -> str:
    return f"""# [Bug][Relax] unoptimized module differs from numpy on `{', '.join(record['targets'])}`

passfuzz found that the module below, compiled with no pass applied, returns values that differ
from the numpy semantics of its ops (passfuzz's op catalogue; the program summary names the ops).
This is a legalization or codegen bug of TVM, or a mistake in passfuzz's catalogue: check the op's
documented semantics before filing.

## Actual behaviour

```
{record['message']}
```

## Expected behaviour

The same values as numpy (integers and bools exactly; floats within {REFERENCE_SLACK:g} times a
relative tolerance of {_tolerance_note()}).

## Reproduce

Save the attached `{record['id']}.py` and run `python {record['id']}.py`: it needs only `tvm` and
`numpy`, holds numpy's outputs inline, prints one line, and exits 1 while the bug is present.

""" + _module_and_environment(record)


def _target_report(record: dict) -> str:
    build = parse_build(record.get("build", ""))
    first, second = record["targets"][:2]
    how = describe(record["passes"], build) or "with no pass applied (plain build)"
    return f"""# [Bug][Relax] `{second}` and `{first}` disagree on the same module

passfuzz found that the module below, {how}, returns different outputs when compiled for
`{first}` and for `{second}`: the same module must compute the same values on every device, so
one target's compilation (its pipeline, scheduling or codegen) is wrong.

## Actual behaviour

```
{record['message']}
```

## Expected behaviour

The same outputs on both targets (integers and bools exactly; floats within a relative tolerance
of {_tolerance_note()}, widened {target_slack((first, second)):g} times between
these target kinds).

## Reproduce

Save the attached `{record['id']}.py` and run `python {record['id']}.py` on a machine with both
targets: it needs only `tvm` and `numpy`, runs the module on each target in its own process,
prints one line, and exits 1 while the outputs disagree (0 once fixed).

""" + _module_and_environment(record)


def _module_and_environment(record: dict) -> str:
    return f"""## Module

```python
{record['module'].rstrip()}
```

## Environment

- TVM {record['tvm_version']}, target `{', '.join(record['targets'])}`
- found by passfuzz {record['passfuzz_version']}; fingerprint `{record['fingerprint']}` ({record['signature']})
- program: {record['program_summary']}
"""
