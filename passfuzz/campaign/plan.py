"""The run plan: a fuzzing run's options, as typed values, checked and resolved into the engine's
configuration (``FuzzConfig``) before the first example: passes resolved with their prerequisites
and held against their contracts, pass arguments tried in a child, targets this machine runs, the
build, focus, the known-bug baseline and seeds loaded. The command line (passfuzz.cli.fuzz) turns
its arguments into ``RunOptions``; ``passfuzz reduce`` and the benchmarks build them directly.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from passfuzz.portable.timing import THRESHOLD as DEFAULT_THRESHOLD

if TYPE_CHECKING:  # the engine imports TVM; --help reads this module's defaults without it
    from .engine import FuzzConfig

DEFAULT_MAX_EXAMPLES = 200
DEFAULT_EMI = False  # benchmarks/emi.py: 0.57x the examples per second (README, Equivalence modulo inputs)
# benchmarks/throughput.py --levers: 7.2x-7.6x the checks an hour at 0.96x-1.01x the examples; benchmarks/focus.py:
# every planted bug found in about the same time (benchmarks/README.md, More arguments per compiled pair)
DEFAULT_ARGUMENT_DRAWS = 8
DEFAULT_PROBE_SECONDS = 30.0
PROBES = Path(".reach") / "probes"  # in the corpus: probe results, by the pass's identity
SEED_CACHE = Path(".seeds")  # in the corpus: what each seed file gave, by its content (passfuzz.campaign.seeds)


class PlanError(ValueError):
    """Options a run cannot start with; the message is one line, naming the option."""


@dataclass
class RunOptions:
    """What a fuzzing run is asked for: the command line's options, with its defaults."""

    passes: str | None = None  # P[,P...], "random", or None (a build path on its own)
    pass_pool: str | None = None
    max_passes: int = 4
    pipeline: str | None = None
    build: str = ""
    ops: str | None = None
    focus: str = "auto"
    seeds: str | None = None
    max_examples: int | None = None
    max_time: float | None = None
    strict_time: bool = False
    seed: int | None = None
    corpus: Path = Path("corpus")
    known_bugs: str = "default"
    targets: str | None = None
    exitfirst: bool = False
    workers: int = 1
    scheduler: str | None = None
    timeout: float = 60.0
    max_nodes: int = 10
    shrink_time: float = 10.0
    reduce_time: float = 50.0
    check_speed: bool = False
    probe_time: float = DEFAULT_PROBE_SECONDS
    min_fire_rate: str | None = None  # a fraction (0.01) or a percentage (1%)
    slowdown_threshold: float = DEFAULT_THRESHOLD
    no_print_round_trip: bool = False
    serialization_round_trip: bool = False
    no_pass_determinism: bool = False
    output_determinism: bool = False
    no_idempotence: bool = False
    no_missed_rewrites: bool = False
    argument_draws: int = DEFAULT_ARGUMENT_DRAWS
    emi: bool = DEFAULT_EMI
    always_compile_original: bool = False
    # Not a fuzzing option: no pass and no build of its own, TVM's plain build checked alone (what
    # `passfuzz reduce` checks a record blaming no pass with: a module only a later target fails on)
    plain_build: bool = False

    @classmethod
    def of(cls, namespace) -> "RunOptions":
        """The options an argument namespace holds (one attribute per field but ``plain_build``)."""
        return cls(**{f.name: getattr(namespace, f.name) for f in fields(cls) if f.name != "plain_build"})


