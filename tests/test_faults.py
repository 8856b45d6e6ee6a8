"""Faults, the corpus's unit of triage: every record shows one fault; each fault's script
reproduces alone and says when it cannot run; its regression test fails by the fault; its report
and the corpus index are written from the fault files; a variable's name never splits a fault, and
a new finding matching a fault's signatures is kept as its variant, not counted as new."""

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
import tvm

from passfuzz.findings import faults, known_bugs
from passfuzz.judge.finding import fingerprint, normalize_error, variant_of
from passfuzz.passes.names import resolve_list

from .conftest import ROOT

CORPUS = ROOT / "corpus"
FOLDER = CORPUS / faults.FAULTS
ALL = faults.load(CORPUS)
PLANTED = "tests.planted_passes:raise_always"


def test_every_record_shows_one_fault_and_every_fault_has_its_script_and_test():
    assert ALL, "corpus/faults/ holds no fault"
    assert faults.problems(CORPUS) == []


@pytest.mark.parametrize("fault", ALL, ids=lambda fault: fault.id)
def test_a_faults_script_reproduces_alone_within_its_line_budget(fault):
    script = FOLDER / fault.script_name
    lines = faults.non_blank_lines(script.read_text(encoding="utf-8"))
    assert lines <= faults.line_budget(fault.shows_as), f"{script.name}: {lines} non-blank lines"
    done = subprocess.run([sys.executable, script.name], cwd=FOLDER, capture_output=True, text=True, timeout=600)
    assert done.returncode == faults.REPRODUCES, done.stdout + done.stderr


