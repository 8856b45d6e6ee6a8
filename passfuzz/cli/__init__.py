"""The command line: ``passfuzz --passes ...`` fuzzes (the default command); ``passfuzz replay``
re-checks reproducers; ``passfuzz reduce`` reduces a module of the user's own; ``passfuzz import-model``
writes ONNX models as seed files; ``passfuzz passes`` prints the pass catalogue, ``passfuzz ops`` the op
catalogue, ``passfuzz known`` the known-bug baseline; ``passfuzz report`` plots a run's log. Each command is one
module; formatting lives in cli.output.

Exit status: 0 nothing new (fuzz), nothing reproduces (replay) or no finding (reduce); 1 a new
finding, a reproducer that still reproduces, or a finding reduced; 2 a usage or input error, reported in one line.
"""

from __future__ import annotations

import argparse
import sys

USAGE_ERROR = 2


class UsageError(Exception):
    """A mistake of the user's; reported as one line and exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line instead of argparse's usage dump
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(USAGE_ERROR)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from . import fuzz, import_model, known, ops, passes, reduce, replay, report  # after argv handling: imports TVM

    commands = {"replay": replay, "reduce": reduce, "import-model": import_model, "passes": passes, "ops": ops, "known": known, "report": report,
                "fuzz": fuzz}
    command = commands.get(argv[0]) if argv else None
    if command is not None:
        argv = argv[1:]
    else:
        command = fuzz  # fuzzing is the default command
    parser = command.parser()
    args = parser.parse_args(argv)
    try:
        return command.run(args)
    except UsageError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:  # `passfuzz passes | head`: the reader has what it wanted
        sys.stdout = None  # nothing left to flush at exit
        return 0
