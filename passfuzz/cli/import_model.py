"""``passfuzz import-model MODEL.onnx [...] --out DIR``: real models as seed files for ``--seeds``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import Parser, UsageError


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz import-model",
               description="Convert ONNX models with TVM's own frontend (tvm.relax.frontend.onnx) into TVMScript "
                           "seed files, one per model, for `passfuzz --seeds DIR`. Weights stay parameters of main "
                           "(num_input marks them), so their values are drawn like any argument. Needs the onnx "
                           "package: pip install \".[onnx]\".",
               epilog="Exit status: 0 every model was written, 1 some could not be converted (each said in one "
                      "line), 2 usage error.")
    p.add_argument("models", nargs="+", type=Path, metavar="MODEL", help="ONNX model files (.onnx)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="where the seed files go (DIR/<model name>.py; created if missing)")
    return p


def run(args: argparse.Namespace) -> int:
    from passfuzz.findings.corpus import atomic_write
    from passfuzz.relax.importer import ImportRejected, import_module
    from passfuzz.relax.models import ModelError, import_onnx, seed_source

    missing = [str(m) for m in args.models if not m.is_file()]
    if missing:
        raise UsageError(f"no such model file: {', '.join(missing)}")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {args.out}: {exc.strerror}") from None
    failed = 0
    for model in args.models:
        try:
            mod = import_onnx(model)
            source = seed_source(mod, model)
        except ModelError as exc:
            print(f"passfuzz import-model: {exc}", file=sys.stderr)
            failed += 1
            continue
        target = args.out / f"{model.stem}.py"
        atomic_write(target, source)
        try:  # what --seeds will make of it, said now rather than at the start of a run
            program = import_module(mod)
            verdict = f"imports as {program.summary()}"
        except ImportRejected as exc:
            verdict = f"passfuzz cannot import it yet: {exc}"
        print(f"wrote {target}: {verdict}")
    return 1 if failed else 0
