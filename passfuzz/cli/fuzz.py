"""``passfuzz --passes P[,P...]``: generate programs, apply the passes, compare, shrink, save."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import random
from pathlib import Path

from passfuzz.campaign.plan import (  # no TVM: the help needs none
    DEFAULT_ARGUMENT_DRAWS,
    DEFAULT_EMI,
    DEFAULT_MAX_EXAMPLES,
    DEFAULT_PROBE_SECONDS,
    DEFAULT_THRESHOLD,
)

from . import FOUND, INTERRUPTED, OK, UNTESTED, USAGE, Parser, UsageError, VersionAction, commands_text
from .output import NORMAL, QUIET, VERBOSE, Console

# options that say how this invocation reports, not what the run does: not kept in the run
# directory, and given anew to `--resume`
REPORTING = ("quiet", "verbose", "json", "junit_xml")


def parser() -> argparse.ArgumentParser:
    from passfuzz.campaign.engine import FuzzConfig

    p = Parser(
        prog="passfuzz", usage=USAGE[len("usage: "):],
        description="Fuzz TVM Relax passes: generate random well-typed Relax programs, apply the passes, "
                    "compile and run the original and the optimized module on each target, and shrink every "
                    "divergence (wrong result, crash, hang, ill-formed IR, compile error) into a minimal "
                    "reproducer saved to the corpus.",
        epilog=commands_text() + "\n\n"
               "Exit status: 0 no new finding, 1 at least one new finding that blames a named pass (or build), 2 "
               "usage or input error, 5 with --min-fire-rate: no new finding and a named pass barely tested, "
               "130 interrupted (Ctrl-C; the summary says what `passfuzz --resume RUN_DIR` "
               "finishes). New bugs of TVM's plain build (a reference mismatch) are saved and listed "
               "apart and do not change the status. "
               "Without --max-examples or --max-time, runs %d examples." % DEFAULT_MAX_EXAMPLES)
    p.add_argument("-V", "--version", action=VersionAction,
                   help="print the versions of passfuzz, TVM, Hypothesis and Python, and exit")
    what = p.add_argument_group("what to fuzz")
    targets = p.add_argument_group("targets and builds")
    generation = p.add_argument_group("generation")
    budget = p.add_argument_group("budget")
    output = p.add_argument_group("output and corpus")
    cluster = p.add_argument_group("workers and cluster")
    what.add_argument("--passes", metavar="P[,P...]",
                      help="comma-separated passes applied in order: names in tvm.relax.transform "
                           "(e.g. FoldConstant), with arguments as Python literals where needed "
                           "(ToMixedPrecision(out_dtype=float16)), or module.path:attr naming a tvm.transform.Pass "
                           "or a callable returning one. Prerequisites a pass needs (LegalizeOps before FuseOps, ...) "
                           "are inserted; `passfuzz passes` lists what is known of each pass. `random` draws a "
                           "sequence for every example from --pass-pool; a failing sequence shrinks to the fewest "
                           "passes that still fail, and the finding names the first bad pass. A pass given arguments "
                           "is first run on a few tiny modules: arguments TVM rejects there are a usage error. "
                           "Required unless --build or --pipeline gives something else to compare")
    what.add_argument("--pass-pool", metavar="P[,P...]",
                      help="with --passes random: the passes to draw from (default: every pass `passfuzz passes` "
                           "marks fuzzable)")
    what.add_argument("--max-passes", type=int, default=4, metavar="N",
                      help="with --passes random: most passes in one drawn sequence (default 4)")
    targets.add_argument("--targets", metavar="T[,T...]",
                         help="comma-separated targets to compile and run on: a kind (llvm, c, cuda, rocm, vulkan, opencl, "
                              "metal) with options as -name=value, e.g. --targets 'llvm,llvm -mcpu=skylake -opt-level=0,"
                              "cuda -arch=sm_80'; a list option takes commas too (-mattr=+avx2,+fma): a comma starts a new "
                              "target only before a kind. Default: every target this machine can run (not c). A target "
                              "that cannot run here (no runtime in this TVM build, no device, a CPU without the "
                              "instructions -mcpu needs) is skipped with the reason. With two or more, outputs are also "
                              "compared across targets (a target-mismatch finding). GPU sides run in children of a "
                              "fork server that never touches a device, since CUDA breaks in children forked after its "
                              "initialisation")
    targets.add_argument("--pipeline", choices=["default", "target", "llvm"],
                         help="Relax pipeline that compiles the optimized side, after the passes: default (tvm.compile's, "
                              "as the original), or target: the target's own default pipeline "
                              "(relax.get_default_pipeline, which fuses); llvm is the same as target with llvm targets. "
                              "Short for --build pipeline=...")
    targets.add_argument("--build", default="", metavar="SPEC",
                         help="how the optimized side is compiled, while the original always uses the plain build "
                              "(llvm, default pipeline, bytecode VM, in memory): comma-separated of pipeline=default|target, "
                              "opt-level=0..3, mcpu=host|NAME (llvm), codegen=c (the C codegen for llvm targets), "
                              "exec-mode=compiled (VM bytecode compiled to native code), export (export_library and load "
                              "back), config=random (each example compiles under a drawn PassContext configuration of "
                              "the keys the CPU build reads; a finding keeps the fewest keys that show it). "
                              "E.g. --build exec-mode=compiled,export; with no --passes, the build alone is fuzzed")
    generation.add_argument("--ops", metavar="OP[,OP...]",
                            help="draw programs from these ops only (names as `passfuzz ops` lists them; default: all)")
    generation.add_argument("--focus", default="auto", metavar="auto|none|OP[,OP...]",
                            help="the ops most programs are built around, each wired to the one before it (feeding it "
                                 "at each operand, sharing an operand with it, one value read twice), the rest of the "
                                 "catalogue drawn at a lower rate: auto (default) takes the ops the named passes match "
                                 "(`passfuzz passes` lists them for TVM's passes; for your own pass, those a probe sees it "
                                 "change, the ops its source names probed first: see --probe-time); no focus when every "
                                 "pass looks at every op (FoldConstant) or with --passes random; none; or ops as "
                                 "`passfuzz ops` lists them. Unless none, the motifs built for the named passes (the "
                                 "patterns they rewrite, in every form they branch on) are drawn more often than the "
                                 "others")
    generation.add_argument("--probe-time", type=float, default=DEFAULT_PROBE_SECONDS, metavar="SECONDS",
                            help="with --focus auto, how long each pass of your own is probed before fuzzing: applied "
                                 "in child processes to small programs around each op (on its own, in pairs, with "
                                 "constants, one value used twice), so focus follows what it changes rather than what "
                                 "its source names; cached in the corpus by the pass's source and TVM version; 0 "
                                 "trusts the source (default %g)" % DEFAULT_PROBE_SECONDS)
    output.add_argument("--min-fire-rate", metavar="RATE",
                        help="a named pass that changed the module in fewer examples than RATE (a fraction, 0.01, or "
                             "a percentage, 1%%%%) was not tested: the summary says so and, unless there is a new "
                             "finding, the run exits %d, so CI can tell 'tested and clean' from 'tested nothing'. "
                             "Without it a pass that never fired is only warned about" % UNTESTED)
    generation.add_argument("--seeds", metavar="PATH[,PATH...]",
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
    budget.add_argument("--max-examples", type=int, metavar="N",
                        help="stop after N generated examples (shrinking runs are not counted)")
    budget.add_argument("--max-time", type=float, metavar="SECONDS",
                        help="stop generating after SECONDS; findings seen by then are still shrunk and reduced, for "
                             "up to %d s more (the run's first line says when it ends at the latest)"
                             % FuzzConfig.shrink_grace)
    budget.add_argument("--strict-time", action="store_true",
                        help="with --max-time: end the whole run within SECONDS (give or take the example in "
                             "progress): shrinking and reduction stop then, and each finding is saved as far as it "
                             "was shrunk")
    generation.add_argument("--seed", type=int, metavar="N", help="seed of the run: the same seed generates the same examples")
    output.add_argument("--corpus", type=Path, default=Path("corpus"), metavar="DIR",
                        help="where findings are saved and known bugs are read from (default: ./corpus); findings of "
                             "passes run outside their contracts go to DIR/outside-contract/")
    output.add_argument("--known-bugs", default="default", metavar="default|none|PATH",
                        help="TVM bugs that never count as new, besides those in --corpus: default, the baseline "
                             "passfuzz ships for the installed TVM release (`passfuzz known` lists it); none; or a "
                             "baseline file or corpus directory")
    verbosity = output.add_mutually_exclusive_group()
    verbosity.add_argument("-q", "--quiet", action="store_true",
                           help="print only the findings and the summary (stdout), warnings and errors: no progress, "
                                "no notes")
    verbosity.add_argument("-v", "--verbose", action="store_true",
                           help="a progress line every 5 s instead of 30 when stderr is not a terminal")
    output.add_argument("--json", type=Path, metavar="FILE",
                        help="write the run's result as JSON when it ends or is interrupted: the exit status, the "
                             "summary's figures, each finding with its reproduce command "
                             "(passfuzz/schemas/run-result.schema.json describes it)")
    output.add_argument("--junit-xml", type=Path, metavar="FILE",
                        help="write a JUnit XML report when the run ends or is interrupted, for CI: one testcase per "
                             "named pass, failed by the new findings that blame it (with their reproduce commands), "
                             "skipped if the pass never changed the module (or fell below --min-fire-rate)")
    budget.add_argument("-x", "--exitfirst", action="store_true",
                        help="stop after the first new finding has been shrunk and saved")
    cluster.add_argument("--workers", type=int, default=1, metavar="N",
                         help="fuzzing processes on this machine (default 1); they share the corpus")
    cluster.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                         help="fuzz on the workers of this Dask distributed cluster instead, one fuzzer per worker process "
                              "(start workers with --nthreads 1); findings come back here and are written to --corpus. "
                              "Needs the extra: pip install \"passfuzz[distributed]\"")
    output.add_argument("--resume", type=Path, metavar="RUN_DIR",
                        help="continue a run stopped by Ctrl-C or killed: every run keeps its arguments, its position "
                             "in the seed stream (per worker), its statistics and its findings in progress in a run "
                             "directory, by default CORPUS/.runs/<UTC time>-<suffix>/, printed when it starts. The "
                             "resumed run skips the rounds already done, counts the bugs it saved as known, reduces a "
                             "finding whose shrinking was cut off from its simplest example saved, and runs within what "
                             "is left of --max-examples and --max-time. Takes no other option but -q, -v, --json and "
                             "--junit-xml: the run's own are used")
    budget.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                        help="time limit for building, optimizing, compiling and running one side of one example; "
                             "past it the side counts as hung (default 60)")
    generation.add_argument("--max-nodes", type=int, default=10, metavar="N",
                            help="most ops drawn per program, helper nodes aside (default 10)")
    budget.add_argument("--shrink-time", type=float, default=10.0, metavar="SECONDS",
                        help="time for Hypothesis' shrinking of each new finding, before its reduction (default 10)")
    budget.add_argument("--reduce-time", type=float, default=50.0, metavar="SECONDS",
                        help="time for reducing each finding's passes and program after Hypothesis has shrunk it "
                             "(default 50)")
    targets.add_argument("--check-speed", action="store_true",
                         help="also report optimizations that make a module slower (a slowdown finding): when both sides "
                              "ran and matched and the passes changed the module (or --build differs), compile both in "
                              "one process and time "
                              "them interleaved (A B, B A, ...) until the ratio optimized/original is known with 99%% "
                              "confidence or 2 s per target have passed; a slowdown is saved when the ratio's lower "
                              "confidence bound exceeds --slowdown-threshold. Off by default: timing costs up to 2 s per "
                              "changed example and target")
    targets.add_argument("--slowdown-threshold", type=float, default=DEFAULT_THRESHOLD, metavar="X",
                         help="with --check-speed: how many times slower the optimized module must be, beyond timing "
                              "noise, to be a slowdown (default %g)" % DEFAULT_THRESHOLD)
    generation.add_argument("--argument-draws", type=int, default=DEFAULT_ARGUMENT_DRAWS, metavar="N",
                            help="run each compiled pair of modules on N argument sets: the program's own and N-1 "
                                 "more drawn inside its input parameters' ranges (ends and zero, ties, spread), "
                                 "compared as the program's own are; a divergence on a draw is checked and shrunk "
                                 "with that draw's arguments. A run costs about a millisecond beside a compile's tens "
                                 f"(benchmarks/argument_draws.py). Default {DEFAULT_ARGUMENT_DRAWS}; 1: the program's own "
                                 "arguments only")
    generation.add_argument("--always-compile-original", action="store_true",
                            help="compile and run the original module of every example. By default, for a program "
                                 "whose outputs are all exact (integers, bools, floats only moved), the optimized "
                                 "module runs first and the original is compiled only when the optimized module's "
                                 "outputs differ from numpy's; this misses an original that numpy disagrees with, or "
                                 "that fails to compile, where the passes' module does not "
                                 "(benchmarks/throughput.py)")
    checks = p.add_argument_group("oracles at every pass boundary (after the outputs matched; "
                                  "benchmarks/README.md measures what each costs)")
    checks.add_argument("--no-print-round-trip", action="store_true",
                        help="do not check that the original module, and the module after each pass, prints "
                             "(mod.script()) and parses back (tvm.script.from_source) to a structurally equal module")
    checks.add_argument("--serialization-round-trip", action="store_true",
                        help="also check that the original module, and the module after each pass, saves and loads "
                             "back (tvm.ir.save_json, load_json) structurally equal, in a child process of its own. "
                             "Off by default: on TVM 0.27.0.post1 save_json crashes on every module with a tensor")
    checks.add_argument("--no-pass-determinism", action="store_true",
                        help="do not apply the passes a second time, to a fresh copy of the module, and check that "
                             "both copies are structurally equal after every pass")
    checks.add_argument("--output-determinism", action="store_true",
                        help="also compile and run the optimized module a second time and check that its outputs "
                             "on CPU targets are bit-identical. Off by default: it costs a side")
    checks.add_argument("--no-idempotence", action="store_true",
                        help="do not apply each pass that changed the module once more to its own output; a change "
                             "there is a not-idempotent observation (saved apart in DIR/missed/, never a bug), a "
                             "failure there a bug of that pass")
    checks.add_argument("--no-missed-rewrites", action="store_true",
                        help="do not report a pass that left the module as built though the program holds a form of "
                             "its pattern it promises to rewrite (passfuzz/passes/variants.py); such a missed-rewrite "
                             "observation is saved apart in DIR/missed/, never a bug")
    checks.add_argument("--emi", action="store_true", default=DEFAULT_EMI,
                        help="equivalence modulo inputs: mutate the If branches a program's arguments do not take "
                             "(and give an If to about half the programs that have none), then compile the program "
                             "and its twin with those branches pruned, before and after the passes, and check that "
                             "their outputs on CPU targets are bit-identical (an emi-mismatch finding). "
                             f"{'On' if DEFAULT_EMI else 'Off'} by default: it costs two sides per program holding "
                             "an untaken branch, and the inserted If meets a known memory-planning crash of the "
                             "unoptimized build (benchmarks/emi.py: 0.57x the examples per second)")
    checks.add_argument("--no-emi", action="store_false", dest="emi",
                        help="do not mutate untaken If branches nor compare a program with its pruned twin (--emi)")
    return p


def config_from(args: argparse.Namespace, console: Console):
    """The run's configuration from the parsed arguments (passfuzz.campaign.plan); UsageError for
    anything the user must fix."""
    from passfuzz.campaign.plan import PlanError, RunOptions, plan

    try:
        return plan(RunOptions.of(args), console.note)
    except PlanError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    console = Console(verbosity=QUIET if args.quiet else VERBOSE if args.verbose else NORMAL)
    for option, path in (("--json", args.json), ("--junit-xml", args.junit_xml)):
        if path is not None and not path.parent.is_dir():  # known before the run, not after hours of it
            raise UsageError(f"{option} {path}: no such directory: {path.parent}")
    # absolute: --resume enters the run's own working directory
    args.json, args.junit_xml = (path.resolve() if path is not None else None for path in (args.json, args.junit_xml))
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
    from passfuzz.campaign.engine import keep_hypothesis_files_in
    from passfuzz.campaign.events import Event
    from passfuzz.campaign.parallel import fuzz_in_workers
    from passfuzz.campaign.plan import PROBES, with_kept_behaviours
    from passfuzz.campaign.run_log import LOG_NAME, RunLog
    from passfuzz.findings import corpus
    from passfuzz.reach.behaviours import DIRECTORY as BEHAVIOURS

    if run_dir is None:
        if args.seed is None:  # drawn here, so that the run directory can repeat it
            args.seed = random.SystemRandom().randrange(2**32)
        config = with_kept_behaviours(config, console.note)
        run_dir = runs.new_run_dir(args.corpus)
        runs.write_arguments(run_dir, {"cwd": os.getcwd(), "options": _stored(args)})
        runs.write_start(run_dir, config)
    else:
        run_dir = run_dir.resolve()
        console.note(f"resuming the run in {run_dir}: {_position(run_dir, args)}")
        try:
            started_with = runs.read_start(run_dir)
        except runs.RunDirError as exc:
            raise UsageError(f"--resume {exc}") from None
        config = dataclasses.replace(config, **(started_with or {}))
    for directory in (config.corpus_dir, config.corpus_dir / corpus.OUTSIDE_CONTRACT, run_dir,
                      config.corpus_dir / PROBES, config.corpus_dir / BEHAVIOURS):
        corpus.remove_orphaned_temporaries(directory)
    config = dataclasses.replace(config, seed=args.seed, run_dir=run_dir)
    keep_hypothesis_files_in(run_dir / runs.HYPOTHESIS)  # not .hypothesis/ in the working directory
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
                # nor are behaviours kept: the workers' corpus paths are theirs
                stats = fuzz_on_cluster(dataclasses.replace(config, run_dir=None, keep_behaviours=False), cluster,
                                        notify)
            else:
                stats = fuzz_in_workers(config, args.workers, notify)
        finally:
            console.close()
        log.finish(stats)
    if stats.stop_reason == "interrupted":
        # a cluster run keeps no worker positions: nothing to resume (see passfuzz.campaign.runs)
        unshrunk = runs.findings_in_progress(run_dir, args.seed) if cluster is None else set()
        resume = run_dir if cluster is None else None
        console.summary(stats, config, unshrunk=unshrunk, resume=resume)
        _write_results(args, stats, config, INTERRUPTED, unshrunk, resume)
        return INTERRUPTED
    console.summary(stats, config)
    if stats.findings:
        status = FOUND
    else:
        untested = config.min_fire_rate is not None and stats.rarely_fired(config.named, config.min_fire_rate)
        status = UNTESTED if untested else OK
    _write_results(args, stats, config, status, set(), run_dir if cluster is None else None)
    return status


def _write_results(args: argparse.Namespace, stats, config, status: int, unshrunk: set[str], run_dir) -> None:
    """--json and --junit-xml, written whole (atomically) once the run has ended or was interrupted."""
    if args.json is None and args.junit_xml is None:
        return
    from passfuzz.findings.corpus import atomic_write

    from .results import junit_xml, result

    document = result(stats, config, status, unshrunk, run_dir)
    for path, text in ((args.json, lambda: json.dumps(document, indent=2) + "\n"),
                       (args.junit_xml, lambda: junit_xml(document, config.named, config.min_fire_rate))):
        if path is None:
            continue
        try:
            atomic_write(path, text())
        except OSError as exc:  # the run's findings are saved already: say so and go on to the status
            print(f"passfuzz: error: cannot write {path}: {exc.strerror}", file=sys.stderr)


def _stored(args: argparse.Namespace) -> dict:
    """The options as JSON, the corpus absolute (a resume may start elsewhere)."""
    options = {name: str(value) if isinstance(value, Path) else value for name, value in vars(args).items()
               if name not in REPORTING}
    options["corpus"] = str(args.corpus.resolve())
    del options["resume"]
    return options


def resumed_arguments(run_dir: Path, args: argparse.Namespace) -> argparse.Namespace:
    """The options of the run in ``run_dir``, in its working directory (relative paths and
    module:attr passes resolve as they did); UsageError for anything that is not a run to resume."""
    from passfuzz.campaign.runs import RunDirError, read_arguments

    defaults = parser().parse_args([])
    given = [name for name, value in vars(args).items()
             if name != "resume" and name not in REPORTING and value != getattr(defaults, name)]
    if given:
        raise UsageError(f"--resume takes no other option (the run's own are used); got --{given[0].replace('_', '-')}")
    try:
        stored = read_arguments(run_dir)
    except RunDirError as exc:
        raise UsageError(f"--resume {exc}") from None
    options, cwd = stored.get("options"), stored.get("cwd")
    if not isinstance(options, dict) or not isinstance(cwd, str):
        raise UsageError(f"--resume {run_dir}: not a run directory passfuzz can resume (run.json holds no options)")
    resumed = argparse.Namespace(**{**vars(defaults), **options, "resume": run_dir.resolve(),
                                    **{name: getattr(args, name) for name in REPORTING}})
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