def plan(args: RunOptions, note: Callable[[str], None] = lambda line: None) -> FuzzConfig:
    """The runs configuration from its options, checked: PlanError (one line) for anything the user
    must fix. ``note`` gets the lines a user is told before the run (warnings, what is left out)."""
    from .engine import FuzzConfig

    from passfuzz.findings.corpus import OUTSIDE_CONTRACT
    from passfuzz.findings.known_bugs import fault_names, known_set
    from passfuzz.ir.catalogue import BY_NAME, DTYPES
    from passfuzz.passes.catalogue import fuzzable_pool
    from passfuzz.passes.catalogue import info as pass_info
    from passfuzz.passes.catalogue import with_prerequisites
    from passfuzz.passes.contracts import generation, sequence_violation
    from passfuzz.passes.names import PassSpecError, resolve_list
    from passfuzz.reach.focus import FocusError, Probing
    from passfuzz.reach.focus import resolve as resolve_focus
    from passfuzz.run.builds import BuildError, parse_build
    from passfuzz.run.targets import GPU_KINDS, TargetError, drawable_dtypes, kind_of, parse_targets, unavailable_reason

    _check_numbers(args, ("max_examples", "workers", "max_nodes", "argument_draws"),
                   ("max_time", "timeout", "shrink_time", "reduce_time"))
    if args.scheduler is not None:
        _needs_extra("--scheduler", "distributed", ("dask", "distributed"), "Dask distributed")
        if args.workers != 1:
            raise PlanError("--workers is for this machine; with --scheduler every worker of the cluster fuzzes")
    if args.strict_time and args.max_time is None:
        raise PlanError("--strict-time bounds --max-time: give --max-time too")
    if args.slowdown_threshold <= 1:
        raise PlanError(f"--slowdown-threshold must be above 1 (a ratio optimized/original), "
                         f"got {args.slowdown_threshold:g}")
    if args.slowdown_threshold != DEFAULT_THRESHOLD and not args.check_speed:
        raise PlanError("--slowdown-threshold goes with --check-speed")
    if args.max_passes < 1:
        raise PlanError(f"--max-passes must be at least 1, got {args.max_passes}")
    try:
        requested = parse_targets(args.targets) if args.targets else None
    except TargetError as exc:
        raise PlanError(str(exc)) from None
    if args.pipeline == "llvm" and requested and any(kind_of(t) != "llvm" for t in requested):
        raise PlanError("--pipeline llvm needs llvm targets; use --pipeline target")
    spec = args.build
    if args.pipeline:  # --pipeline is short for one --build item
        spec += ",pipeline=" + ("default" if args.pipeline == "default" else "target")
    try:
        build = parse_build(spec)
    except BuildError as exc:
        raise PlanError(str(exc)) from None
    if build.tune is not None:
        _needs_extra("--build tune=N", "tune", TUNING_NEEDS)
    if build.codegen == "c" and unavailable_reason("c"):
        raise PlanError(f"--build codegen=c: {unavailable_reason('c')}")
    if args.passes is None and not build.text and not args.plain_build:
        raise PlanError("give --passes, or --build/--pipeline to fuzz a build path on its own")
    ops = None
    if args.ops:
        ops = [name.strip() for name in args.ops.split(",") if name.strip()]
        unknown = [name for name in ops if name not in BY_NAME or not BY_NAME[name].drawable]
        if unknown or not ops:
            raise PlanError(f"--ops: unknown or not drawable: {', '.join(unknown) or '(none given)'} "
                             "(`passfuzz ops` lists the catalogue)")
    passes, pool, named = None, [], None
    try:
        if args.passes is None:
            passes, named = [], []
        elif args.passes.strip() == "random":
            pool = [spec.text for spec in resolve_list(args.pass_pool)] if args.pass_pool else fuzzable_pool()
        else:
            named = resolve_list(args.passes)
            for spec in named:
                if pass_info(spec).skip:
                    note(f"warning: {spec.name} is not fuzzable here: {pass_info(spec).skip}")
            passes = with_prerequisites(named)
            for line in partner_lines(passes):
                note(line)
            if len(passes) > len(named):
                note("running prerequisites as well: " + ",".join(p.text for p in passes))
            broken = sequence_violation(passes)
            if broken:
                note(f"warning: outside the pass contracts: {broken}; what this run finds is saved "
                             f"apart in {args.corpus / OUTSIDE_CONTRACT} and never counted as a bug")
    except PassSpecError as exc:
        raise PlanError(str(exc)) from None
    try:  # a --focus naming no op is refused now; custom passes are probed once the corpus is checked
        resolve_focus(args.focus, named, pool)
    except FocusError as exc:
        raise PlanError(str(exc)) from None
    min_fire_rate = fire_rate_floor(args.min_fire_rate) if args.min_fire_rate is not None else None
    if args.probe_time < 0:
        raise PlanError(f"--probe-time must be 0 or more, got {args.probe_time:g}")
    from passfuzz.judge.gradient import involved, loss_ops
    from passfuzz.run.speed import SpeedCheck
    if passes and involved(passes) and not loss_ops(ops):
        raise PlanError("--ops: Gradient needs at least one smooth op with a registered gradient: "
                         + ",".join(loss_ops()))
    targets = runnable_targets(requested, note)
    if "c" in map(kind_of, targets) and (build.pipeline == "target" or build.exec_mode == "compiled"):
        # as for --build codegen=c (builds.parse_build): TVM cannot compile these for the c target
        raise PlanError("the c target takes neither pipeline=target (TVM has no default pipeline for it) nor "
                         "exec-mode=compiled (gcc rejects the generated VM code)")
    if build.dlight is not None and not any(kind_of(target) in GPU_KINDS for target in targets):
        raise PlanError("--build dlight=random schedules GPU kernels, and no GPU target runs here "
                         f"(targets: {', '.join(targets)})")
    if build.tune is not None and "llvm" not in map(kind_of, targets):
        raise PlanError(f"--build tune=N tunes for llvm, which is not among the targets ({', '.join(targets)})")
    _check_arguments(named or [], "--passes", targets, args.timeout)
    if args.pass_pool:
        _check_arguments(resolve_list(args.pass_pool), "--pass-pool", targets, args.timeout)
    kept = generation(passes or [])
    dtypes = kept.dtypes
    if kept.left_out or not kept.match_cast:
        note("drawing no " + " and no ".join([*kept.left_out, *([] if kept.match_cast else ["match_cast"])])
                     + ": the named passes' contracts do not accept them")
    if drawable_dtypes(targets, DTYPES) != DTYPES:
        dtypes = drawable_dtypes(targets, dtypes or DTYPES)
        note(f"drawing {','.join(dtypes)} only: a target cannot compute the others")
    known = checked_corpus_and_baseline(args.corpus, args.known_bugs, note)
    seeds = seed_programs(args.seeds, passes, dtypes, kept.left_out, note, args.workers,
                          args.corpus / SEED_CACHE, gpu=any(kind_of(t) in GPU_KINDS for t in targets)) \
        if args.seeds else ()
    # Last, once every option holds: the probe's cache is the first thing written into the corpus.
    probing = Probing(budget=args.probe_time, cache=args.corpus / PROBES, match_cast=kept.match_cast,
                      dtypes=tuple(dtypes or ()), ops=allowed_ops(ops, kept.left_out))
    plan = resolve_focus(args.focus, named, pool, probing)
    focus, focus_reason = list(plan.ops), plan.reason
    if ops and set(focus) - set(ops):
        focus_reason += f"; outside --ops, left out: {','.join(f for f in focus if f not in ops)}"
        focus = [f for f in focus if f in ops]
    max_examples = args.max_examples
    if max_examples is None and args.max_time is None:
        max_examples = DEFAULT_MAX_EXAMPLES
    return FuzzConfig(passes=passes, targets=targets, corpus_dir=args.corpus, max_examples=max_examples,
                      max_time=args.max_time, seed=args.seed, exitfirst=args.exitfirst, timeout=args.timeout,
                      shrink_seconds=args.shrink_time, reduce_seconds=args.reduce_time, max_nodes=args.max_nodes,
                      shrink_grace=0.0 if args.strict_time else FuzzConfig.shrink_grace,
                      pass_pool=pool, max_passes=args.max_passes, build=build, ops=ops,
                      known_bugs=known_set(known), fault_names=fault_names(known, args.corpus), dtypes=dtypes,
                      focus=tuple(focus), focus_reason=focus_reason, focus_constants=plan.constants,
                      focus_dtypes=tuple(d for d in plan.dtypes if d in (dtypes or DTYPES)),
                      focus_feeds=tuple(f for f in plan.feeds if {f[0], f[1]} <= set(focus)),
                      left_out=kept.left_out, match_cast=kept.match_cast,
                      motifs_for=() if args.focus == "none" else tuple(spec.name for spec in named or []),
                      named=tuple(spec.text for spec in named or []), min_fire_rate=min_fire_rate,
                      probe_time=args.probe_time, replan=args.focus == "auto" and args.probe_time > 0,
                      seeds=seeds, keep_behaviours=bool(named), argument_draws=args.argument_draws, emi=args.emi,
                      exact_first=not args.always_compile_original,
                      speed=SpeedCheck(threshold=args.slowdown_threshold) if args.check_speed else None,
                      boundaries=boundary_checks(args))


