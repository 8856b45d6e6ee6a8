"""The command line: ``passfuzz --passes ...`` fuzzes (the default command); ``passfuzz replay``
re-checks reproducers; ``passfuzz reduce`` reduces a module of the user's own; ``passfuzz check-tests``
checks every module of TVM's own tests as it is; ``passfuzz import-model``
writes ONNX models as seed files; ``passfuzz passes`` prints the pass catalogue, ``passfuzz ops`` the op
catalogue, ``passfuzz known`` the known-bug baseline; ``passfuzz report`` plots a run's log;
``passfuzz help [COMMAND]`` prints a command's help and ``passfuzz --version`` the versions that
matter to a bug report. Each command is one module, imported only when it runs; formatting lives
in cli.output.

Exit statuses (the constants below; README's "Exit statuses" has them per command):

- 0 ``OK``: nothing new (fuzz), nothing reproduces (replay), no finding (reduce), done;
- 1 ``FOUND``: a new finding, a reproducer that still reproduces, or a finding reduced;
- 2 ``USAGE_ERROR``: a usage or input error, reported in one line (a missing optional package
  included: it names the extra to install);
- 4 ``NOTHING_TO_REPLAY``: ``passfuzz replay`` found no record in the paths given;
- 5 ``UNTESTED``: a fuzzing run with ``--min-fire-rate`` found nothing new, and a named pass
  changed the module in fewer of its examples than that rate: it tested too little to say "clean";
- 130 ``INTERRUPTED``: Ctrl-C (SIGINT), after the summary of what was done by then (a fuzzing
  run: ``passfuzz --resume DIR`` continues it and exits with the run's own status).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys

OK = 0
FOUND = 1
USAGE_ERROR = 2
# 3 is unused: keep it free.
NOTHING_TO_REPLAY = 4
UNTESTED = 5  # as pytest's 'no tests collected': the run checked too little to say 'clean'
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C stopped

# name -> (module of this package, one line for `passfuzz --help`); fuzzing is the default command
COMMANDS = {
    "replay": ("replay", "re-check saved findings against the installed TVM (and regenerate their files)"),
    "reduce": ("reduce", "check a module of your own with the passes, and reduce what it shows"),
    "check-tests": ("check_tests", "check every module of TVM's own tests as it is, with the passes its test applies"),
    "report": ("report", "plot a run's log (examples, findings, fire rates, memory) as PNG or HTML"),
    "passes": ("passes", "list TVM's passes with their contracts and the ops each matches (passes NAME: one in full)"),
    "ops": ("ops", "list the ops programs are drawn from (the names --ops and --focus take)"),
    "known": ("known", "list the TVM bugs already known for the installed TVM"),
    "import-model": ("import_model", "write ONNX models as seed files for --seeds"),
}
HIDDEN_COMMANDS = {"fuzz": "fuzz"}  # `passfuzz fuzz ...` is `passfuzz ...`
WITHOUT_TVM = {"ops", "report"}  # commands that run without importing TVM, so skip its check

USAGE = """\
usage: passfuzz --passes P[,P...] [options]   fuzz passes (passfuzz --help lists the options)
       passfuzz --resume RUN_DIR              continue a run stopped by Ctrl-C or killed
       passfuzz COMMAND [...]                 another command (passfuzz help COMMAND)
       passfuzz --version"""


def commands_text() -> str:
    """The commands, one line each, as the help's epilog and the bare ``passfuzz`` list them."""
    width = max(map(len, COMMANDS))
    return "commands:\n" + "\n".join(f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()) \
        + f"\n  {'help':<{width}}  print this help (passfuzz --help); passfuzz help COMMAND prints a command's"


class UsageError(Exception):
    """A mistake of the user's; reported as one line and exit status 2."""


class Formatter(argparse.HelpFormatter):
    """argparse's, except that a paragraph of the description or epilog whose lines are indented
    (a table) is printed as written; other paragraphs are wrapped as usual."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = text.split("\n\n")
        return "\n\n".join(indent + paragraph.replace("\n", "\n" + indent)
                           if any(line.startswith(" ") for line in paragraph.splitlines()[1:])
                           else super(Formatter, self)._fill_text(paragraph, width, indent)
                           for paragraph in paragraphs)


class Parser(argparse.ArgumentParser):
    """Every command's parser: no abbreviated options (``--max-ex`` is no ``--max-examples``:
    an option added later would change what it means), errors in one line, and for an unknown
    option the closest known one."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}{self.suggestion(extras)}")
        return parsed

    def suggestion(self, extras: list[str]) -> str:
        """'; did you mean --max-examples?' for the first unknown option close to a known one."""
        known = [option for action in self._actions for option in action.option_strings if option.startswith("--")]
        for extra in extras:
            if extra.startswith("--"):
                given = extra.split("=", 1)[0]
                # an abbreviation first (no longer taken: see above), then a misspelling
                close = [option for option in known if option.startswith(given)] \
                    or difflib.get_close_matches(given, known, n=1)
                if close:
                    return f"; did you mean {' or '.join(close[:3])}?"
        return ""

    def error(self, message: str) -> None:  # one line instead of argparse's usage dump
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(USAGE_ERROR)


