"""``passfuzz import-model MODEL [...] --out DIR``: real models (ONNX, PyTorch) as seed files for ``--seeds``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import Parser, UsageError

MAX_ELEMENTS = 2_000_000


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz import-model",
               description="Convert ONNX and PyTorch models with TVM's own frontends (tvm.relax.frontend.onnx, "
                           "tvm.relax.frontend.torch.from_exported_program) into seed files, one per model, for "
                           "`passfuzz --seeds DIR`: DIR/<name>.json holds the Program passfuzz imported from the "
                           "frontend's module. A model passfuzz cannot import yet is written as TVMScript instead "
                           "(DIR/<name>.py), when it prints as a module that parses back. Weights stay parameters "
                           "of main (num_input marks them), so their values are drawn like any argument. A model "
                           "file named model.onnx (the ONNX test data's layout) is named after its folder, "
                           "FILE.py::NAME after NAME. ONNX needs the onnx package (pip install \".[onnx]\"), "
                           "PyTorch needs torch (pip install \".[torch]\").",
               epilog="Exit status: 0 every model was written, 1 some could not be converted or written (each "
                      "said in one line), 2 usage error.")
    p.add_argument("models", nargs="+", metavar="MODEL",
                   help="an ONNX model (FILE.onnx), a saved torch.export program (FILE.pt2, from "
                        "torch.export.save), or a Python file and a callable in it that returns (nn.Module, "
                        "example_inputs) (FILE.py::NAME; NAME is model when left out), exported with "
                        "torch.export.export on those inputs, which are then its arguments")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="where the seed files go (DIR/<model name>.json or .py; created if missing)")
    p.add_argument("--max-elements", type=int, default=MAX_ELEMENTS, metavar="N",
                   help="largest number of argument elements (inputs and weights together) a seed file may hold; "
                        "a seed file stores each as JSON text, about 60 bytes an element (default %(default)s, "
                        "about 120 MB: SqueezeNet's 1.2 million fit, AlexNet's 61 million do not)")
    return p


def seed_names(models: list[str]) -> list[str]:
    """One file name stem per model, unique within the list: the model's own stem, its folder's
    name for ``model.onnx``, NAME for ``FILE.py::NAME``, and a ``-2``, ``-3`` ... where two would
    still meet."""
    from passfuzz.relax.models import model_file

    names: list[str] = []
    for spec in models:
        model = model_file(spec)
        base = spec.split("::", 1)[1] if "::" in spec else \
            model.parent.resolve().name if model.name == "model.onnx" else model.stem
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
    from passfuzz.relax.models import (
        MODEL_FORMS,
        ModelError,
        import_model,
        model_file,
        model_frontend,
        seed_source,
    )

    if args.max_elements < 1:
        raise UsageError(f"--max-elements must be at least 1, not {args.max_elements}")
    specs = [str(m) for m in args.models]
    unknown = [s for s in specs if model_frontend(s) is None]
    if unknown:
        raise UsageError(f"not a model passfuzz reads ({MODEL_FORMS}): {', '.join(unknown)}")
    missing = [s for s in specs if not model_file(s).is_file()]
    if missing:
        raise UsageError(f"no such model file: {', '.join(missing)}")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {args.out}: {exc.strerror}") from None
    failed = 0
    for spec, name in zip(specs, seed_names(specs)):
        model, frontend = Path(spec), model_frontend(spec)
        try:
            mod, arguments = import_model(spec)
        except ModelError as exc:
            print(f"passfuzz import-model: {exc}", file=sys.stderr)
            failed += 1
            continue
        try:
            program = import_module(mod, arguments=arguments, argument_ranges=True)
        except ImportRejected as rejected:
            try:  # kept as TVMScript, for a later passfuzz that imports what this one cannot
                source = seed_source(mod, model, frontend)
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
        atomic_write(target, json.dumps(model_seed(program, model, frontend), indent=1) + "\n")
        print(f"wrote {target}: imports as {program.summary()}")
    return 1 if failed else 0
