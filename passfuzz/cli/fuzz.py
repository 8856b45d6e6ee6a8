"""``passfuzz --passes P[,P...]``: generate programs, apply the passes, compare, shrink, save."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import random
from pathlib import Path

from passfuzz.portable.timing import THRESHOLD as DEFAULT_THRESHOLD  # numpy only: the help needs no TVM

from . import Parser, UsageError
from .output import Console

DEFAULT_MAX_EXAMPLES = 200


def parser() -> argparse.ArgumentParser:
    from passfuzz.campaign.engine import FuzzConfig

    p = Parser(
        prog="passfuzz",
        description="Fuzz TVM Relax passes: generate random well-typed Relax programs, apply the passes, "
                    "compile and run the original and the optimized module on each target, and shrink every "
                    "divergence (wrong result, crash, hang, ill-formed IR, compile error) into a minimal "
                    "reproducer saved to the corpus. `passfuzz replay` re-checks saved reproducers.",
        epilog="Exit status: 0 no new finding, 1 at least one new finding that blames a named pass (or build), 2 "
               "usage or input error. New bugs of TVM's plain build (a reference mismatch) are saved and listed "
               "apart and do not change the status. "
               "Without --max-examples or --max-time, runs %d examples." % DEFAULT_MAX_EXAMPLES)
    p.add_argument("--passes", metavar="P[,P...]",
                   help="comma-separated passes applied in order: names in tvm.relax.transform "
                        "(e.g. FoldConstant), with arguments as Python literals where needed "
                        "(ToMixedPrecision(out_dtype=float16)), or module.path:attr naming a tvm.transform.Pass "
                        "or a callable returning one. Prerequisites a pass needs (LegalizeOps before FuseOps, ...) "
                        "are inserted; `passfuzz passes` lists what is known of each pass. `random` draws a "
                        "sequence for every example from --pass-pool; a failing sequence shrinks to the fewest "
                        "passes that still fail, and the finding names the first bad pass. A pass given arguments "
                        "is first run on a few tiny modules: arguments TVM rejects there are a usage error. "
                        "Required unless --build or --pipeline gives something else to compare")
    p.add_argument("--pass-pool", metavar="P[,P...]",
                   help="with --passes random: the passes to draw from (default: every pass `passfuzz passes` "
                        "marks fuzzable)")
    p.add_argument("--max-passes", type=int, default=4, metavar="N",
                   help="with --passes random: most passes in one drawn sequence (default 4)")
    p.add_argument("--pipeline", choices=["default", "target", "llvm"],
                   help="Relax pipeline that compiles the optimized side, after the passes: default (tvm.compile's, "
                        "as the original), or target: the target's own default pipeline "
                        "(relax.get_default_pipeline, which fuses); llvm is the same as target with llvm targets. "
                        "Short for --build pipeline=...")
    p.add_argument("--build", default="", metavar="SPEC",
                   help="how the optimized side is compiled, while the original always uses the plain build "
                        "(llvm, default pipeline, bytecode VM, in memory): comma-separated of pipeline=default|target, "
                        "opt-level=0..3, mcpu=host|NAME (llvm), codegen=c (the C codegen for llvm targets), "
                        "exec-mode=compiled (VM bytecode compiled to native code), export (export_library and load "
                        "back). E.g. --build exec-mode=compiled,export; with no --passes, the build alone is fuzzed")
    p.add_argument("--ops", metavar="OP[,OP...]",
                   help="draw programs from these ops only (names as `passfuzz ops` lists them; default: all)")
    p.add_argument("--focus", default="auto", metavar="auto|none|OP[,OP...]",
                   help="the ops most programs are built around, each wired to the one before it (feeding it at "
                        "each operand, sharing an operand with it, one value read twice), the rest of the catalogue "
                        "drawn at a lower rate: auto (default) takes the ops the named passes match (`passfuzz "
                        "passes` lists them for TVM's passes; for your own pass, the Relax ops its Python source "
                        "names, and how its patterns nest them, else those a quick probe finds it changes); no focus when every pass looks at every "
                        "op (FoldConstant) or with --passes random; none; or ops as `passfuzz ops` lists them. Unless none, the "
                        "motifs built for the named passes (the patterns they rewrite, in every form they branch on) "
                        "are drawn more often than the others")
    p.add_argument("--seeds", metavar="PATH[,PATH...]",
                   help="draw half the programs as mutations of existing modules, the other half from scratch: "
                        "Python/TVMScript files or directories (searched recursively) in which every tvm.IRModule "
                        "defined at module level, inside a class (as TVM's tests write `class TestX: class Before / "
                        "class Expected`) or inside an argument-less test function is imported, and corpus .json "
                        "records. Files are executed, each in a child process, as modules (not under pytest); their "
                        "test functions are called until they first apply a pass. A seeded example is a seed after "
                        "a few mutations (shapes, dtypes, attributes; ops inserted, deleted, replaced; subgraphs "
                        "spliced in from other seeds), which shrink back to the unmutated seed; --ops and the "
                        "dtypes limit what mutations add. Glob patterns are matched: "
                        "--seeds '~/tvm/tests/python/relax/test_transform_*.py'")
    p.add_argument("--max-examples", type=int, metavar="N",
                   help="stop after N generated examples (shrinking runs are not counted)")
    p.add_argument("--max-time", type=float, metavar="SECONDS",
                   help="stop generating after SECONDS; findings seen by then are still shrunk and reduced, for "
                        "up to %d s more (the run's first line says when it ends at the latest)"
                        % FuzzConfig.shrink_grace)
    p.add_argument("--strict-time", action="store_true",
                   help="with --max-time: end the whole run within SECONDS (give or take the example in "
                        "progress): shrinking and reduction stop then, and each finding is saved as far as it "
                        "was shrunk")
    p.add_argument("--seed", type=int, metavar="N", help="seed of the run: the same seed generates the same examples")
    p.add_argument("--corpus", type=Path, default=Path("corpus"), metavar="DIR",
                   help="where findings are saved and known bugs are read from (default: ./corpus); findings of "
                        "passes run outside their contracts go to DIR/outside-contract/")
    p.add_argument("--known-bugs", default="default", metavar="default|none|PATH",
                   help="TVM bugs that never count as new, besides those in --corpus: default, the baseline "
                        "passfuzz ships for the installed TVM release (`passfuzz known` lists it); none; or a "
                        "baseline file or corpus directory")
    p.add_argument("--targets", metavar="T[,T...]",
                   help="comma-separated targets to compile and run on: a kind (llvm, c, cuda, rocm, vulkan, opencl, "
                        "metal) with options as -name=value, e.g. --targets 'llvm,llvm -mcpu=skylake -opt-level=0,"
                        "cuda -arch=sm_80'; a list option takes commas too (-mattr=+avx2,+fma): a comma starts a new "
                        "target only before a kind. Default: every target this machine can run (not c). A target "
                        "that cannot run here (no runtime in this TVM build, no device, a CPU without the "
                        "instructions -mcpu needs) is skipped with the reason. With two or more, outputs are also "
                        "compared across targets (a target-mismatch finding). GPU sides run in children of a "
                        "fork server that never touches a device, since CUDA breaks in children forked after its "
                        "initialisation")
    p.add_argument("-x", "--exitfirst", action="store_true",
                   help="stop after the first new finding has been shrunk and saved")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="fuzzing processes on this machine (default 1); they share the corpus")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="fuzz on the workers of this Dask distributed cluster instead, one fuzzer per worker process "
                        "(start workers with --nthreads 1); findings come back here and are written to --corpus. "
                        "Needs the extra: pip install \"passfuzz[distributed]\"")
    p.add_argument("--resume", type=Path, metavar="RUN_DIR",
                   help="continue a run stopped by Ctrl-C or killed: every run keeps its arguments, its position "
                        "in the seed stream (per worker), its statistics and its findings in progress in a run "
                        "directory, by default CORPUS/.runs/<UTC time>-<suffix>/, printed when it starts. The "
                        "resumed run skips the rounds already done, counts the bugs it saved as known, reduces a "
                        "finding whose shrinking was cut off from its simplest example saved, and runs within what "
                        "is left of --max-examples and --max-time. Takes no other option: the run's own are used")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="time limit for building, optimizing, compiling and running one side of one example; "
                        "past it the side counts as hung (default 60)")
    p.add_argument("--max-nodes", type=int, default=10, metavar="N",
                   help="most ops drawn per program, helper nodes aside (default 10)")
    p.add_argument("--shrink-time", type=float, default=10.0, metavar="SECONDS",
                   help="time for Hypothesis' shrinking of each new finding, before its reduction (default 10)")
    p.add_argument("--reduce-time", type=float, default=50.0, metavar="SECONDS",
                   help="time for reducing each finding's passes and program after Hypothesis has shrunk it "
                        "(default 50)")
    p.add_argument("--check-speed", action="store_true",
                   help="also report optimizations that make a module slower (a slowdown finding): when both sides "
                        "ran and matched and the passes changed the module (or --build differs), compile both in "
                        "one process and time "
                        "them interleaved (A B, B A, ...) until the ratio optimized/original is known with 99%% "
                        "confidence or 2 s per target have passed; a slowdown is saved when the ratio's lower "
                        "confidence bound exceeds --slowdown-threshold. Off by default: timing costs up to 2 s per "
                        "changed example and target")
    p.add_argument("--slowdown-threshold", type=float, default=DEFAULT_THRESHOLD, metavar="X",
                   help="with --check-speed: how many times slower the optimized module must be, beyond timing "
                        "noise, to be a slowdown (default %g)" % DEFAULT_THRESHOLD)
    return p


def config_from(args: argparse.Namespace, console: Console):
    """Validate the arguments into a FuzzConfig; UsageError for anything the user must fix."""
    import tvm

    from passfuzz.campaign.engine import FuzzConfig
    from passfuzz.findings.corpus import OUTSIDE_CONTRACT, malformed
    from passfuzz.findings.known_bugs import BaselineError, known_set, load
    from passfuzz.ir.catalogue import BY_NAME, DTYPES
    from passfuzz.passes.catalogue import fuzzable_pool
    from passfuzz.passes.catalogue import info as pass_info
    from passfuzz.passes.catalogue import with_prerequisites
    from passfuzz.passes.contracts import generation, sequence_violation
    from passfuzz.passes.names import PassSpecError, resolve_list
    from passfuzz.reach.focus import FocusError
    from passfuzz.reach.focus import resolve as resolve_focus
    from passfuzz.run.builds import BuildError, parse_build
    from passfuzz.run.targets import (
        GPU_KINDS,
        TargetError,
        default_targets,
        drawable_dtypes,
        kind_of,
        parse_targets,
        unavailable_reason,
    )

    for name in ("max_examples", "workers", "max_nodes"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    for name in ("max_time", "timeout", "shrink_time", "reduce_time"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be positive, got {value:g}")
    if args.scheduler is not None:
        from passfuzz.campaign.cluster import available
        if not available():
            raise UsageError('--scheduler needs Dask distributed: pip install "passfuzz[distributed]" '
                             '(from a checkout: pip install ".[distributed]")')
        if args.workers != 1:
            raise UsageError("--workers is for this machine; with --scheduler every worker of the cluster fuzzes")
    if args.strict_time and args.max_time is None:
        raise UsageError("--strict-time bounds --max-time: give --max-time too")
    if args.slowdown_threshold <= 1:
        raise UsageError(f"--slowdown-threshold must be above 1 (a ratio optimized/original), "
                         f"got {args.slowdown_threshold:g}")
    if args.slowdown_threshold != DEFAULT_THRESHOLD and not args.check_speed:
        raise UsageError("--slowdown-threshold goes with --check-speed")
    if args.max_passes < 1:
        raise UsageError(f"--max-passes must be at least 1, got {args.max_passes}")
    try:
        requested = parse_targets(args.targets) if args.targets else None
    except TargetError as exc:
        raise UsageError(str(exc)) from None
    if args.pipeline == "llvm" and requested and any(kind_of(t) != "llvm" for t in requested):
        raise UsageError("--pipeline llvm needs llvm targets; use --pipeline target")
    spec = args.build
    if args.pipeline:  # --pipeline is short for one --build item
        spec += ",pipeline=" + ("default" if args.pipeline == "default" else "target")
    try:
        build = parse_build(spec)
    except BuildError as exc:
        raise UsageError(str(exc)) from None
    if build.codegen == "c" and unavailable_reason("c"):
        raise UsageError(f"--build codegen=c: {unavailable_reason('c')}")
    if args.passes is None and not build.text:
        raise UsageError("give --passes, or --build/--pipeline to fuzz a build path on its own")
    ops = None
    if args.ops:
        ops = [name.strip() for name in args.ops.split(",") if name.strip()]
        unknown = [name for name in ops if name not in BY_NAME or BY_NAME[name].propose is None]
        if unknown or not ops:
            raise UsageError(f"--ops: unknown or not drawable: {', '.join(unknown) or '(none given)'} "
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
                    console.note(f"warning: {spec.name} is not fuzzable here: {pass_info(spec).skip}")
            passes = with_prerequisites(named)
            if len(passes) > len(named):
                console.note("running prerequisites as well: " + ",".join(p.text for p in passes))
            broken = sequence_violation(passes)
            if broken:
                console.note(f"warning: outside the pass contracts: {broken}; what this run finds is saved "
                             f"apart in {args.corpus / OUTSIDE_CONTRACT} and never counted as a bug")
    except PassSpecError as exc:
        raise UsageError(str(exc)) from None
    try:
        plan = resolve_focus(args.focus, named, pool)
    except FocusError as exc:
        raise UsageError(str(exc)) from None
    focus, focus_reason = list(plan.ops), plan.reason
    if ops and set(focus) - set(ops):
        focus_reason += f"; outside --ops, left out: {','.join(f for f in focus if f not in ops)}"
        focus = [f for f in focus if f in ops]
    from passfuzz.judge.gradient import involved, loss_ops
    from passfuzz.run.speed import SpeedCheck
    if passes and involved(passes) and not loss_ops(ops):
        raise UsageError("--ops: Gradient needs at least one smooth op with a registered gradient: "
                         + ",".join(loss_ops()))
    if requested:
        targets = []
        for target in requested:
            reason = unavailable_reason(target)
            if reason is None:
                targets.append(target)
            else:
                console.note(f"skipping target {target}: {reason}")
        if not targets:
            raise UsageError(f"none of the requested targets can run on this machine ({len(requested)} skipped)")
    else:
        targets = default_targets()
        if not targets:
            raise UsageError("this TVM build can run no target on this machine")
    if "c" in map(kind_of, targets) and (build.pipeline == "target" or build.exec_mode == "compiled"):
        # as for --build codegen=c (builds.parse_build): TVM cannot compile these for the c target
        raise UsageError("the c target takes neither pipeline=target (TVM has no default pipeline for it) nor "
                         "exec-mode=compiled (gcc rejects the generated VM code)")
    if build.dlight is not None and not any(kind_of(target) in GPU_KINDS for target in targets):
        raise UsageError("--build dlight=random schedules GPU kernels, and no GPU target runs here "
                         f"(targets: {', '.join(targets)})")
    if build.tune is not None and "llvm" not in map(kind_of, targets):
        raise UsageError(f"--build tune=N tunes for llvm, which is not among the targets ({', '.join(targets)})")
    _check_arguments(named or [], "--passes", targets, args.timeout)
    if args.pass_pool:
        _check_arguments(resolve_list(args.pass_pool), "--pass-pool", targets, args.timeout)
    kept = generation(passes or [])
    dtypes = kept.dtypes
    if kept.left_out or not kept.match_cast:
        console.note("drawing no " + " and no ".join([*kept.left_out, *([] if kept.match_cast else ["match_cast"])])
                     + ": the named passes' contracts do not accept them")
    if drawable_dtypes(targets, DTYPES) != DTYPES:
        dtypes = drawable_dtypes(targets, dtypes or DTYPES)
        console.note(f"drawing {','.join(dtypes)} only: a target cannot compute the others")
    if args.corpus.exists() and not args.corpus.is_dir():
        raise UsageError(f"--corpus {args.corpus} is not a directory")
    try:  # fail now, not at the first finding
        args.corpus.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create --corpus {args.corpus}: {exc.strerror}") from None
    if not os.access(args.corpus, os.W_OK):
        raise UsageError(f"--corpus {args.corpus} is not writable")
    for why in malformed(args.corpus):  # said once; such a record makes no bug known
        console.note(f"warning: skipping a malformed record in --corpus: {' '.join(why.split())}")
    try:
        known = load(args.known_bugs, tvm.__version__)
    except BaselineError as exc:
        raise UsageError(f"--known-bugs: {exc}") from None
    if args.known_bugs == "default" and not known:
        console.note(f"no known-bug baseline for TVM {tvm.__version__}: only {args.corpus}'s bugs count as known")
    seeds = seed_programs(args.seeds, passes, dtypes, kept.left_out, console) if args.seeds else ()
    max_examples = args.max_examples
    if max_examples is None and args.max_time is None:
        max_examples = DEFAULT_MAX_EXAMPLES
    return FuzzConfig(passes=passes, targets=targets, corpus_dir=args.corpus, max_examples=max_examples,
                      max_time=args.max_time, seed=args.seed, exitfirst=args.exitfirst, timeout=args.timeout,
                      shrink_seconds=args.shrink_time, reduce_seconds=args.reduce_time, max_nodes=args.max_nodes,
                      shrink_grace=0.0 if args.strict_time else FuzzConfig.shrink_grace,
                      pass_pool=pool, max_passes=args.max_passes, build=build, ops=ops,
                      known_bugs=known_set(known), dtypes=dtypes,
                      focus=tuple(focus), focus_reason=focus_reason, focus_constants=plan.constants,
                      focus_dtypes=tuple(d for d in plan.dtypes if d in (dtypes or DTYPES)),
                      focus_feeds=tuple(f for f in plan.feeds if {f[0], f[1]} <= set(focus)),
                      left_out=kept.left_out, match_cast=kept.match_cast,
                      motifs_for=() if args.focus == "none" else tuple(spec.name for spec in named or []),
                      seeds=seeds,
                      speed=SpeedCheck(threshold=args.slowdown_threshold) if args.check_speed else None)


def seed_programs(text: str, passes, dtypes, left_out, console: Console) -> tuple:
    """--seeds: the Programs found and imported, after one line saying how many; UsageError when
    no path exists or no seed can be imported. Seeds outside ``dtypes`` or holding an op of
    ``left_out`` are rejected, as drawn programs avoid them."""
    from passfuzz.campaign.seeds import SeedError, find_seeds, seed_files, seed_paths
    from passfuzz.judge.gradient import involved

    if passes and involved(passes):
        raise UsageError("--seeds: Gradient differentiates loss programs drawn for it, which seeds are not")
    try:
        paths = seed_paths(text)
        scripts = sum(file.suffix == ".py" for file, _ in seed_files(paths))
        if scripts:
            console.note(f"seeds: executing {scripts} Python file(s), each in a child process")
        found = find_seeds(paths)
    except SeedError as exc:
        raise UsageError(str(exc)) from None
    for warning in found.warnings:
        console.note(f"warning: seeds: {warning}")
    if dtypes:
        found = found.within_dtypes(dtypes)
    if left_out:
        found = found.without_ops(left_out)
    console.note(f"seeds: {found.summary()}")
    if not found.programs:
        raise UsageError(f"--seeds: no seed could be imported ({found.summary()})")
    return tuple(found.programs)


# A pass whose arguments TVM takes runs a tiny module in well under a second; a hang there is the
# fuzzer's to report, not worth the whole --timeout before the run starts.
ARGUMENT_CHECK_TIMEOUT = 20.0


def _check_arguments(specs, option: str, targets: list[str], timeout: float) -> None:
    """UsageError for a pass whose arguments TVM rejects (passfuzz.campaign.pass_arguments)."""
    from passfuzz.campaign.pass_arguments import rejection

    for spec in specs:
        refused = rejection(spec, targets, min(timeout, ARGUMENT_CHECK_TIMEOUT))
        if refused:
            raise UsageError(f"{option}: {spec.text}: TVM rejects it: {refused}")


def run(args: argparse.Namespace) -> int:
    console = Console()
    run_dir = args.resume
    if run_dir is not None:
        args = resumed_arguments(run_dir, args)
    config = config_from(args, console)
    with _cluster(args.scheduler) as cluster:  # checked before the run directory exists
        return _fuzz(args, config, run_dir, cluster, console)


@contextlib.contextmanager
def _cluster(address: str | None):
    """--scheduler: the connected cluster, its workers running this passfuzz and TVM, closed at
    the end; UsageError in one line otherwise. None without --scheduler."""
    if address is None:
        yield None
        return
    from passfuzz.campaign.cluster import ClusterError, connect

    try:
        cluster = connect(address)
    except ClusterError as exc:
        raise UsageError(str(exc)) from None
    try:
        yield cluster
    finally:
        cluster.close()


def _fuzz(args: argparse.Namespace, config, run_dir: Path | None, cluster, console: Console) -> int:
    from passfuzz.campaign import runs
    from passfuzz.campaign.events import Event
    from passfuzz.campaign.parallel import fuzz_in_workers
    from passfuzz.campaign.run_log import LOG_NAME, RunLog
    from passfuzz.findings import corpus

    if run_dir is None:
        if args.seed is None:  # drawn here, so that the run directory can repeat it
            args.seed = random.SystemRandom().randrange(2**32)
        run_dir = runs.new_run_dir(args.corpus)
        runs.write_arguments(run_dir, {"cwd": os.getcwd(), "options": _stored(args)})
    else:
        run_dir = run_dir.resolve()
        console.note(f"resuming the run in {run_dir}: {_position(run_dir, args)}")
    for directory in (config.corpus_dir, config.corpus_dir / corpus.OUTSIDE_CONTRACT, run_dir):
        corpus.remove_orphaned_temporaries(directory)
    config = dataclasses.replace(config, seed=args.seed, run_dir=run_dir)
    console.start(config, args.workers if cluster is None else len(cluster.admitted))  # admitted at connect
    console.note(f"run directory {run_dir}; resume with: passfuzz --resume {run_dir}")
    with RunLog(config.run_dir / LOG_NAME) as log:  # a resumed run appends to its log
        def notify(event: Event) -> None:  # the console and the run log see the same events
            console.handle(event)
            log.handle(event)

        try:
            if cluster is not None:
                from passfuzz.campaign.cluster import fuzz_on_cluster

                # the run directory stays here: the workers' positions are not kept (no --resume)
                stats = fuzz_on_cluster(dataclasses.replace(config, run_dir=None), cluster, notify)
            else:
                stats = fuzz_in_workers(config, args.workers, notify)
        finally:
            console.close()
        log.finish(stats)
    console.summary(stats, config)
    return 1 if stats.findings else 0


def _stored(args: argparse.Namespace) -> dict:
    """The options as JSON, the corpus absolute (a resume may start elsewhere)."""
    options = {name: str(value) if isinstance(value, Path) else value for name, value in vars(args).items()}
    options["corpus"] = str(args.corpus.resolve())
    del options["resume"]
    return options


def resumed_arguments(run_dir: Path, args: argparse.Namespace) -> argparse.Namespace:
    """The options of the run in ``run_dir``, in its working directory (relative paths and
    module:attr passes resolve as they did); UsageError for anything that is not a run to resume."""
    from passfuzz.campaign.runs import RunDirError, read_arguments

    defaults = parser().parse_args([])
    given = [name for name, value in vars(args).items() if name != "resume" and value != getattr(defaults, name)]
    if given:
        raise UsageError(f"--resume takes no other option (the run's own are used); got --{given[0].replace('_', '-')}")
    try:
        stored = read_arguments(run_dir)
    except RunDirError as exc:
        raise UsageError(f"--resume {exc}") from None
    options, cwd = stored.get("options"), stored.get("cwd")
    if not isinstance(options, dict) or not isinstance(cwd, str):
        raise UsageError(f"--resume {run_dir}: not a run directory passfuzz can resume (run.json holds no options)")
    resumed = argparse.Namespace(**{**vars(defaults), **options, "resume": run_dir.resolve()})
    for action in parser()._actions:
        if action.type is Path and isinstance(getattr(resumed, action.dest, None), str):
            setattr(resumed, action.dest, Path(getattr(resumed, action.dest)))
    try:
        os.chdir(cwd)
    except OSError as exc:
        raise UsageError(f"--resume {run_dir}: cannot enter the run's working directory {cwd}: {exc.strerror}") \
            from None
    return resumed


def _position(run_dir: Path, args: argparse.Namespace) -> str:
    """Where each worker of the resumed run stands, in a few words."""
    from passfuzz.campaign.runs import RunDirError, read_progress

    said = []
    for worker in range(args.workers):
        try:
            progress = read_progress(run_dir, worker, args.seed)
        except RunDirError as exc:
            raise UsageError(f"--resume {exc}") from None
        if progress is None:
            said.append(f"worker {worker} not started")
            continue
        done = " (finished)" if progress.stats.get("stop_reason") else ""
        said.append(f"worker {worker} at round {progress.next_round}, {progress.stats.get('examples', 0)} examples "
                    f"done{done}, {len(progress.in_progress)} finding(s) to finish shrinking")
    return "; ".join(said)
