"""The command line's conventions, through the real command: --version and help, no abbreviated
options, a suggestion for a misspelt one, grouped help, exit statuses (130 for Ctrl-C, 4 for
nothing to replay), files that honour the umask and stay out of the working directory, and a
missing optional package named as the extra to install."""

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

from passfuzz.campaign import runs

from .conftest import ROOT

RECORD = "compile-error-0f540b36910c"  # a shipped finding that replays in about a second
COMMANDS = ("replay", "reduce", "check-tests", "report", "passes", "ops", "known", "import-model")


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


# -- --version and help --------------------------------------------------------------------------

def test_version_prints_one_line_of_versions_without_importing_tvm(run_cli):
    import hypothesis
    import tvm

    for option in ("--version", "-V"):
        result = run_cli(option, timeout=120)
        assert result.returncode == 0 and result.stderr == "", result.stderr
        [line] = result.stdout.splitlines()
        python = ".".join(map(str, sys.version_info[:3]))
        assert re.fullmatch(r"passfuzz \S+ \(TVM \S+, Hypothesis \S+, Python \S+\)", line), line
        assert f"TVM {tvm.__version__}," in line and f"Hypothesis {hypothesis.__version__}," in line
        assert line.endswith(f"Python {python})")
    imported = subprocess.run(
        [sys.executable, "-c", "import sys; from passfuzz.cli import main; main(['--version']); "
                               "print(sorted(m for m in ('tvm', 'hypothesis', 'numpy') if m in sys.modules))"],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=120)
    assert imported.stdout.splitlines()[-1] == "[]", imported.stdout + imported.stderr


def test_help_names_every_command_and_help_prints_the_same(run_cli):
    result = run_cli("--help", timeout=120)
    assert result.returncode == 0
    listing = result.stdout.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    described = {line.split()[0]: line.split(None, 1)[1] for line in listing}
    assert set(COMMANDS) <= set(described) and all(len(text) > 10 for text in described.values()), listing
    assert run_cli("help", timeout=120).stdout == result.stdout
    replay = run_cli("help", "replay", timeout=120)
    assert replay.returncode == 0 and replay.stdout.startswith("usage: passfuzz replay")


def test_passfuzz_alone_prints_the_usage_and_the_commands_and_exits_2(run_cli):
    result = run_cli(timeout=120)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: passfuzz --passes")
    for command in COMMANDS:
        assert re.search(rf"^  {command} +\S", result.stderr, re.M), result.stderr
    assert result.stderr.splitlines()[-1].startswith("passfuzz: error: ")


def test_the_help_groups_every_option_and_explains_each(run_cli):
    from passfuzz.cli.fuzz import parser

    result = run_cli("--help", timeout=120)
    headings = re.findall(r"^(\S[^:\n]*):$", result.stdout, re.M)
    assert headings[:7] == ["options", "what to fuzz", "targets and builds", "generation", "budget",
                            "output and corpus", "workers and cluster"], headings
    sections = dict(zip(headings, re.split(r"^\S[^:\n]*:$", result.stdout, flags=re.M)[1:]))
    options = [action for action in parser()._actions if action.option_strings]
    for action in options:
        assert action.help and len(action.help) > 20, action.option_strings
        [section] = [name for name, text in sections.items() if re.search(rf"^  (-\w, )?{action.option_strings[-1]}\b",
                                                                            text, re.M)]
        assert section != "options" or action.option_strings[-1] in ("--help", "--version")
    assert {option for action in options for option in action.option_strings} == {  # none renamed or removed
        "-h", "--help", "-V", "--version", "--passes", "--pass-pool", "--max-passes", "--pipeline", "--build",
        "--ops", "--focus", "--seeds", "--max-examples", "--max-time", "--strict-time", "--seed", "--corpus",
        "--known-bugs", "--targets", "-x", "--exitfirst", "--workers", "--scheduler", "--resume", "--timeout",
        "--max-nodes", "--shrink-time", "--reduce-time", "--check-speed", "--slowdown-threshold",
        "--probe-time", "--min-fire-rate", "-q", "--quiet", "-v", "--verbose", "--json", "--junit-xml",
        "--no-print-round-trip", "--serialization-round-trip", "--no-pass-determinism", "--output-determinism",
        "--argument-draws", "--always-compile-original", "--emi", "--no-emi", "--no-idempotence",
        "--no-missed-rewrites"}


# -- abbreviations and misspellings --------------------------------------------------------------

