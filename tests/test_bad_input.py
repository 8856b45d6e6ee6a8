"""Bad input is refused or reported, never silently run: pass arguments TVM rejects, malformed
corpus records, and the run's time budget."""

import pytest

from passfuzz.pass_arguments import argument_words, rejection, tiny_programs
from passfuzz.passes import resolve

LOSS = tiny_programs()[-1]  # the one program Gradient's contract accepts
MATMUL = tiny_programs()[0]


@pytest.mark.parametrize("text, named", [
    ("ToMixedPrecision(out_dtype=float17)", "float17"),  # builds, rewrites, and codegen refuses the dtype
    ("Gradient(mian)", "mian"),  # no such function in any module
])
def test_arguments_tvm_rejects_end_in_exit_2_with_tvms_message(run_cli, tmp_path, text, named):
    result = run_cli("--passes", text, "--max-examples", "5", "--corpus", str(tmp_path), timeout=300)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"passfuzz: error: --passes: {text}: TVM rejects it: ") and named in lines[0]
    assert not list(tmp_path.glob("*.json"))  # nothing ran


@pytest.mark.parametrize("text", [
    "ToMixedPrecision(out_dtype=float16)",  # rewrites the matmul and compiles
    "Gradient(main)",  # fails on the modules outside its contract (no 0-d result), works on the loss program
    # An invalid layout fails inside the pass with an IndexError naming no argument: whether that is
    # a bug of the pass is the fuzzer's to report, not a usage error to refuse.
    "ConvertLayout({'relax.nn.conv2d': ['NHWQ', 'OIHW']})",
    "DecomposeOpsForInference(mian)",  # TVM ignores a function it does not find: nothing rejected
])
def test_arguments_tvm_takes_are_not_rejected(text):
    assert rejection(resolve(text), ["llvm"], 20.0) == ""


def test_a_failure_outside_the_passes_contract_is_no_rejection():
    spec = resolve("Gradient(mian)")
    # On the matmul module Gradient fails naming 'mian' too, but that module is outside its
    # contract (its result is no 0-d float), so that failure says nothing of the argument.
    assert rejection(spec, ["llvm"], 20.0, [MATMUL]) == ""
    assert "mian" in rejection(spec, ["llvm"], 20.0, [LOSS])


def test_only_argument_strings_are_looked_for():
    assert argument_words(resolve("FoldConstant")) == []
    assert argument_words(resolve("ConvertLayout({'relax.nn.conv2d': ['NHWC', 'OHWI']})")) == \
        ["relax.nn.conv2d", "NHWC", "OHWI"]
