"""``passfuzz reduce FILE``: a user's own module (or a record) checked with the passes and reduced."""

import json
from pathlib import Path

import pytest
import tvm

from passfuzz.findings import known_bugs
from passfuzz.findings.corpus import load
from tests.planted_passes import MINIMAL_OPS

ROOT = Path(__file__).resolve().parent.parent
THIRTY_OPS = ROOT / "tests" / "modules" / "thirty_ops.py"
GIVEN = ROOT / "tests" / "modules" / "given_arguments.py"  # round of exact halves, given as `arguments`
# A TVM bug of the baseline: CombineParallelMatmul fails on a 1-D right-hand side (apache/tvm#20197).
RECORD = ROOT / "corpus" / "pass-error-734ec827c50c.json"
# A TVM bug of the baseline found by a schedule alone (no pass): VectorizeLoop and an AllocBuffer.
SCHEDULE_RECORD = ROOT / "corpus" / "wrong-result-b894fe0381b2.json"
# A TVM bug of the baseline that blames no pass: TOPI's scatter_elements against numpy.
PLAIN_RECORD = ROOT / "corpus" / "reference-mismatch-18d4cd8c20b2.json"


def test_a_planted_defect_inside_a_thirty_op_module_is_reduced_to_its_trigger(run_cli, tmp_path):
    result = run_cli("reduce", f"{THIRTY_OPS}::TestThirtyOps::Before", "--passes",
                     "tests.planted_passes:matmul_drop_transpose", "--corpus", str(tmp_path), "--reduce-time", "300",
                     timeout=900)  # the reducer stops once no move helps; 300 s covers a loaded machine
    assert result.returncode == 1, result.stderr
    (record,) = tmp_path.glob("wrong-result-*.json")
    program = load(record).program
    minimal = MINIMAL_OPS["matmul_drop_transpose"]
    assert len(program.nodes) - sum(n.op == "const" for n in program.nodes) <= minimal + 1, program.summary()
    assert {"matmul"} <= set(program.op_counts()), program.summary()
    assert "reduced to" in result.stderr and str(record) in result.stdout


def test_the_fixed_twin_of_a_pass_shows_no_finding(run_cli, tmp_path):
    result = run_cli("reduce", str(THIRTY_OPS), "--passes", "tests.planted_passes:permute_as_reshape_fixed",
                     "--corpus", str(tmp_path), "--draws", "2", timeout=600)
    assert result.returncode == 0, result.stderr
    assert "no finding" in result.stderr and not list(tmp_path.glob("*.json"))


def test_a_record_is_checked_with_its_own_passes_and_named_when_known(run_cli, tmp_path):
    result = run_cli("reduce", str(RECORD), "--corpus", str(tmp_path), "--reduce-time", "10", timeout=600)
    assert result.returncode == 1, result.stderr
    fingerprint = json.loads(RECORD.read_text())["fingerprint"]
    assert load(tmp_path / RECORD.name).record["fingerprint"] == fingerprint
    fault = next(f for f in known_bugs.shipped(tvm.__version__).bugs if f.id == RECORD.stem).fault
    assert f"this is the known fault {fault}: [Bug]" in result.stderr, result.stderr


def test_a_schedule_record_is_checked_with_its_own_steps_and_keeps_them(run_cli, tmp_path):
    result = run_cli("reduce", str(SCHEDULE_RECORD), "--corpus", str(tmp_path), "--reduce-time", "10", timeout=600)
    assert result.returncode == 1, result.stderr
    assert "with no pass compiled with schedule=random on llvm" in result.stderr, result.stderr
    (saved,) = tmp_path.glob("wrong-result-*.json")
    assert json.loads(saved.read_text())["schedule"] == json.loads(SCHEDULE_RECORD.read_text())["schedule"]


def test_a_record_that_blames_no_pass_is_checked_with_no_pass_and_reduced(run_cli, tmp_path):
    assert json.loads(PLAIN_RECORD.read_text())["passes"] == []
    result = run_cli("reduce", str(PLAIN_RECORD), "--corpus", str(tmp_path), "--reduce-time", "10", timeout=600)
    assert result.returncode == 1, result.stderr
    assert "with no pass on llvm" in result.stderr, result.stderr
    assert load(tmp_path / PLAIN_RECORD.name).record["passes"] == []


def test_a_record_with_passes_that_do_no_wrong_shows_no_finding(run_cli, tmp_path):
    result = run_cli("reduce", str(RECORD), "--passes", "Normalize", "--corpus", str(tmp_path), timeout=600)
    assert result.returncode == 0, result.stderr
    assert "no finding" in result.stderr


def test_the_arguments_a_file_gives_show_what_drawn_ones_do_not(run_cli, tmp_path):
    """round_half_up is wrong only on exact halves: the file's own arguments show it at once, and
    the reduced record keeps such a value; the same module with drawn arguments shows nothing."""
    result = run_cli("reduce", f"{GIVEN}::TestHalves::Before", "--passes", "tests.planted_passes:round_half_up",
                     "--corpus", str(tmp_path / "given"), "--draws", "1", "--reduce-time", "60", timeout=600)
    assert result.returncode == 1, result.stderr
    assert "(its own arguments)" in result.stderr
    (record,) = (tmp_path / "given").glob("wrong-result-*.json")
    program = load(record).program
    assert "round" in program.op_counts()
    assert any(v % 1 == 0.5 for _, p in program.params for v in p.array().ravel()), program.summary()
    drawn = run_cli("reduce", f"{GIVEN}::TestWithoutArguments::Before", "--passes",
                    "tests.planted_passes:round_half_up", "--corpus", str(tmp_path / "drawn"), timeout=600)
    assert drawn.returncode == 0, drawn.stderr
    assert "no finding" in drawn.stderr and "(5 argument draws)" in drawn.stderr


@pytest.mark.parametrize("argv, message", [
    (["missing.py", "--passes", "FoldConstant"], "missing.py: no such file"),
    (["README.md", "--passes", "FoldConstant"], "expected a corpus record (.json) or a Python file (.py)"),
    ([f"{RECORD}::Before"], "a record holds one program"),
    ([str(RECORD), "--draws", "0"], "--draws must be at least 1"),
    ([f"{THIRTY_OPS}::Nope", "--passes", "FoldConstant"], "defines no module Nope (it defines: TestThirtyOps::Before)"),
    ([str(THIRTY_OPS), "--passes", "NoSuchPass"], "NoSuchPass"),
    ([f"{GIVEN}::TestWrongShape::Before", "--passes", "tests.planted_passes:round_half_up"],
     "cannot import main: parameter x: its argument has shape (3, 2), not (2, 3)"),
])
def test_bad_input_is_one_line_and_exit_2(run_cli, tmp_path, argv, message):
    result = run_cli("reduce", *argv, "--corpus", str(tmp_path), timeout=300)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