def version() -> str:
    """passfuzz's version and those of TVM, Hypothesis and Python, read from the installed
    distributions' metadata (importing TVM takes a second and may fail: then it is said so)."""
    from importlib import metadata

    import passfuzz

    def installed(*names: str) -> str | None:
        for name in names:
            try:
                return metadata.version(name)
            except metadata.PackageNotFoundError:
                pass
        return None

    tvm = installed("apache-tvm", "tlcpack", "tlcpack-nightly", "mlc-ai-nightly")
    if tvm is None:  # a TVM built from source, on PYTHONPATH: no distribution to read
        try:
            import tvm as module
            tvm = module.__version__
        except Exception as exc:  # noqa: BLE001 - the version line is what a bug report needs, whatever fails
            tvm = f"not importable ({type(exc).__name__})"
    python = ".".join(map(str, sys.version_info[:3]))
    return (f"passfuzz {passfuzz.__version__} (TVM {tvm}, Hypothesis {installed('hypothesis') or 'not installed'}, "
            f"Python {python})")


class VersionAction(argparse.Action):
    """``-V``/``--version`` anywhere on the line: print ``version()`` and exit 0."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version())
        parser.exit(OK)


def _command(name: str):
    module, _ = COMMANDS.get(name) or (HIDDEN_COMMANDS[name], "")
    return importlib.import_module(f".{module}", __name__)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C outside a fuzzing run's own handling (which prints its summary)
        print("passfuzz: interrupted", file=sys.stderr)
        return INTERRUPTED


def _main(argv: list[str]) -> int:
    if not argv:
        print(f"{USAGE}\n\n{commands_text()}\n\npassfuzz: error: no command and no --passes given "
              "(see passfuzz --help)", file=sys.stderr)
        return USAGE_ERROR
    if argv[0] in ("-V", "--version"):  # before any command module: no TVM import
        print(version())
        return OK
    if argv[0] == "help":
        if len(argv) > 2 or (len(argv) == 2 and argv[1] not in COMMANDS and argv[1] not in HIDDEN_COMMANDS):
            print(f"passfuzz help: error: no such command: {' '.join(argv[1:])} "
                  f"({_close_command(argv[1])}see passfuzz --help)", file=sys.stderr)
            return USAGE_ERROR
        argv = [*argv[1:], "--help"]
    name = argv[0]
    if name in COMMANDS or name in HIDDEN_COMMANDS:
        command = _command(name)
        argv = argv[1:]
    elif not name.startswith("-"):  # the fuzzing command takes no positional argument
        print(f"passfuzz: error: no such command: {name} ({_close_command(name)}see passfuzz --help)",
              file=sys.stderr)
        return USAGE_ERROR
    else:
        command = _command("fuzz")  # fuzzing is the default command
        name = "fuzz"
    if name not in WITHOUT_TVM:  # before the parser, which for fuzzing imports TVM already
        try:
            _check_tvm()
        except UsageError as exc:
            print(f"passfuzz: error: {exc}", file=sys.stderr)
            return USAGE_ERROR
    parser = command.parser()
    args = parser.parse_args(argv)
    try:
        return command.run(args)
    except UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:  # `passfuzz passes | head`: the reader has what it wanted
        sys.stdout = None  # nothing left to flush at exit
        return OK


def _check_tvm() -> None:
    """UsageError in one line if the installed TVM lacks what passfuzz needs (passfuzz.relax.tvm_api)."""
    from passfuzz.relax.tvm_api import UnsupportedTVM, check

    try:
        check()
    except UnsupportedTVM as exc:
        raise UsageError(str(exc)) from None


def _close_command(word: str) -> str:
    close = difflib.get_close_matches(word, list(COMMANDS), n=1)
    return f"did you mean {close[0]}? " if close else ""
