"""The pass catalogue's ``matches`` (the ops --focus auto spends most programs on for TVM's
passes) held against the probe (what each pass is seen to change): a disagreement fails unless
the catalogue entry says why (``PassInfo.probe_notes``, with the TVM source line). Slow: each pass
is probed over the whole catalogue in forked children (``benchmarks/probe_catalogue.py`` prints
the same table)."""

import pytest

from passfuzz.passes.catalogue import CATALOGUE, fuzzable_pool
from passfuzz.reach.probe import CatalogueCheck, ProbeResult, against_catalogue

PROBED = [name for name in fuzzable_pool() if CATALOGUE[name].matches]
BUDGET = 30.0  # seconds per pass: the listed ops are probed first, the rest as far as the budget goes


@pytest.mark.slow
@pytest.mark.parametrize("name", PROBED)
def test_the_catalogue_and_the_probe_agree_on_what_each_pass_matches(name):
    check = against_catalogue(name, budget=BUDGET)
    assert not check.unexplained(), (f"{name}: the probe disagrees with PassInfo.matches on {check.unexplained()} "
                                     f"(catalogue {check.listed}, probe {check.seen.ops}); fix the entry or "
                                     "explain it in PROBE_NOTES")


def test_a_disagreement_fails_unless_the_catalogue_explains_it():
    seen = ProbeResult(ops=("matmul", "clip"))
    check = CatalogueCheck("P", ("matmul", "take"), seen)
    assert check.disagreements() == ["-take", "+clip"]
    assert check.unexplained() == ["-take", "+clip"]
    explained = CatalogueCheck("P", ("matmul", "take"), seen, (("-take", "why"),))
    assert explained.unexplained() == ["+clip"]
    assert CatalogueCheck("P", ("matmul",), ProbeResult(everything=True)).unexplained() == ["*"]
    assert not CatalogueCheck("P", ("matmul",), ProbeResult(ops=("matmul",))).unexplained()
    assert not CatalogueCheck("P", ("matmul",), ProbeResult(ops=("matmul", "ceil", "pad")), (("+", "why"),)).unexplained()


def test_every_explanation_is_of_a_listed_pass_and_cites_tvm_source():
    for info in CATALOGUE.values():
        for key, why in info.probe_notes:
            assert info.matches and key[:1] in "-+*", (info.name, key)
            assert key[1:] in info.matches if key[:1] == "-" else key[1:] not in info.matches, (info.name, key)
            assert "cc:" in why or "py:" in why, (info.name, key, why)