def _check_numbers(args: RunOptions, counts: tuple[str, ...], durations: tuple[str, ...]) -> None:
    """PlanError (one line) for a count below 1 or a duration not positive; None means not given."""
    for name in counts:
        value = getattr(args, name)
        if value is not None and value < 1:
            raise PlanError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    for name in durations:
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise PlanError(f"--{name.replace('_', '-')} must be positive, got {value:g}")


def runnable_targets(requested: list[str] | None, note: Callable[[str], None]) -> list[str]:
    """The targets asked for (``parse_targets``) that run here, each one skipped said in a line; with
    none asked for, every target this machine runs. PlanError when none is left."""
    from passfuzz.run.targets import default_targets, unavailable_reason

    if not requested:
        targets = default_targets()
        if not targets:
            raise PlanError("this TVM build can run no target on this machine")
        return targets
    targets = []
    for target in requested:
        reason = unavailable_reason(target)
        if reason is None:
            targets.append(target)
        else:
            note(f"skipping target {target}: {reason}")
    if not targets:
        raise PlanError(f"none of the requested targets can run on this machine ({len(requested)} skipped)")
    return targets


def checked_corpus_and_baseline(corpus: Path, known_bugs: str, note: Callable[[str], None]):
    """The known-bug baseline ``--known-bugs`` names, once ``--corpus`` is known to be writable (its
    malformed records said in a line each); PlanError otherwise."""
    import tvm

    from passfuzz.findings.corpus import malformed
    from passfuzz.findings.known_bugs import BaselineError, load

    _check_corpus(corpus)
    for why in malformed(corpus):  # said once; such a record makes no bug known
        note(f"warning: skipping a malformed record in --corpus: {' '.join(why.split())}")
    try:
        known = load(known_bugs, tvm.__version__)
    except BaselineError as exc:
        raise PlanError(f"--known-bugs: {exc}") from None
    if known_bugs == "default" and not known:
        note(f"no known-bug baseline for TVM {tvm.__version__}: only {corpus}'s bugs count as known")
    return known


