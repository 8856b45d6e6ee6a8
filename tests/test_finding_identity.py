"""A known wrong result is known by its trigger: a second wrong result of the same pass on other
ops is a new bug, found, shrunk and saved apart; one on the known ops stays known."""

import json
from dataclasses import dataclass

import pytest

from passfuzz.findings import corpus, known_bugs
from passfuzz.ir.program import Program
from passfuzz.judge.finding import APART, identify, named_as, names_one_bug, same_bug, signature_key, trigger_entry
from passfuzz.relax.build import relax_ops

from .conftest import ROOT

PLANTED = "tests.planted_passes:two_wrong_rewrites"


@dataclass(frozen=True)
class Seen:
    kind: str
    fingerprint: str
    signature: str
    outside_contract: str = ""


def seen(kind="wrong-result", signature="wrong-result | P | values differ", outside_contract=""):
    return Seen(kind, signature_key(signature), signature, outside_contract)


def record_of(finding, ops, minimal=True):
    record = {"kind": finding.kind, "fingerprint": finding.fingerprint, "signature": finding.signature,
              "shrunk": True, **({"minimal": True} if minimal else {}),
              **({"outside_contract": finding.outside_contract} if finding.outside_contract else {})}
    return {finding.fingerprint, trigger_entry(record, lambda: ops)} - {""}


def test_a_wrong_result_is_known_only_on_a_program_holding_its_trigger():
    first = seen()
    known = record_of(first, ["negative"])
    assert identify(first, lambda: ["negative", "add"], known) == (first, first.fingerprint)
    apart, known_as = identify(first, lambda: ["exp", "add"], known)
    assert known_as == "" and apart.signature == first.signature + APART + first.fingerprint
    assert apart.fingerprint == signature_key(apart.signature) != first.fingerprint
    assert identify(first, lambda: ["exp"], known)[0] == apart  # the same name every time: it holds while it shrinks
    # once saved, the second is known on its ops, the first still on its own, and a third is apart from both
    known |= record_of(apart, ["exp"])
    assert identify(first, lambda: ["exp", "add"], known)[1] == apart.fingerprint
    assert identify(first, lambda: ["negative"], known)[1] == first.fingerprint
    third, known_as = identify(first, lambda: ["sqrt"], known)
    assert known_as == "" and third.signature.endswith(", ".join(sorted([first.fingerprint, apart.fingerprint])))


# A planted permute_dims bug (tests.planted_passes:permute_as_reshape) once reduced to this: the catalogue's
# linear, whose module is a permute_dims and a matmul (and an add for its bias).
LINEAR = Program.from_json({"values": [
    {"kind": "param", "role": "input", "shape": [2, 1, 2], "dtype": "int8", "range": [0, 8], "value": [[[0, 0]], [[0, 1]]]},
    {"kind": "op", "op": "const", "args": [], "attrs": {"shape": [4, 2], "dtype": "int8",
                                                        "value": [[-1, -1], [1, 1], [-1, -1], [-1, -1]]}},
    {"kind": "op", "op": "const", "args": [], "attrs": {"shape": [1], "dtype": "int8", "value": [0]}},
    {"kind": "op", "op": "linear", "args": [0, 1, 2], "attrs": {}}], "outputs": [3]})


def test_a_trigger_is_the_relax_ops_a_pass_sees():
    # Named by the catalogue, the record above was "linear" and a later lone permute_dims shared
    # nothing with it: the same bug was saved again as new.
    assert {"relax.permute_dims", "relax.matmul"} <= set(relax_ops(LINEAR))
    first = seen()
    known = record_of(first, relax_ops(LINEAR))
    assert identify(first, lambda: ["relax.permute_dims"], known) == (first, first.fingerprint)


def test_one_shared_op_makes_a_case_known_since_a_reduced_program_can_keep_ops_its_bug_does_not_need():
    # A planted permute_dims bug reduced to permute_dims feeding a matmul and an add (the reducer's
    # fixpoint); a later case is a lone permute_dims. Asking for every op saved it again as new.
    first = seen()
    known = record_of(first, ["permute_dims", "matmul", "add"])
    assert identify(first, lambda: ["permute_dims"], known) == (first, first.fingerprint)
    assert identify(first, lambda: ["exp", "negative"], known)[1] == ""