@pytest.mark.parametrize("args, unknown, meant", [
    (["--passes", "FoldConstant", "--corpus", "{tmp}", "--max-ex", "1"], "--max-ex", "--max-examples"),
    (["--passes", "FoldConstant", "--corpus", "{tmp}", "--max-exmaples", "1"], "--max-exmaples", "--max-examples"),
    (["--passes", "FoldConstant", "--corpus", "{tmp}", "--exitfirs"], "--exitfirs", "--exitfirst"),
    (["replay", "{tmp}", "--rewr"], "--rewr", "--rewrite"),
])
def test_an_option_is_never_abbreviated_and_a_misspelt_one_gets_a_suggestion(run_cli, tmp_path, args, unknown,
                                                                           meant):
    result = run_cli(*(arg.format(tmp=tmp_path) for arg in args), cwd=tmp_path, timeout=120)
    assert result.returncode == 2, result.stderr
    [line] = error_lines(result)
    assert f"unrecognized arguments: {unknown}" in line and f"did you mean {meant}?" in line, line


def test_a_misspelt_command_gets_a_suggestion(run_cli, tmp_path):
    result = run_cli("repaly", str(tmp_path), cwd=tmp_path, timeout=120)
    assert result.returncode == 2
    [line] = error_lines(result)
    assert "no such command: repaly" in line and "did you mean replay?" in line, line


# -- exit statuses -------------------------------------------------------------------------------

_started = []


@pytest.fixture
def start(tmp_path):
    """Start the real command in its own process group (as a terminal's foreground job), its
    stdout and stderr in one file; every one still running at the end is killed."""
    def run(*args):
        log = tmp_path / f"{len(_started)}.log"
        process = subprocess.Popen([sys.executable, "-m", "passfuzz", *args], cwd=tmp_path,
                                   stdout=open(log, "w"), stderr=subprocess.STDOUT,
                                   env=dict(os.environ, PYTHONPATH=str(ROOT)), start_new_session=True)
        _started.append(process)
        return process, log

    yield run
    while _started:
        process = _started.pop()
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_for(condition, process, seconds=240):
    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None and time.monotonic() < deadline, "the run ended or took too long"
        time.sleep(0.02)


def ctrl_c(process) -> None:
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to every process of the job


def test_ctrl_c_exits_130_after_the_summary(start, tmp_path):
    process, log = start("--passes", "FoldConstant", "--max-examples", "1000", "--seed", "1", "--timeout", "20")
    wait_for(lambda: list(tmp_path.glob(f"corpus/{runs.RUNS}/*/worker-0.json")), process)  # fuzzing began
    ctrl_c(process)
    assert process.wait(timeout=120) == 130
    text = log.read_text()
    [run_dir] = (tmp_path / "corpus" / runs.RUNS).iterdir()
    assert "stop: interrupted" in text and "no new finding" in text and "Traceback" not in text, text
    assert text.splitlines()[-1] == f"interrupted: passfuzz --resume {run_dir} continues the run", text


def test_ctrl_c_while_a_finding_shrinks_says_it_is_unshrunk_and_what_finishes_it(start, tmp_path):
    process, log = start("--passes", "tests.planted_passes:permute_as_reshape", "--max-examples", "12", "--seed", "1",
                         "--shrink-time", "120", "--reduce-time", "120")
    wait_for(lambda: "saved unshrunk" in log.read_text(), process)
    ctrl_c(process)
    assert process.wait(timeout=120) == 130
    text = log.read_text()
    [run_dir] = (tmp_path / "corpus" / runs.RUNS).iterdir()
    [record] = (tmp_path / "corpus").glob("*.json")
    assert not json.loads(record.read_text())["shrunk"]
    assert "1 new finding:" in text and "Traceback" not in text, text
    assert re.search(rf"^  corpus/{record.name} .*\(unshrunk\)$", text, re.M), text
    assert text.splitlines()[-1] == (f"interrupted: 1 finding marked (unshrunk) is saved as first seen, not yet "
                                     f"shrunk; passfuzz --resume {run_dir} finishes shrinking it and the run"), text


def test_replay_with_nothing_to_replay_exits_4_in_one_line(run_cli, tmp_path):
    result = run_cli("replay", str(tmp_path), timeout=120)
    assert result.returncode == 4
    [line] = error_lines(result)
    assert line == f"passfuzz replay: nothing to replay: no record (.json) in {tmp_path}"