def as_it_is(args: RunOptions, note: Callable[[str], None] = lambda line: None) -> FuzzConfig:
    """The configuration that checks given Programs as they are (``passfuzz check-tests``): fuzzing's
    targets, timeout, known bugs, corpus, reduction, argument draws and boundary oracles; the passes
    come with each Program, and nothing is drawn. PlanError (one line) for anything to fix."""
    from passfuzz.findings.known_bugs import fault_names, known_set
    from passfuzz.run.targets import TargetError, parse_targets

    from .engine import FuzzConfig

    _check_numbers(args, ("workers", "argument_draws"), ("max_time", "timeout", "reduce_time"))
    try:
        requested = parse_targets(args.targets) if args.targets else None
    except TargetError as exc:
        raise PlanError(str(exc)) from None
    targets = runnable_targets(requested, note)
    known = checked_corpus_and_baseline(args.corpus, args.known_bugs, note)
    return FuzzConfig(passes=None, targets=targets, corpus_dir=args.corpus, max_time=args.max_time, seed=args.seed,
                      timeout=args.timeout, reduce_seconds=args.reduce_time, known_bugs=known_set(known),
                      fault_names=fault_names(known, args.corpus), argument_draws=args.argument_draws,
                      boundaries=boundary_checks(args))


def boundary_checks(args: RunOptions):
    """The oracles at every pass boundary the options ask for (passfuzz.judge.boundaries)."""
    from passfuzz.judge.boundaries import BoundaryChecks

    return BoundaryChecks(print_round_trip=not args.no_print_round_trip, json_round_trip=args.serialization_round_trip,
                          same_passes=not args.no_pass_determinism, same_outputs=args.output_determinism,
                          idempotence=not args.no_idempotence, missed_rewrites=not args.no_missed_rewrites)


