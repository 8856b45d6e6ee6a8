"""``passfuzz import-model MODEL.onnx [...] --out DIR``: real models as seed files for ``--seeds``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import Parser, UsageError

FRONTEND = "tvm.relax.frontend.onnx"
MAX_ELEMENTS = 2_000_000


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz import-model",
               description="Convert ONNX models with TVM's own frontend (tvm.relax.frontend.onnx) into seed files, "
                           "one per model, for `passfuzz --seeds DIR`: DIR/<name>.json holds the Program passfuzz "
                           "imported from the frontend's module. A model passfuzz cannot import yet is written as "
                           "TVMScript instead (DIR/<name>.py), when it prints as a module that parses back. Weights "
                           "stay parameters of main (num_input marks them), so their values are drawn like any "
                           "argument. A model file named model.onnx (the ONNX test data's layout) is named after "
                           "its folder. Needs the onnx package: pip install \".[onnx]\".",
               epilog="Exit status: 0 every model was written, 1 some could not be converted or written (each "
                      "said in one line), 2 usage error.")
    p.add_argument("models", nargs="+", type=Path, metavar="MODEL", help="ONNX model files (.onnx)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="where the seed files go (DIR/<model name>.json or .py; created if missing)")
    p.add_argument("--max-elements", type=int, default=MAX_ELEMENTS, metavar="N",
                   help="largest number of argument elements (inputs and weights together) a seed file may hold; "
                        "a seed file stores each as JSON text, about 60 bytes an element (default %(default)s, "
                        "about 120 MB: SqueezeNet's 1.2 million fit, AlexNet's 61 million do not)")
    return p


def seed_names(models: list[Path]) -> list[str]:
    """One file name stem per model, unique within the list: the model's own stem, its folder's
    name for ``model.onnx``, and a ``-2``, ``-3`` ... where two would still meet."""
    names: list[str] = []
    for model in models:
        base = model.parent.resolve().name if model.stem == "model" else model.stem
        name, k = base, 1
        while name in names:
            k += 1
            name = f"{base}-{k}"
        names.append(name)
    return names


def run(args: argparse.Namespace) -> int:
    from passfuzz.campaign.seeds import model_seed
    from passfuzz.findings.corpus import atomic_write
    from passfuzz.relax.importer import ImportRejected, import_module
    from passfuzz.relax.models import ModelError, import_onnx, seed_source

    if args.max_elements < 1:
        raise UsageError(f"--max-elements must be at least 1, not {args.max_elements}")
    missing = [str(m) for m in args.models if not m.is_file()]
    if missing:
        raise UsageError(f"no such model file: {', '.join(missing)}")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {args.out}: {exc.strerror}") from None
    failed = 0
    for model, name in zip(args.models, seed_names(args.models)):
        try:
            mod, arguments = import_onnx(model)
        except ModelError as exc:
            print(f"passfuzz import-model: {exc}", file=sys.stderr)
            failed += 1
            continue
        try:
            program = import_module(mod, arguments=arguments, argument_ranges=True)
        except ImportRejected as rejected:
            try:  # kept as TVMScript, for a later passfuzz that imports what this one cannot
                source = seed_source(mod, model)
            except ModelError as exc:
                print(f"passfuzz import-model: {model}: passfuzz cannot import it yet: {rejected}; nothing written, "
                      f"since {str(exc).removeprefix(f'{model}: ')}", file=sys.stderr)
                failed += 1
                continue
            target = args.out / f"{name}.py"
            atomic_write(target, source)
            print(f"wrote {target}: passfuzz cannot import it yet: {rejected}")
            continue
        elements = sum(a.size for a in arguments)
        if elements > args.max_elements:
            print(f"passfuzz import-model: {model}: imports as {program.summary()}, but its arguments hold {elements} "
                  f"elements, more than --max-elements {args.max_elements}; nothing written", file=sys.stderr)
            failed += 1
            continue
        target = args.out / f"{name}.json"
        atomic_write(target, json.dumps(model_seed(program, model, FRONTEND), indent=1) + "\n")
        print(f"wrote {target}: imports as {program.summary()}")
    return 1 if failed else 0
