"""How many of the ONNX networks shipped inside the onnx wheel ``passfuzz import-model`` imports, and
why the rest do not, grouped by reason; optionally side by side with an earlier measurement.

    PYTHONPATH=. python benchmarks/model_import.py [--sets light,pytorch-converted,...] [--save FILE]
                                                  [--compare FILE]

(PYTHONPATH=. so that this checkout's passfuzz is measured, not an installed one; point it at
another checkout, with this script, to measure that one, and ``--save`` its figures.)

The networks are ``onnx/backend/test/data/``: ``light/`` (the 9 model-zoo networks: AlexNet,
DenseNet-121, Inception v1 and v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512) and the
140 small ones of ``pytorch-converted/``, ``pytorch-operator/`` and ``simple/``. Each model goes
through the command's own ``run`` (in this process, into a scratch directory), so the figures are
what a user of that checkout sees: a model counts as imported when the command says "imports as"
(also when its arguments are too many for a seed file, ``--max-elements``, and nothing is written).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

SETS = ("light", "pytorch-converted", "pytorch-operator", "simple")


def models(sets: list[str]) -> dict[str, list[Path]]:
    import onnx

    root = Path(onnx.__file__).parent / "backend" / "test" / "data"
    return {name: sorted((root / name).glob("*.onnx")) if name == "light" else sorted((root / name).glob("*/model.onnx"))
            for name in sets}


def outcome(model: Path) -> tuple[str, str, float]:
    """("imported" | "rejected" | "failed", the reason grouped, seconds) for one model."""
    from passfuzz.cli.import_model import run

    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        # the command's default size limit: a network too large for a seed file still says "imports as"
        args = argparse.Namespace(models=[model], out=Path(scratch), max_elements=2_000_000)
        try:
            run(args)
        except Exception as exc:  # noqa: BLE001 - a crash of the command is a result too
            print(f"passfuzz import-model: {model}: raised {type(exc).__name__}: {exc}", file=sys.stderr)
    seconds = time.perf_counter() - start
    text = (out.getvalue() + err.getvalue()).strip()
    if "imports as" in text:
        return "imported", "", seconds
    if "cannot import it yet: " in text:
        return "rejected", reason(text.split("cannot import it yet: ", 1)[1].split("; nothing written")[0]), seconds
    return "failed", reason(text.split(f"{model}: ", 1)[-1]), seconds


def reason(message: str) -> str:
    """What varies between models masked: binding names, value indices, numbers, one line."""
    message = message.splitlines()[0] if message else "no output"
    message = re.sub(r"^cannot import \w+: ", "", message)
    message = re.sub(r"binding \w+ = ", "", message)
    message = re.sub(r"values\[\d+\]", "values[_]", message)
    message = re.sub(r"(TVM's ONNX frontend fails: \w+).*", r"\1", message)
    message = re.sub(r"(TVM prints a module it cannot parse back).*", r"\1", message)
    message = re.sub(r"parameter \w+:", "parameter _:", message)
    return re.sub(r"(?<![\w.])-?\d+(\.\d+)?(e[-+]?\d+)?", "#", message)[:110]


def measure(sets: list[str]) -> dict:
    found = {}
    for name, paths in models(sets).items():
        for path in paths:
            key = f"{name}/{path.stem if name == 'light' else path.parent.name}"
            status, why, seconds = outcome(path)
            found[key] = {"status": status, "reason": why, "seconds": round(seconds, 2)}
            print(f"{key}: {status} {why} ({seconds:.1f} s)", file=sys.stderr, flush=True)
    return found


def summary(results: dict, sets: list[str]) -> dict:
    """Per set: models, imported; and the reasons of the rest, counted over all sets."""
    rows = {}
    for name in sets:
        mine = [r for key, r in results.items() if key.split("/")[0] == name]
        rows[name] = (len(mine), sum(r["status"] == "imported" for r in mine))
    reasons = collections.Counter(f"{r['status']}: {r['reason']}" for r in results.values() if r["status"] != "imported")
    return {"sets": rows, "reasons": reasons}


def show(now: dict, before: dict | None, sets: list[str]) -> None:
    console = Console(width=160)
    table = Table(title="networks imported by passfuzz import-model")
    table.add_column("set")
    if before is not None:
        table.add_column("before", justify="right")
    table.add_column("now", justify="right")
    new = summary(now, sets)
    old = summary(before, sets) if before is not None else None
    small = [0, 0, 0]
    for name in sets:
        total, done = new["sets"][name]
        cells = [name]
        if old is not None:
            cells.append(f"{old['sets'][name][1]}/{old['sets'][name][0]}")
            small[2] += old["sets"][name][1] if name != "light" else 0
        cells.append(f"{done}/{total} ({100 * done / max(total, 1):.0f}%)")
        table.add_row(*cells)
        if name != "light":
            small[0] += total
            small[1] += done
    if len(sets) > 1 and small[0]:
        cells = ["small networks together"] + ([f"{small[2]}/{small[0]}"] if old is not None else [])
        table.add_row(*cells, f"{small[1]}/{small[0]} ({100 * small[1] / small[0]:.0f}%)")
    console.print(table)
    why = Table(title="why the rest do not import")
    why.add_column("reason")
    if old is not None:
        why.add_column("before", justify="right")
    why.add_column("now", justify="right")
    keys = sorted(set(new["reasons"]) | set(old["reasons"] if old else ()),
                  key=lambda k: (-new["reasons"][k], -(old["reasons"][k] if old else 0), k))
    for key in keys:
        why.add_row(escape(key), *([str(old["reasons"][key])] if old is not None else []), str(new["reasons"][key]))
    console.print(why)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated folders of the test data ({', '.join(SETS)})")
    parser.add_argument("--save", type=Path, help="write the per-model results here (JSON)")
    parser.add_argument("--compare", type=Path, help="a file --save wrote earlier, shown side by side")
    args = parser.parse_args()
    sets = [s for s in args.sets.split(",") if s]
    unknown = sorted(set(sets) - set(SETS))
    if unknown:
        parser.error(f"--sets: unknown {', '.join(unknown)}")
    before = None
    if args.compare is not None:
        try:
            before = json.loads(args.compare.read_text())
        except (OSError, ValueError) as exc:
            parser.error(f"--compare {args.compare}: {exc}")
    os.environ.setdefault("TVM_LOG_DEBUG", "0")
    results = measure(sets)
    if args.save is not None:
        args.save.write_text(json.dumps(results, indent=1) + "\n")
    show(results, before, sets)


if __name__ == "__main__":
    main()
