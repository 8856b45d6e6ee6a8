"""The pass catalogue's ``matches`` held against the probe: for each of TVM's passes that match
named ops, which ops the probe sees it change (passfuzz.reach.probe.against_catalogue), and where
the two disagree.

    PYTHONPATH=. python benchmarks/probe_catalogue.py [--budget 60] [--only PASS,...]

``-op``: the catalogue lists it, the probe never saw it fire (an entry to check, or a form the
probe's small programs do not draw); ``+op``: the probe saw it fire, the catalogue does not list it
(a rewrite the focus misses); ``*``: it changes most ops. A disagreement the catalogue entry
explains (``PassInfo.probe_notes``) is marked so; tests/test_probe_catalogue.py fails on the
others. Each pass is probed over the whole catalogue, the ops its entry names first, within
``--budget`` seconds. Prints one row per pass and the count of passes with no unexplained
disagreement.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from passfuzz.passes.catalogue import CATALOGUE, fuzzable_pool
from passfuzz.reach.probe import against_catalogue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds of probing per pass (default 60)")
    parser.add_argument("--only", help="comma-separated pass names")
    args = parser.parse_args()
    names = [name for name in fuzzable_pool() if CATALOGUE[name].matches]
    if args.only:
        names = [name for name in names if name in args.only.split(",")]
    agree = 0
    print(f"{'pass':<32}{'catalogue':<36}{'probe':<36}{'seconds':>8}  disagreement")
    for name in names:
        check = against_catalogue(name, budget=args.budget)
        unexplained = check.unexplained()
        said = ", ".join(d if d in unexplained else f"{d} (explained)" for d in check.disagreements())
        agree += not unexplained
        print(f"{name:<32}{','.join(check.listed)[:34]:<36}{','.join(check.seen.ops)[:34]:<36}"
              f"{check.seen.seconds:>8.0f}  {said}", flush=True)
    print(f"{agree} of {len(names)} passes agree with the probe, or disagree only where the catalogue says why")


if __name__ == "__main__":
    main()
