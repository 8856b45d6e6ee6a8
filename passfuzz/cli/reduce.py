"""``passfuzz reduce FILE --passes P[,P...]``: check a module of the user's own with the passes, as
fuzzing checks a drawn one, and reduce what it shows into the usual reproducer files.

FILE is a corpus record (``.json``: its program, and by default its passes, build and targets;
the build with what its example drew for the kernels, schedule steps say, as replay restores it)
or a Python/TVMScript file defining an IRModule (``FILE::Name`` picks one when it defines several,
e.g. ``test_x.py::TestFold::Before``), found and imported into a Program as seeds are
(passfuzz.campaign.seeds, in a child). The file may give ``main``'s arguments: a name ``arguments`` bound
next to the module (at module level for a module-level module, in the class for one inside a
class), a list in ``main``'s parameter order (numpy arrays for tensors, tuples of them for tuple
parameters, ints for ``R.Prim`` and tuples of ints for ``R.Shape`` parameters) or a function
without parameters returning one. Those are tried first, and the ranges the importer proves
valid are the narrowest that hold them; an argument whose shape does not fit its parameter is an
input error. Then, or without them from the importer's own draw, further arguments are drawn
inside those ranges, up to ``--draws`` in all, until one shows a finding.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from . import Parser, UsageError
from .output import Console


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="passfuzz reduce",
               description="Run the passes on a module of your own with the oracles of fuzzing (wrong result, "
                           "crash, hang, ill-formed IR, compile error), and if that shows a finding, reduce the "
                           "module and the pass list while keeping the finding's kind and fingerprint, and save the "
                           "reproducer files (.json, .py, .md) in --corpus.",
               epilog="Exit status: 0 the module shows no finding, 1 a finding was reduced and saved, 2 usage or "
                      "input error (a file that cannot be read or imported).")
    p.add_argument("file", metavar="FILE",
                   help="a corpus record (.json) or a Python/TVMScript file defining an IRModule; FILE::NAME picks "
                        "one module of several (NAME as the file nests it: Module, or TestClass::Before). The file "
                        "may give main's arguments as `arguments = [...]` (or `def arguments(): return [...]`) next "
                        "to the module, at module level or in its class, in main's parameter order")
    p.add_argument("--passes", metavar="P[,P...]",
                   help="the passes to apply in order, as for fuzzing (`passfuzz --help`); required unless FILE "
                        "is a corpus record, whose passes are the default (a record of a build alone, a schedule "
                        "say, has none: its build, with the steps its example drew, is checked; one blaming no "
                        "pass, TVM's plain build alone)")
    p.add_argument("--targets", metavar="T[,T...]",
                   help="targets to compile and run on, as for fuzzing (default: a record's targets, after llvm for "
                        "a later target's failure of the unoptimized module; else every target this machine can run)")
    p.add_argument("--build", default=None, metavar="SPEC",
                   help="how the optimized side is compiled, as for fuzzing (default: a record's build, else plain)")
    p.add_argument("--pipeline", choices=["default", "target", "llvm"],
                   help="short for --build pipeline=..., as for fuzzing")
    p.add_argument("--corpus", type=Path, default=Path("corpus"), metavar="DIR",
                   help="where the reduced finding is saved (default: ./corpus)")
    p.add_argument("--known-bugs", default="default", metavar="default|none|PATH",
                   help="known TVM bugs, as for fuzzing: a finding that is one of them is still reduced and saved, "
                        "and named as known")
    p.add_argument("--check-speed", action="store_true",
                   help="also time the two modules, as `passfuzz --check-speed` does (on by itself for a slowdown "
                        "record)")
    p.add_argument("--slowdown-threshold", type=float, default=None, metavar="X",
                   help="with --check-speed: the ratio optimized/original that counts as a slowdown (default: a "
                        "record's own, else as for fuzzing)")
    p.add_argument("--draws", type=int, default=5, metavar="N",
                   help="arguments tried on an imported module until one shows a finding (default 5): FILE's "
                        "own first if it gives them, then draws inside the imported ranges; a record's own "
                        "arguments are tried once")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="time limit for one side of one run (default 60)")
    p.add_argument("--reduce-time", type=float, default=120.0, metavar="SECONDS",
                   help="time for reducing the finding (default 120)")
    return p


def _run_options(args: argparse.Namespace, passes: str | None, build: str, record: dict | None):
    """The options that check one module as a fuzzing run would: the run's defaults, with this
    command's options (and no focus: nothing is drawn); a slowdown record is timed again at its
    own threshold, on its own targets unless --targets says otherwise."""
    from passfuzz.campaign.plan import RunOptions
    from passfuzz.findings.record import recheck_targets

    targets = args.targets if args.targets is not None or not record else ",".join(recheck_targets(record))
    options = RunOptions(passes=passes, build=build, pipeline=args.pipeline, corpus=args.corpus,
                         known_bugs=args.known_bugs, timeout=args.timeout, reduce_time=args.reduce_time, focus="none",
                         targets=targets)
    slowdown = record is not None and record["kind"] == "slowdown"
    options.check_speed = args.check_speed or slowdown
    # a record's own boundary check, where the defaults leave it off
    options.output_determinism = record is not None and record["kind"] == "nondeterministic-output"
    options.serialization_round_trip = record is not None and record["kind"] == "json-round-trip"
    if args.slowdown_threshold is not None or slowdown:
        options.slowdown_threshold = args.slowdown_threshold or record["slowdown_threshold"]
    return options


def _subjects(args: argparse.Namespace):
    """(programs to try, the record or None, whether FILE gave the arguments): a record's program,
    or the module FILE names imported with the file's arguments (else the importer's draw), then
    ``--draws`` - 1 more draws of them."""
    from passfuzz.findings.corpus import CorpusError, load

    path_text, _, name = args.file.partition("::")
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"{args.file}: no such file")
    if path.suffix == ".json":
        if name:
            raise UsageError(f"{args.file}: a record holds one program; drop ::{name}")
        try:
            entry = load(path)
        except CorpusError as exc:
            raise UsageError(str(exc)) from None
        return [entry.program], entry.record, True
    if path.suffix != ".py":
        raise UsageError(f"{args.file}: expected a corpus record (.json) or a Python file (.py)")
    from passfuzz.campaign.seeds import find_seeds

    found = find_seeds([path])
    if found.warnings:
        raise UsageError(found.warnings[0])
    seeds = [seed for seed in found.seeds if not name or seed.name.endswith("::" + name)]
    if len(seeds) != 1:
        names = ", ".join(seed.name.split("::", 1)[1] for seed in found.seeds) or "none"
        raise UsageError(f"{args.file}: defines no module {name} (it defines: {names})" if name else
                         f"{args.file}: defines {len(seeds) or 'no'} modules" +
                         (f"; pick one as FILE::NAME from: {names}" if seeds else ""))
    seed = seeds[0]
    if seed.program is None:
        raise UsageError(f"{seed.name}: cannot import: {seed.reason}")
    from passfuzz.ir.argument_draws import argument_variants

    return [seed.program] + argument_variants(seed.program, args.draws - 1, weights=True), None, seed.given


def run(args: argparse.Namespace) -> int:
    from passfuzz.campaign.engine import FindingError, Fuzzer
    from passfuzz.campaign.plan import PlanError, plan
    from passfuzz.findings.known_bugs import known_set
    from passfuzz.judge.conditions import meets
    from passfuzz.judge.finding import identify, variant_of
    from passfuzz.judge.trial import check
    from passfuzz.relax.build import relax_ops
    from passfuzz.run.builds import recorded_build

    if args.draws < 1:
        raise UsageError(f"--draws must be at least 1, got {args.draws}")
    console = Console()
    programs, record, given = _subjects(args)
    build = args.build if args.build is not None else record.get("build", "") if record else ""
    passes = args.passes or (",".join(record["passes"]) if record else None)
    if not passes and not record:  # a record of a build alone, or of TVM's plain build, has no passes
        raise UsageError("give --passes (the passes whose effect on FILE is checked)")
    options = _run_options(args, passes or None, build, record)
    options.plain_build = not passes and not build
    try:
        config = plan(options, console.note)
    except PlanError as exc:
        raise UsageError(str(exc)) from None
    if record and args.build is None:  # what the record's example drew for its kernels: schedule steps, ...
        config = dataclasses.replace(config, build=recorded_build(record))
    baseline = _baseline(args.known_bugs)
    fuzzer = Fuzzer(config)
    tried = ("its own arguments" + (f", then {len(programs) - 1} argument draws" if len(programs) > 1 else "")
             if given else f"{len(programs)} argument draws" if len(programs) > 1 else "")
    console.note(f"checking {args.file} with {','.join(p.text for p in config.passes) or 'no pass'}"
                 + (f" compiled with {config.build.text}" if config.build.text else "") + " on "
                 f"{','.join(config.targets)}" + (f" ({tried})" if tried else ""))
    for number, program in enumerate(programs, 1):
        verdict, _ = check(program, config.passes, config.targets, config.timeout, config.build, speed=config.speed,
                           boundaries=config.boundaries, emi=config.emi)
        if verdict.finding is not None:
            finding, known_as = identify(verdict.finding, lambda: relax_ops(program), set(known_set(baseline)))
            console.note(f"{finding.kind} ({finding.fingerprint}): {finding.message.splitlines()[0][:200]}")
            fault = baseline.fault_of(known_as or variant_of(finding, lambda: relax_ops(program), known_set(baseline),
                                                             lambda condition: meets(condition, program)))
            if fault is not None:
                console.note(f"this is {'' if known_as else 'a variant of '}the known fault {fault.id}: {fault.name}")
            console.note(f"reducing {program.summary()} for up to {config.reduce_seconds:g} s")
            path = fuzzer.reduce_and_save(FindingError(finding, program))
            from passfuzz.findings.corpus import load
            reduced = load(path).program
            console.note(f"reduced to {reduced.summary()}")
            print(f"saved {path}    reproduce: python {path.with_suffix('.py')}")
            return 1
        if verdict.generator_defect:
            console.note(f"{_which(number, given)}: the unoptimized module does not run: {verdict.generator_defect[:300]}")
        elif verdict.incomparable:
            console.note(f"{_which(number, given)}: incomparable: {verdict.incomparable[:300]}")
    console.note(f"no finding: the passes leave {args.file}'s results unchanged "
                 f"({tried or '1 argument draw'})")
    return 0


def _which(number: int, given: bool) -> str:
    return "its own arguments" if given and number == 1 else f"draw {number - given}"


def _baseline(spec: str):
    import tvm

    from passfuzz.findings.known_bugs import BaselineError, load

    try:
        return load(spec, tvm.__version__)
    except BaselineError as exc:
        raise UsageError(f"--known-bugs: {exc}") from None
