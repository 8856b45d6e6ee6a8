"""`passfuzz passes` and `passfuzz ops` through the real command line: tables with headers that
wrap to the terminal's width, `--json` for machines, and `passes NAME` for one pass in full."""

import json

import pytest

from passfuzz.ir.catalogue import OPS
from passfuzz.passes.catalogue import CATALOGUE


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.mark.parametrize("command, header", [("passes", "phases"), ("ops", "differs from numpy")])
@pytest.mark.parametrize("columns", [80, 140])
def test_a_table_has_a_header_and_wraps_to_the_terminal(run_cli, command, header, columns):
    result = run_cli(command, env={"COLUMNS": str(columns)}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert widest(result.stdout) <= columns, widest(result.stdout)
    assert header in "\n".join(result.stdout.splitlines()[:8])  # the header, above the first row
    if command == "ops":  # every drawable op is a row (its name in the first column, unwrapped)
        rows = {line.split("│")[1].strip() for line in result.stdout.splitlines() if line.startswith("│")}
        assert {op.name for op in OPS if op.propose is not None} <= rows


def test_passes_json_is_the_catalogue_for_machines(run_cli):
    result = run_cli("passes", "--json", timeout=120)
    assert result.returncode == 0, result.stderr
    entries = {entry["name"]: entry for entry in json.loads(result.stdout)}
    for name, info in CATALOGUE.items():
        if name in entries:
            assert entries[name]["matches"] == list(info.matches) and entries[name]["phases"] == list(info.phases)
            assert entries[name]["not_idempotent"] == info.not_idempotent
    assert entries["ReorderTakeAfterMatmul"]["matches"] == ["matmul", "take"]
    assert "eliminate_common_subexpr.cc" in entries["EliminateCommonSubexpr"]["not_idempotent"]
    assert entries["FoldConstant"]["not_idempotent"] == ""  # checked


def test_passes_name_shows_one_pass_in_full_with_its_sources(run_cli):
    result = run_cli("passes", "ReorderTakeAfterMatmul", env={"COLUMNS": "100"}, timeout=120)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "matches (--focus auto)" in text and "matmul, take" in text
    assert "reorder_take_after_matmul.cc" in result.stdout and "FoldConstant" not in result.stdout
    one = json.loads(run_cli("passes", "ReorderTakeAfterMatmul", "--json", timeout=120).stdout)
    assert one["name"] == "ReorderTakeAfterMatmul" and one["source"] == CATALOGUE["ReorderTakeAfterMatmul"].source


def test_an_unknown_pass_name_is_one_line_with_a_suggestion(run_cli):
    result = run_cli("passes", "FoldConstnat", timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "passfuzz passes: error: no pass FoldConstnat in tvm.relax.transform; did you mean FoldConstant?"]
