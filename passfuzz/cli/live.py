"""The live display on a terminal (rich): progress against the budget, findings, and the fire
rate of each pass, redrawn in place as examples come in; notices print above it.

Refreshed from the caller's thread only (no rich refresh thread): the fuzzer forks a child per
side, and a thread holding the terminal's lock at a fork would leave that lock held in the child.
"""

from __future__ import annotations

import time

from rich.console import Group
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from .output import clock

_PASSES_SHOWN = 12


class LiveDisplay:
    def __init__(self, terminal):
        self.terminal = terminal  # a rich Console
        self.live: Live | None = None
        self.stats = None
        self.started = time.monotonic()
        self.max_examples: int | None = None
        self.max_time: float | None = None
        self.workers = 1
        self.run_dir = None  # where the run log goes, shown so `passfuzz report` can be pointed at it

    def start(self, config, workers: int, started: float) -> None:
        self.max_examples, self.max_time, self.workers, self.started = \
            config.max_examples, config.max_time, workers, started
        self.run_dir = config.run_dir
        self.live = Live(console=self.terminal, get_renderable=self.render, auto_refresh=False, transient=True,
                         redirect_stdout=False, redirect_stderr=False)
        self.live.start(refresh=True)

    def update(self, stats) -> None:
        self.stats = stats
        if self.live is not None:
            self.live.refresh()

    def print(self, text: str) -> None:
        """A notice, above the display while it runs."""
        self.terminal.print(Text(text), soft_wrap=True)

    def stop(self) -> None:
        """Erase the display: the summary that follows says it all."""
        if self.live is not None:
            self.live.stop()
            self.live = None

    def render(self) -> Group:
        elapsed = time.monotonic() - self.started
        stats = self.stats
        examples = stats.examples if stats is not None else 0
        head = Text(f"{clock(elapsed)}", style="bold")
        head.append(f"  {examples} examples  {examples / max(elapsed, 1e-9):.1f}/s")
        parts = [head]
        if self.max_examples is not None:
            parts.append(self._bar(examples, self.max_examples, f"{examples} of {self.max_examples} examples"))
        if self.max_time is not None:
            parts.append(self._bar(min(elapsed, self.max_time), self.max_time,
                                   f"{clock(elapsed)} of {clock(self.max_time)}"))
        if self.run_dir is not None:
            parts.append(Text(f"run log: {self.run_dir}/log.jsonl (passfuzz report {self.run_dir})", style="dim"))
        if stats is None:
            return Group(*parts)
        counts = Text()
        counts.append(f"findings {len(stats.findings)}", style="bold red" if stats.findings else "")
        counts.append(f"  known {stats.known}  generator defects {stats.generator_defects}  "
                      f"incomparable {stats.incomparable}  shrink runs {stats.shrink_runs}")
        if stats.unblamed:
            counts.append(f"  plain-build bugs {len(stats.unblamed)}")
        parts.append(counts)
        if stats.behaviours:  # the saturation curve, in words: is the run still seeing new things?
            parts.append(Text(f"behaviours first seen {stats.behaviours}, the last "
                              f"{clock(max(0.0, elapsed - stats.last_new_behaviour))} ago"))
        rates = sorted(((stats.pass_fired.get(name, 0) / runs, name, runs)
                        for name, runs in stats.pass_runs.items() if runs), key=lambda r: (-r[0], r[1]))
        if rates:
            parts.append(Text("fire rate (examples where the pass changed the module)", style="italic"))
            table = Table(box=None, padding=(0, 1), show_edge=False)
            table.add_column("pass")
            table.add_column("fired", justify="right")
            table.add_column("of", justify="right")
            for rate, name, runs in rates[:_PASSES_SHOWN]:
                table.add_row(name, f"{100 * rate:.0f}%", str(runs))
            if len(rates) > _PASSES_SHOWN:
                table.add_row(f"and {len(rates) - _PASSES_SHOWN} more", "", "")
            parts.append(table)
        return Group(*parts)

    @staticmethod
    def _bar(done: float, total: float, label: str) -> Table:
        row = Table.grid(padding=(0, 1))
        row.add_row(ProgressBar(total=total, completed=done, width=40), Text(label))
        return row