def partner_lines(passes) -> list[str]:
    """One line per pass fuzzed in the pipeline position its users give it, right after the
    partner pass that makes its input (passfuzz.passes.catalogue: ``PassInfo.partner``)."""
    from passfuzz.passes.catalogue import info

    lines = []
    for i, spec in enumerate(passes):
        partner = info(spec).partner
        before = [p for p in passes[:i] if p.name in info(spec).requires]
        if partner and before:
            lines.append(f"{spec.name} runs {partner}: after {before[-1].python_expr()}")
    return lines


def allowed_ops(ops, left_out) -> tuple[str, ...]:
    """The ops a run may draw: --ops (or all), less those the contracts leave out; () for all."""
    if not ops and not left_out:
        return ()
    from passfuzz.ir.catalogue import OPS

    return tuple(op.name for op in OPS if (not ops or op.name in ops) and op.name not in (left_out or ()))


def with_kept_behaviours(config: FuzzConfig, note: Callable[[str], None] = lambda line: None) -> FuzzConfig:
    """``config`` with the behaviour corpus's programs for its named passes (passfuzz.reach.behaviours),
    within the run's dtypes and contracts, for a share of examples to mutate; one line says how
    many. For a new run only: a resumed one mutates those its run directory kept."""
    from passfuzz.judge.gradient import involved

    if not config.named or (config.passes and involved(config.passes)):
        return config
    return dataclasses.replace(config, behaviours=_kept_behaviours(config.corpus_dir, config.named, config.dtypes,
                                                                   config.left_out, config.ops, note))


def _kept_behaviours(corpus: Path, named, dtypes, left_out, ops, note: Callable[[str], None]) -> tuple:
    from passfuzz.ir.catalogue import OPS
    from passfuzz.reach.behaviours import DIRECTORY, BehaviourStore

    from .seeds import Seed, SeedSet

    found = BehaviourStore(corpus).load(named)
    if not found:
        return ()
    kept = SeedSet([Seed(name, program) for name, program in found.items()])
    if dtypes:
        kept = kept.within_dtypes(dtypes)
    if left_out:
        kept = kept.without_ops(left_out)
    if ops:  # --ops: kept programs holding another op are not what the run asked for
        kept = kept.without_ops([op.name for op in OPS if op.name not in ops and op.name != "const"])
    if kept.programs:
        note(f"behaviours: {len(kept.programs)} kept in {corpus / DIRECTORY} for these passes, which a share of "
             "the examples mutates")
    return tuple(kept.programs)


def fire_rate_floor(text: str) -> float:
    """--min-fire-rate: a fraction (0.01) or a percentage (1%), between 0 and 1."""
    try:
        value = float(text[:-1]) / 100 if text.strip().endswith("%") else float(text)
    except ValueError:
        raise PlanError(f"--min-fire-rate takes a fraction (0.01) or a percentage (1%), got {text!r}") from None
    if not 0 <= value <= 1:
        raise PlanError(f"--min-fire-rate must be between 0 and 1 (0% and 100%), got {text!r}")
    return value


