"""Time to find each planted pass's bug with ``--focus auto`` and with ``--focus none``.

Each planted pass (benchmarks/planted_focus/passes.py, and with ``--heldout`` the passes of
benchmarks/planted_focus_heldout/, written without tuning the generator to them) rewrites a
small pattern wrongly. For each, and each focus setting, this runs

    passfuzz --passes MODULE:NAME --max-time T --seed S --known-bugs KNOWN --corpus EMPTY

from the repository root, with KNOWN a copy of the repository's corpus/ (so TVM's known bugs do
not count) and EMPTY a fresh corpus, and prints the seconds from the start of the command to its
first new wrong-result finding (``-`` when none came within T), side by side. The planted defects
are wrong rewrites, so only a wrong result counts: a finding of another kind (the planted pass
meeting a bug of TVM's pattern matcher, say) is noted after the time, and the clock runs on
through its shrinking, as it would for a user.

    python benchmarks/focus.py [--max-time 120] [--seed 7[,S...]] [--heldout | --set SET] [--only NAME,...]
                               [--focus auto,source,none] [--fire-rate N]

``--focus source`` is the engine before the probe (focus from the pass's source alone, no
re-plan): ``--focus auto,source`` prints the probe's effect side by side; ``auto+draws=8`` is
``--focus auto --argument-draws 8``. ``--fire-rate N`` adds,
after each time, the pass's fire rate over the first N examples of a run with that setting.

With several seeds, one column per focus setting and seed, and a last column per setting with
how many seeds found the bug and the slowest time among them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETS = {"planted": "benchmarks.planted_focus.passes", "heldout": "benchmarks.planted_focus_heldout.passes",
        "reach": "benchmarks.planted_reach.passes", "reach-heldout": "benchmarks.planted_reach_heldout.passes"}
# A setting is a --focus value, or "source": --focus auto as before the probe (--probe-time 0: the
# ops the source names, no probe, no re-plan), the engine the probe is measured against.
SETTING_OPTIONS = {"source": ["--focus", "auto", "--probe-time", "0"]}


def setting_options(setting: str) -> list[str]:
    """The options of a setting; ``F+draws=K`` is focus F with ``--argument-draws K``."""
    focus, _, draws = setting.partition("+draws=")
    return [*SETTING_OPTIONS.get(focus, ["--focus", focus]), *(["--argument-draws", draws] if draws else [])]


def time_to_find(pass_text: str, focus: str, max_time: float, seed: int, known: Path) -> tuple[float | None, str]:
    """Seconds until passfuzz reports its first new wrong-result finding (None if none), and that
    line, after the kinds of any other findings that came first."""
    with tempfile.TemporaryDirectory() as corpus:
        command = [sys.executable, "-m", "passfuzz", "--passes", pass_text, "--max-time", str(max_time),
                   "--seed", str(seed), "--known-bugs", str(known), "--corpus", corpus,
                   *setting_options(focus)]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        start = time.monotonic()
        child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True, start_new_session=True)
        found, line, others = None, "", []
        selector = selectors.DefaultSelector()
        selector.register(child.stdout, selectors.EVENT_READ)  # findings are on stdout
        deadline = start + max_time + 60  # startup, and the example running when time ran out
        try:
            while time.monotonic() < deadline:
                if not selector.select(timeout=1.0):
                    if child.poll() is not None:
                        break
                    continue
                text = child.stdout.readline()
                if not text:
                    break
                if text.startswith("new finding wrong-result"):  # the shrink that follows is not measured
                    found, line = time.monotonic() - start, text.strip()
                    break
                if text.startswith("new finding"):
                    others.append(text.split()[2].rstrip(":"))
        finally:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        return found, "".join(f"(first {kind}) " for kind in others) + line


def fire_rate(pass_text: str, focus: str, examples: int, seed: int, known: Path) -> str:
    """The named pass's fire rate over a run's first ``examples`` examples (the summary's figure)."""
    with tempfile.TemporaryDirectory() as corpus:
        command = [sys.executable, "-m", "passfuzz", "--passes", pass_text, "--max-examples", str(examples),
                   "--seed", str(seed), "--known-bugs", str(known), "--corpus", corpus, "--shrink-time", "1",
                   "--reduce-time", "1", *setting_options(focus)]
        result = subprocess.run(command, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                                text=True, timeout=3600)
        for line in result.stdout.splitlines():  # the summary
            if "fire rate (examples where the pass changed the module):" in line and pass_text in line:
                return line.split(pass_text, 1)[1].split("%", 1)[0].strip() + "%"
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-time", type=float, default=120.0)
    parser.add_argument("--seed", default="7", help="a seed, or several comma-separated (one run each)")
    parser.add_argument("--heldout", action="store_true", help="run the held-out passes (only at the end)")
    parser.add_argument("--set", choices=sorted(SETS), help="the planted passes to run (default planted, or heldout)")
    parser.add_argument("--fire-rate", type=int, metavar="N",
                        help="also print each pass's fire rate over a run of its first N examples, per setting")
    parser.add_argument("--only", help="comma-separated pass names")
    parser.add_argument("--focus", default="auto,none",
                        help="the --focus settings to compare (default auto,none); F+draws=K adds --argument-draws K")
    args = parser.parse_args()
    module_name = SETS[args.set or ("heldout" if args.heldout else "planted")]
    sys.path.insert(0, str(ROOT))
    names = importlib.import_module(module_name).PLANTED
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    settings = args.focus.split(",")
    with tempfile.TemporaryDirectory() as known:
        shutil.copytree(ROOT / "corpus", Path(known) / "corpus")
        seeds = [int(s) for s in args.seed.split(",")]
        several = len(seeds) > 1
        header = [f"{s} seed {seed}" if several else s for s in settings for seed in seeds]
        header += [f"{s} found" for s in settings] if several else []
        print(f"{'pass':<24}" + "".join(f"{'focus ' + h:>20}" for h in header) + "   first finding (focus auto)")
        for name in names:
            cells, found_cells, first = [], [], ""
            for setting in settings:
                found = []
                for seed in seeds:
                    seconds, line = time_to_find(f"{module_name}:{name}", setting, args.max_time, seed,
                                                 Path(known) / "corpus")
                    cells.append("-" if seconds is None else f"{seconds:.0f} s")
                    found += [] if seconds is None else [seconds]
                    first = first or (line[:90] if setting == "auto" else "")
                    if args.fire_rate:
                        cells[-1] += f" ({fire_rate(f'{module_name}:{name}', setting, args.fire_rate, seed, Path(known) / 'corpus')})"
                found_cells.append(f"{len(found)}/{len(seeds)}" + (f", max {max(found):.0f} s" if found else ""))
            cells += found_cells if several else []
            print(f"{name:<24}" + "".join(f"{cell:>20}" for cell in cells) + f"   {first}", flush=True)


if __name__ == "__main__":
    main()
