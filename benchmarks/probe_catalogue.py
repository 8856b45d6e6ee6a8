"""The pass catalogue's ``matches`` held against the probe: for each of TVM's passes that match
named ops, which ops the probe sees it change (passfuzz.reach.probe), and where the two disagree.

    python benchmarks/probe_catalogue.py [--budget 20] [--only PASS,...]

A pass the catalogue says matches ops the probe never sees fire is a catalogue entry to check (or a
form the probe's small programs do not draw); an op the probe sees fire that the catalogue does
not list is a rewrite the focus misses. Each pass is probed over the whole catalogue, the ops its
entry names first, within ``--budget`` seconds. Prints one row per pass and, at the end, the count
of passes that agree.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from passfuzz.passes.catalogue import CATALOGUE, fuzzable_pool  # noqa: E402
from passfuzz.passes.contracts import generation  # noqa: E402
from passfuzz.passes.names import resolve_list  # noqa: E402
from passfuzz.reach.focus import drawable  # noqa: E402
from passfuzz.reach.probe import STRUCTURE, probe_pass  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=20.0, help="seconds of probing per pass (default 20)")
    parser.add_argument("--only", help="comma-separated pass names")
    args = parser.parse_args()
    names = [name for name in fuzzable_pool() if CATALOGUE[name].matches]
    if args.only:
        names = [name for name in names if name in args.only.split(",")]
    agree = 0
    print(f"{'pass':<32}{'catalogue':<36}{'probe':<36}disagreement")
    for name in names:
        [spec] = resolve_list(name)
        kept = generation([spec])
        listed = [op for op in CATALOGUE[name].matches if op not in STRUCTURE]  # structure is never probed
        seen = probe_pass(spec, [op for op in drawable() if op not in kept.left_out], budget=args.budget,
                          hints=listed, match_cast=kept.match_cast, dtypes=kept.dtypes or None)
        missing = [op for op in listed if op not in seen.ops]
        extra = [op for op in seen.ops if op not in listed]
        said = ("changes most ops" if seen.everything else "") or \
            "; ".join(part for part in (f"never seen: {','.join(missing)}" if missing else "",
                                        f"not listed: {','.join(extra)}" if extra else "") if part)
        agree += not said
        print(f"{name:<32}{','.join(listed)[:34]:<36}{','.join(seen.ops)[:34]:<36}{said}", flush=True)
    print(f"{agree} of {len(names)} passes agree with the probe")


if __name__ == "__main__":
    main()