def seed_programs(text: str, passes, dtypes, left_out, note: Callable[[str], None], workers: int = 1,
                  cache: Path | None = None, gpu: bool = False) -> tuple:
    """--seeds: the Programs found and imported (``workers`` files at a time, through ``cache``),
    after one line saying how many; PlanError when no path exists or no seed can be imported.
    Seeds outside ``dtypes`` or holding an op of ``left_out`` are rejected, as drawn programs avoid
    them, and so are those holding a kernel bound to GPU threads unless a target is a ``gpu``."""
    from .seeds import SeedError, find_seeds, seed_files, seed_paths
    from passfuzz.judge.gradient import involved

    if passes and involved(passes):
        raise PlanError("--seeds: Gradient differentiates loss programs drawn for it, which seeds are not")
    try:
        paths = seed_paths(text)
        scripts = sum(file.suffix == ".py" for file, _ in seed_files(paths))
        if scripts:
            note(f"seeds: executing {scripts} Python file(s), each in a child process, {workers} at a time, "
                 f"unless {cache} holds what they gave")
        found = find_seeds(paths, workers=workers, cache=cache)
    except SeedError as exc:
        raise PlanError(str(exc)) from None
    for warning in found.warnings:
        note(f"warning: seeds: {warning}")
    if dtypes:
        found = found.within_dtypes(dtypes)
    if left_out:
        found = found.without_ops(left_out)
    if not gpu:
        found = found.without_gpu_kernels()
    note(f"seeds: {found.summary()}")
    if not found.programs:
        raise PlanError(f"--seeds: no seed could be imported ({found.summary()})")
    return tuple(found.programs)


# What MetaSchedule's tuning imports, beyond TVM's own requirements: its LocalRunner's pool of
# workers (tvm.support.popen_pool) pickles with cloudpickle and counts cores and ends its workers
# with psutil (as does TuneContext). pyproject.toml's `tune` extra lists them.
TUNING_NEEDS = ("psutil", "cloudpickle")


def _needs_extra(option: str, extra: str, modules: tuple[str, ...], called: str = "") -> None:
    """PlanError naming the extra to install when a module ``option`` needs is missing: found
    now (``find_spec`` imports nothing), not as a failure of every example. ``called``: what to
    call the missing modules (default: their names)."""
    from importlib.util import find_spec

    missing = [name for name in modules if find_spec(name) is None]
    if missing:
        raise PlanError(f"{option} needs {called or ' and '.join(missing)}, not installed: "
                        f"pip install \"passfuzz[{extra}]\" "
                        f"(from a checkout: pip install \".[{extra}]\")")


def _check_corpus(corpus: Path) -> None:
    """PlanError unless ``corpus`` is a writable directory or can be created. A corpus that does
    not exist is created to be sure, and removed again: the run creates it once every option has
    been checked (a usage error leaves no directory behind)."""
    if corpus.exists():
        if not corpus.is_dir():
            raise PlanError(f"--corpus {corpus} is not a directory")
        if not os.access(corpus, os.W_OK):
            raise PlanError(f"--corpus {corpus} is not writable")
        return
    missing = [path for path in (corpus, *corpus.parents) if not path.exists()]  # the deepest first
    try:  # fail now, not at the first finding
        corpus.mkdir(parents=True)
    except OSError as exc:
        raise PlanError(f"cannot create --corpus {corpus}: {exc.strerror}") from None
    finally:
        for path in missing:
            try:
                path.rmdir()
            except OSError:  # not created (mkdir failed below it), or no longer empty
                continue


# A pass whose arguments TVM takes runs a tiny module in well under a second; a hang there is the
# fuzzer's to report, not worth the whole --timeout before the run starts.
ARGUMENT_CHECK_TIMEOUT = 20.0


def _check_arguments(specs, option: str, targets: list[str], timeout: float) -> None:
    """PlanError for a pass whose arguments TVM rejects (passfuzz.campaign.pass_arguments)."""
    from .pass_arguments import rejection

    for spec in specs:
        refused = rejection(spec, targets, min(timeout, ARGUMENT_CHECK_TIMEOUT))
        if refused:
            raise PlanError(f"{option}: {spec.text}: TVM rejects it: {refused}")