def test_a_faults_script_that_cannot_import_tvm_exits_125_not_1(tmp_path):
    # 1 would tell `git bisect run` that the fault is there; 125 tells it to skip this commit.
    (tmp_path / "tvm").mkdir()
    (tmp_path / "tvm" / "__init__.py").write_text("raise ImportError('a TVM that does not build')\n")
    for fault in ALL:
        done = subprocess.run([sys.executable, str(FOLDER / fault.script_name)], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
        assert done.returncode == faults.CANNOT_RUN, (fault.id, done.stdout + done.stderr)


CRASHES = ("crash", "pipeline-crash")  # a crash fault's test may die by the fault's signal, and pytest with it


def _regression_tests_fail(faults_here, report):
    """Run the faults' regression tests in one pytest (TVM imported once) and check that each
    fails: a collection error (a typo, an import that fails) would fail too, for no reason of
    TVM's, so it must be a test failure, in every file."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-o", "addopts=", f"--junitxml={report}", *(f.test_name for f in faults_here)],
                          cwd=FOLDER, capture_output=True, text=True, timeout=1800)
    if len(faults_here) == 1 and faults_here[0].shows_as in CRASHES and done.returncode < 0:
        return
    cases = list(ElementTree.parse(report).getroot().iter("testcase"))
    files = {case.get("classname", "").rsplit(".", 1)[-1] for case in cases}
    assert {f.test_name[:-3] for f in faults_here} <= files, done.stdout[-3000:]
    for case in cases:
        outcome = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        assert outcome == ["failure"], (case.get("classname"), case.get("name"), outcome, done.stdout[-2000:])


def test_the_regression_tests_fail_on_this_tvm_by_an_assertion_or_the_faults_error(tmp_path):
    _regression_tests_fail([f for f in ALL if f.shows_as not in CRASHES], tmp_path / "junit.xml")


@pytest.mark.parametrize("fault", [f for f in ALL if f.shows_as in CRASHES], ids=lambda fault: fault.id)
def test_a_crash_faults_regression_test_fails_or_dies_by_its_signal(fault, tmp_path):
    _regression_tests_fail([fault], tmp_path / "junit.xml")


def test_the_reports_and_the_index_are_written_from_the_fault_files():
    for fault in ALL:
        expected = faults.render_report(fault, (FOLDER / fault.script_name).read_text(encoding="utf-8"),
                                        (FOLDER / fault.test_name).read_text(encoding="utf-8"))
        assert (FOLDER / f"{fault.id}.md").read_text(encoding="utf-8") == expected, \
            "run `passfuzz known --write-baseline corpus`"
        assert fault.observed.get("status") == faults.REPRODUCES, f"{fault.id}: its report quotes no reproduction"
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    assert faults.render_index(ALL) in readme, "run `passfuzz known --write-baseline corpus`"


def _fault(fault_id, shows_as="pass-error", verdict="bug", upstream=(), records=("pass-error-000000000000",)):
    return faults.Fault(fault_id, f"[Bug][Relax][P] {fault_id}", "Relax pass P", shows_as, verdict, "trigger",
                        "expected", "root cause", tuple(upstream), tuple({"id": r, "note": "n"} for r in records),
                        (), "0.27.0.post1", "why unsure" if verdict == "unsure" else "")


def test_the_census_counts_faults_not_records():
    filed = [{"ref": "apache/tvm#1", "state": "open"}]
    related = [{"ref": "apache/tvm#2", "state": "closed", "relation": "related"}]
    census = faults.census([_fault("a", "wrong-result", upstream=filed, records=("x-1", "x-2", "x-3")),
                            _fault("b", upstream=related), _fault("c", verdict="unsure")])
    assert (census.faults, census.wrong_results, census.filed, census.unsure, census.records) == (2, 1, 1, 1, 5)
    assert census.line() == ("2 distinct faults (1 wrong result, 1 already filed upstream; 1 more unsure, not "
                             "counted) in 5 records")
    assert _fault("b", upstream=related).upstream_line == "not filed (related: apache/tvm#2 (closed))"


def test_a_variables_name_does_not_split_a_fault():
    # apache/tvm#17231: LiftTransformParams returning a weight leaves the output undefined, named
    # after the weight (gv) or after its symbolic dim (n0): one fault, one fingerprint.
    passes = resolve_list("LiftTransformParams")
    by_name, by_dim = (fingerprint("ill-formed", passes, "well-formed:LiftTransformParams "
                                   + normalize_error(f"IllFormed: Var {name} is not defined."))[0]
                       for name in ("gv", "n0"))
    assert by_name == by_dim
    assert normalize_error("IllFormed: DataflowVar lv is not defined.") == \
        normalize_error("IllFormed: DataflowVar x_1 is not defined.")
    assert normalize_error("Check failed: Variable lv could not be found in any group") == \
        normalize_error("Check failed: Variable gv1 could not be found in any group")  # MergeCompositeFunctions
    assert normalize_error("Var with name x") != normalize_error("Var x is not defined")  # words stay
    baseline = known_bugs.from_corpus(CORPUS)
    [record] = [bug for bug in baseline.bugs if bug.fingerprint == by_name]
    assert "apache/tvm#17231" in baseline.fault(record.fault).upstream


def test_a_finding_matching_a_faults_signature_is_its_variant_and_only_then():
    match = faults.Match(r"^wrong-result \| P \| values differ")
    with_ops = faults.Match(r"^wrong-result \| Q \| ", ("matmul",))
    known = {match.entry("p-fault"), with_ops.entry("q-fault"), "0123456789ab"}

    class Seen:
        def __init__(self, signature, outside_contract=""):
            self.kind, self.signature, self.outside_contract = "wrong-result", signature, outside_contract
            self.fingerprint = "fedcba987654"

    assert variant_of(Seen("wrong-result | P | values differ"), lambda: [], known) == "p-fault"
    assert variant_of(Seen("wrong-result | R | values differ"), lambda: [], known) == ""
    assert variant_of(Seen("wrong-result | Q | values differ"), lambda: ["relax.matmul"], known) == "q-fault"
    assert variant_of(Seen("wrong-result | Q | values differ"), lambda: ["relax.add"], known) == ""
    assert variant_of(Seen("wrong-result | P | values differ", "a misuse"), lambda: [], known) == ""
    conditioned = faults.Match(r"^wrong-result \| ", ("argmax",), "arg-reducer-row-at-dtype-limit")
    known.add(conditioned.entry("k-fault"))
    found = Seen("wrong-result | S | values differ")
    assert variant_of(found, lambda: ["relax.argmax"], known, lambda condition: True) == "k-fault"
    assert variant_of(found, lambda: ["relax.argmax"], known, lambda condition: False) == ""


def test_a_kernel_faults_wrong_result_match_needs_its_trigger_in_the_program(tmp_path):
    """The argmax kernel's fault accepts any pass's wrong result on a program calling argmax only
    when an argmax row there holds nothing but its dtype's lowest value: a wrong maximum rewrite
    upstream of an argmax over ordinary values is a new bug, not that fault."""
    from passfuzz.campaign.engine import FuzzConfig, Fuzzer, _named
    from passfuzz.ir.program import Node, Param, Program
    from passfuzz.judge.conditions import meets
    from passfuzz.judge.trial import check

    def argmax_after_maximum(row):  # maximum(x, 2) and argmax(x) over int8 rows, with x's values given
        return Program((Param((2, 3), "int8", -128, 3, row),
                        Node("const", (), {"shape": [], "dtype": "int8", "value": 2}),
                        Node("maximum", (0, 1)), Node("argmax", (0,), {"axis": 1, "keepdims": False})), (2, 3))

    ordinary = argmax_after_maximum([[3, -5, 1], [0, 2, -1]])
    at_limit = argmax_after_maximum([[-128, -128, -128], [0, 2, -1]])
    assert not meets("arg-reducer-row-at-dtype-limit", ordinary)
    assert meets("arg-reducer-row-at-dtype-limit", at_limit)

    known = set(known_bugs.known_set(known_bugs.from_corpus(CORPUS)))
    [planted] = resolve_list("benchmarks.planted_reach.passes:maximum_as_relu")
    verdict, _ = check(ordinary, [planted], ["llvm"], 60)
    assert verdict.finding is not None and verdict.finding.kind == "wrong-result", verdict
    named, known_as = _named(verdict, ordinary, known)
    assert not known_as and not named.finding.variant_of, named.finding  # new: the planted bug
    # the same finding on a program meeting the trigger stays the kernel fault's variant
    named, _ = _named(verdict, at_limit, known)
    assert named.finding.variant_of == "topi-argmax-returns-minus-one-at-dtype-limit", named.finding
    # counted by a run, the variant is saved once and its fingerprint is not made known: the planted
    # bug on the ordinary program, which shares it, is still a new finding afterwards
    fuzzer = Fuzzer(FuzzConfig(passes=[planted], targets=["llvm"], corpus_dir=tmp_path))
    for _ in range(2):
        assert fuzzer._count(at_limit, named, None, [planted], "", False, known) is None
    assert len(list((tmp_path / "variants").glob("*.json"))) == 1 and fuzzer.stats.known == 1
    again, known_as = _named(verdict, ordinary, known)
    assert not known_as and not again.finding.variant_of


def test_a_scatter_elements_trigger_is_indices_differing_from_data_on_two_or_more_trailing_dims():
    import numpy as np

    from passfuzz.ir.program import Node, Param, Program
    from passfuzz.judge.conditions import meets

    def scatter(data_shape, index_shape):
        return Program((Param(data_shape, "float32", -1, 1, np.zeros(data_shape).tolist()),
                        Param(index_shape, "int64", 0, 0, np.zeros(index_shape, "int64").tolist()),
                        Param(index_shape, "float32", -1, 1, np.full(index_shape, 0.5).tolist()),
                        Node("scatter_elements", (0, 1, 2), {"axis": 0, "reduction": "update"})), (3,))

    assert meets("scatter-elements-indices-differ-after-axis", scatter((1, 2, 2), (1, 2, 1)))
    assert not meets("scatter-elements-indices-differ-after-axis", scatter((1, 2, 2), (1, 2, 2)))
    assert not meets("scatter-elements-indices-differ-after-axis", scatter((2, 3), (1, 2)))  # one trailing dim


def test_every_faults_signatures_compile_and_no_record_matches_another_faults():
    """A fault's ``matches`` recognise its variants; one that also matched another fault's record
    would file that fault's new cases under the wrong report."""
    records = {path.stem: json.loads(path.read_text()) for path in CORPUS.glob("*.json")}
    for fault in ALL:
        for match in fault.matches:
            for record_id, record in records.items():
                other = next((f for f in ALL if record_id in f.record_ids), None)
                if other is not None and other.id != fault.id and re.search(match.signature,
                                                                                  record["signature"]):
                    ops = set(match.ops)
                    assert ops, f"{fault.id}'s /{match.signature}/ matches {record_id} of {other.id}"


@pytest.mark.slow
def test_a_variant_is_saved_apart_and_not_counted_as_new(run_cli, tmp_path):
    fault = known_bugs.KnownFault("raise-always", "[Bug][Relax][raise_always] raises on every module", "pass-error",
                                  True, "apache/tvm#1 (open)",
                                  (faults.Match(r"^pass-error \| tests\.planted_passes:raise_always \| .*unsupported"),))
    baseline = tmp_path / "baseline.json"
    known_bugs.write(known_bugs.Baseline((), (fault,)), baseline, tvm.__version__)
    run = run_cli("--passes", PLANTED, "--max-examples", "4", "--seed", "1", "-x", "--corpus", str(tmp_path / "c"),
                  "--known-bugs", str(baseline))
    assert run.returncode == 0, run.stderr  # -x does not stop at it, and the run found nothing new
    assert "no new finding" in run.stdout
    assert "1 variant of known faults" in run.stdout and fault.title in run.stdout
    [record] = [json.loads(p.read_text()) for p in (tmp_path / "c" / "variants").glob("*.json")]
    assert record["variant_of"] == "raise-always"
    assert not list((tmp_path / "c").glob("*.json"))


def test_observing_a_faults_script_keeps_its_output_without_tvms_clock_times(tmp_path):
    # TVM's logger stamps each warning with the time: kept, every observation rewrote every report
    (tmp_path / faults.FAULTS).mkdir()
    fault = _fault("stamped")
    (tmp_path / faults.FAULTS / fault.script_name).write_text(
        "import sys\nprint('REPRODUCES: it raised')\n"
        "print('[17:58:51] /project/src/relax/ir/block_builder.cc:67: Warning: BlockBuilder destroyed')\nsys.exit(1)\n")
    observed = faults.observe(tmp_path, fault, {})
    assert observed["status"] == faults.REPRODUCES
    assert observed["output"] == ("REPRODUCES: it raised\n"
                                  "/project/src/relax/ir/block_builder.cc:67: Warning: BlockBuilder destroyed")