def test_replay_of_a_reproducer_script_replays_the_record_beside_it(run_cli, tmp_path):
    for suffix in (".json", ".py"):
        shutil.copy(ROOT / "corpus" / f"{RECORD}{suffix}", tmp_path)
    result = run_cli("replay", str(tmp_path / f"{RECORD}.py"), timeout=300)
    assert result.returncode == 1, result.stderr + result.stdout
    assert f"REPRODUCES {tmp_path / RECORD}.json" in result.stdout
    (tmp_path / f"{RECORD}.json").unlink()
    alone = run_cli("replay", str(tmp_path / f"{RECORD}.py"), timeout=120)
    assert alone.returncode == 2 and f"no record {RECORD}.json beside it" in alone.stderr, alone.stderr


# -- files ---------------------------------------------------------------------------------------

@pytest.fixture
def umask_002():
    previous = os.umask(0o002)  # the subprocesses inherit it
    yield
    os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_run_files_honour_the_umask_and_hypothesis_leaves_the_working_directory_alone(run_cli, tmp_path,
                                                                                     umask_002):
    # three examples draw enough for Hypothesis to cache the constants of passfuzz's source files
    result = run_cli("--passes", "FoldConstant", "--max-examples", "3", "--seed", "1", "--timeout", "20",
                     cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0].endswith("; findings go to corpus/"), result.stderr
    [run_dir] = (tmp_path / "corpus" / runs.RUNS).iterdir()
    assert {path.name: oct(mode(path)) for path in run_dir.iterdir() if path.is_file()} == \
        dict.fromkeys(["run.json", "started.json", "worker-0.json", "log.jsonl"], "0o664")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["corpus"]  # no .hypothesis/
    assert (run_dir / runs.HYPOTHESIS).is_dir()


def test_corpus_files_honour_the_umask(run_cli, tmp_path, umask_002):
    for suffix in (".json", ".py", ".md"):
        shutil.copy(ROOT / "corpus" / f"{RECORD}{suffix}", tmp_path)
        os.chmod(tmp_path / f"{RECORD}{suffix}", 0o600)
    result = run_cli("replay", "--rewrite", str(tmp_path), timeout=300)
    assert result.returncode == 1 and "rewritten" in result.stdout, result.stderr + result.stdout
    assert {path.name: oct(mode(path)) for path in tmp_path.iterdir()} == \
        {f"{RECORD}{suffix}": "0o664" for suffix in (".json", ".py", ".md")}


def test_a_usage_error_leaves_no_corpus_behind(run_cli, tmp_path):
    result = run_cli("--passes", "FoldConstant", "--known-bugs", "no-such-baseline.json", cwd=tmp_path, timeout=120)
    assert result.returncode == 2 and "--known-bugs" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


# -- optional packages ---------------------------------------------------------------------------

@pytest.mark.parametrize("args, missing, extra", [
    (["--build", "tune=2"], ("cloudpickle",), "tune"),
    (["--build", "tune=2"], ("psutil",), "tune"),
    (["--scheduler", "tcp://127.0.0.1:1"], ("distributed",), "distributed"),
])
def test_a_missing_optional_package_is_a_usage_error_naming_the_extra(run_cli, tmp_path, args, missing, extra):
    result = run_cli("--passes", "FoldConstant", *args, "--max-examples", "1", cwd=tmp_path, without=missing,
                     timeout=120)
    assert result.returncode == 2, result.stderr
    [line] = error_lines(result)
    assert line.startswith(f"passfuzz: error: {args[0]}") and f'pip install "passfuzz[{extra}]"' in line, line
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_the_tune_extra_lists_what_tuning_needs():
    tomllib = pytest.importorskip("tomllib")
    from passfuzz.campaign.plan import TUNING_NEEDS

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    listed = {re.split(r"[<>=\[;]", requirement)[0].strip() for requirement in extras["tune"]}
    assert set(TUNING_NEEDS) <= listed, listed


# -- small things --------------------------------------------------------------------------------

def test_known_counts_one_record_in_the_singular(run_cli, tmp_path):
    shutil.copy(ROOT / "corpus" / f"{RECORD}.json", tmp_path)
    result = run_cli("known", "--known-bugs", str(tmp_path), timeout=120)
    assert result.returncode == 0, result.stderr
    assert re.search(r"^passfuzz known: 0 distinct faults \(.*\) in 1 record; 1 record not triaged into a fault, "
                     r"for TVM \S+", result.stdout, re.M), result.stdout


def test_resume_of_an_empty_directory_is_one_line_that_says_what_is_missing(run_cli, tmp_path):
    result = run_cli("--resume", str(tmp_path), timeout=120)
    assert result.returncode == 2
    [line] = error_lines(result)
    assert line.startswith(f"passfuzz: error: --resume {tmp_path}: not a run directory passfuzz can resume: "
                           f"it holds no run.json"), line
    assert "Errno" not in line and "FileNotFoundError" not in line