def test_what_keeps_the_plain_rule():
    first = seen()
    cut_short = record_of(first, ["negative"], minimal=False)  # its reduction ran out of time: it may hold
    assert identify(first, lambda: ["exp"], cut_short) == (first, first.fingerprint)  # incidental ops, so every case is known
    error = seen("pass-error", "pass-error | P | pass:P ValueError: no")
    assert identify(error, lambda: ["exp"], record_of(error, ["negative"])) == (error, error.fingerprint)
    misuse = seen(signature="wrong-result | P | values differ | outside contract", outside_contract="phase")
    assert identify(misuse, lambda: ["exp"], record_of(misuse, ["negative"])) == (misuse, misuse.fingerprint)
    assert identify(first, lambda: ["negative"], set()) == (first, "")
    assert identify(first, lambda: ["negative"], {first.fingerprint}) == (first, first.fingerprint)  # a baseline without triggers


def test_a_case_apart_shows_with_its_familys_fingerprint():
    first = seen()
    apart, _ = identify(first, lambda: ["exp"], record_of(first, ["negative"]))
    assert same_bug(first, apart.fingerprint, apart.signature) and same_bug(apart, apart.fingerprint, apart.signature)
    assert not same_bug(seen(signature="wrong-result | Q | values differ"), apart.fingerprint, apart.signature)
    assert named_as(first, apart.fingerprint, apart.signature) == apart


def test_the_corpus_and_the_baseline_carry_the_triggers_of_wrong_results():
    known = corpus.known_fingerprints(ROOT / "corpus")
    wrong = [json.loads(p.read_text()) for p in (ROOT / "corpus").glob("wrong-result-*.json")]
    erf = next(r for r in wrong if r["id"] == "wrong-result-7231f14da01f")  # FastMathTransform on float16 erf
    assert f"{erf['fingerprint']}>{erf['fingerprint']}:relax.erf" in known
    baseline = {bug.id: bug for bug in known_bugs.from_corpus(ROOT / "corpus").bugs}
    unnamed = {r["id"] for r in wrong if not names_one_bug(r["signature"])}
    assert not unnamed & set(baseline)  # every loss program shares its sum: known, it would hide all
    named = [r["id"] for r in wrong if "gradient differs at " in r["signature"]]  # the op gradient.localize saw
    assert named and all(baseline[r["id"]].trigger for r in wrong if r["id"] not in unnamed)
    assert not names_one_bug("wrong-result | Gradient('main') | gradient differs")
    assert names_one_bug("wrong-result | Gradient('main') | gradient differs at cumsum")
    assert not any(bug.trigger for bug in baseline.values() if bug.kind not in ("wrong-result", "target-mismatch"))


@pytest.mark.slow
def test_a_second_wrong_result_of_a_pass_is_found_apart_from_the_first(run_cli, tmp_path):
    common = ["--passes", PLANTED, "--seed", "1", "--corpus", str(tmp_path), "--known-bugs", "none",
              "--shrink-time", "20"]
    first = run_cli(*common, "--ops", "negative", "-x", "--max-examples", "20")
    assert first.returncode == 1, first.stderr
    [negative] = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    # exp's bug shares negative's fingerprint; before triggers it counted as known and was never saved
    second = run_cli(*common, "--ops", "exp,negative", "--max-examples", "60")
    assert second.returncode == 1, second.stderr
    records = {r["id"]: r for r in (json.loads(p.read_text()) for p in tmp_path.glob("*.json"))}
    [exp] = [r for r in records.values() if r["id"] != negative["id"]]
    assert exp["signature"] == negative["signature"] + APART + negative["fingerprint"]
    assert [v.get("op") for v in exp["program"]["values"] if v["kind"] == "op"] == ["exp"]
    assert [v.get("op") for v in negative["program"]["values"] if v["kind"] == "op"] == ["negative"]
    assert f"  {negative['fingerprint']}: " in second.stdout.split("known faults hit")[1]
    replay = run_cli("replay", str(tmp_path))
    assert "passfuzz replay: 2 reproduces" in replay.stdout, replay.stdout + replay.stderr  # both, by their own names
