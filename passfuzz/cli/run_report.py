"""A run log (passfuzz.campaign.run_log) as pictures: examples, examples per second, and findings and
known hits over time, fire rate per pass, time generating against shrinking, memory over time; as a
PNG, or an HTML page holding the PNG, a table of the final figures and the findings with the commands
that reproduce them. A resumed run's segments are joined on one time axis (run_log.joined), a
dotted line where each resumed.

matplotlib's object API on the Agg canvas: no pyplot, so no global figure state and no display.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

_PASSES_SHOWN = 15
_MIB = 2**20


def _minutes(lines: list[dict]) -> list[float]:
    return [line["elapsed"] / 60 for line in lines]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' * (number != 1)}"


def rates(lines: list[dict], window: float = 60.0) -> list[tuple[float, float]]:
    """(minutes, examples per second over the ``window`` seconds up to then) along the run; the
    window is shortened for a short run, so that it still shows a curve."""
    if len(lines) < 2:
        return []
    window = min(window, max(lines[-1]["elapsed"] / 10, 1e-9))
    points, start = [], 0
    for end, line in enumerate(lines[1:], 1):
        while start < end - 1 and line["elapsed"] - lines[start + 1]["elapsed"] >= window:
            start += 1
        seconds = line["elapsed"] - lines[start]["elapsed"]
        if seconds > 0:
            points.append((line["elapsed"] / 60, (line["examples"] - lines[start]["examples"]) / seconds))
    return points


def figure(lines: list[dict], title: str = "", resumed_at: list[float] = ()) -> Figure:
    """The six plots of a run, one per axes; ``resumed_at``: elapsed seconds where it was resumed."""
    fig = Figure(figsize=(12, 12), layout="constrained")
    FigureCanvasAgg(fig)
    if title:
        fig.suptitle(title + (f" (resumed {_count(len(resumed_at), 'time')})" if resumed_at else ""))
    progress, speed, found, rates_axes, split, memory = fig.subplots(3, 2).flat
    minutes = _minutes(lines)
    last = lines[-1]
    for axes in (progress, speed, found, split, memory):
        for seconds in resumed_at:
            axes.axvline(seconds / 60, color="grey", linestyle=":", linewidth=1)

    progress.plot(minutes, [line["examples"] for line in lines], label="examples")
    progress.plot(minutes, [line["shrink_runs"] for line in lines], label="shrink runs", linestyle="--")
    progress.set(title=f"examples ({_count(last['generator_defects'], 'generator defect')})"
                       + (", dotted: resumed" if resumed_at else ""), xlabel="minutes", ylabel="count")
    progress.legend(loc="upper left")
    if any(line.get("behaviours") for line in lines):  # the behaviour corpus's saturation curve
        saturation = progress.twinx()
        saturation.plot(minutes, [line.get("behaviours", 0) for line in lines], color="green", linestyle=":",
                        label="behaviours first seen")
        saturation.set_ylabel("behaviours first seen")
        saturation.set_ylim(bottom=0)
        saturation.legend(loc="lower right")

    points = rates(lines)
    if points:
        speed.plot(*zip(*points), label="over the last minute (or tenth of the run)")
    overall = last["examples"] / last["elapsed"] if last["elapsed"] > 0 else 0.0
    speed.axhline(overall, color="black", linestyle="--", linewidth=1, label=f"whole run: {overall:.2f}/s")
    speed.set(title="examples per second", xlabel="minutes", ylabel="examples / s")
    speed.set_ylim(bottom=0)
    speed.legend(loc="lower right")

    for key, label in (("findings", "new findings"), ("unblamed", "new bugs of the plain build"),
                       ("known", "known-bug hits")):
        if key == "unblamed" and not last[key]:
            continue
        found.step(minutes, [line[key] for line in lines], where="post", label=f"{label} ({last[key]})")
    highest, new = 0, []
    for m, line in zip(minutes, lines):  # a dot where the count first rose: a lost round seen again is no new dot
        if line["findings"] > highest:
            new.append((m, line["findings"]))
            highest = line["findings"]
    if new:
        found.scatter(*zip(*new), color="red", zorder=3)
    found.set(title="findings and known hits", xlabel="minutes", ylabel="count")
    found.set_ylim(bottom=0)
    found.legend(loc="upper left")

    # the most-run passes (a rate of 1 run says little), highest rate on top
    most_run = sorted(last["passes"].items(), key=lambda item: (-item[1]["runs"], item[0]))[:_PASSES_SHOWN]
    passes = sorted(most_run, key=lambda item: (-item[1]["rate"], item[0]))
    if passes:
        bars = rates_axes.barh([name for name, _ in passes], [100 * figures["rate"] for _, figures in passes],
                          height=0.6)
        rates_axes.set_ylim(max(len(passes), 4) - 0.3, -0.7)  # the highest rate on top; a few passes make no fat bars
        rates_axes.bar_label(bars, labels=[f"of {figures['runs']}" for _, figures in passes], padding=3,
                        fontsize="small")
        rates_axes.set_xlim(0, 115)
    else:
        rates_axes.text(0.5, 0.5, "no pass ran", ha="center", va="center", transform=rates_axes.transAxes)
    shown = f", the {len(passes)} most run of {len(last['passes'])}" if len(passes) < len(last["passes"]) else ""
    rates_axes.set(title=f"fire rate per pass{shown}", xlabel="% of the examples it ran in where it changed the module")

    split.stackplot(minutes, [line["seconds_generating"] / 60 for line in lines],
                    [line["seconds_shrinking"] / 60 for line in lines],
                    labels=["generating", "shrinking and reducing"])
    split.set(title="time checking examples (summed over workers)", xlabel="minutes", ylabel="minutes")
    split.legend(loc="upper left")

    memory.plot(minutes, [line["rss_bytes"] / _MIB for line in lines], label="passfuzz process")
    memory.plot(minutes, [line["children_rss_bytes"] / _MIB for line in lines], label="live children, summed",
                alpha=0.6)
    source = "" if last["memory_source"] == "proc" else " (peak so far: no /proc)"
    memory.set(title=f"resident memory{source}", xlabel="minutes", ylabel="MiB")
    memory.set_ylim(bottom=0)
    memory.legend(loc="lower right")
    return fig


def png(lines: list[dict], title: str = "", resumed_at: list[float] = ()) -> bytes:
    buffer = io.BytesIO()
    figure(lines, title, resumed_at).savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def final_figures(lines: list[dict], resumed_at: list[float] = ()) -> list[tuple[str, str]]:
    """The table of an HTML report: what the run came to."""
    first, last = lines[0], lines[-1]
    state = f"finished ({last['stop_reason'] or 'done'})" if last["final"] \
        else "not finished (still running, or killed)"
    if resumed_at:
        state += f", resumed {_count(len(resumed_at), 'time')}"
    rate = last["examples"] / last["elapsed"] if last["elapsed"] > 0 else 0.0
    return [
        ("run", state),
        ("elapsed", f"{last['elapsed'] / 60:.1f} min" + (" (the segments' time, summed)" if resumed_at else "")),
        ("examples", f"{last['examples']} ({rate:.2f}/s)"),
        ("shrink runs", str(last["shrink_runs"])),
        ("new findings", str(last["findings"])),
        ("new bugs of the plain build", str(last["unblamed"])),
        ("outside the pass contracts", str(last["outside_contract"])),
        ("known bugs hit", str(last["known"])),
        ("generator defects", str(last["generator_defects"])),
        ("incomparable", str(last["incomparable"])),
        ("passes changed the module", f"{100 * last['fired'] / max(last['examples'], 1):.0f}% of examples"),
        ("time generating / shrinking", f"{last['seconds_generating']:.0f} s / {last['seconds_shrinking']:.0f} s"),
        ("passfuzz process memory", f"{first['rss_bytes'] / _MIB:.0f} MiB at the start, "
                                    f"{last['rss_bytes'] / _MIB:.0f} MiB at the end, "
                                    f"{max(line['rss_bytes'] for line in lines) / _MIB:.0f} MiB at most"),
    ]


_LISTED = {"findings": "new finding", "unblamed": "new bug of TVM's plain build",
           "outside_contract": "outside the pass contracts (misuse, not a bug)"}


def findings_table(saved: dict[str, dict[str, str]], logged: int = 0) -> str:
    """The HTML table of what the run saved, each with the command that reproduces it; ``logged``:
    how many findings the run log counts (a cluster run keeps no worker files to list them from)."""
    rows = [f"<tr><td><code>{html.escape(fid)}</code></td><td>{html.escape(_LISTED[what])}</td>"
            f"<td><code>{html.escape(record)}</code></td>"
            f"<td><code>python {html.escape(record[:-len('.json')])}.py</code></td></tr>"
            for what in _LISTED for fid, record in sorted(saved.get(what, {}).items())]
    if not rows:
        if logged:
            return (f"<p>The run log counts {_count(logged, 'new finding')}, but the run directory lists none "
                    "(a cluster run keeps no worker files): see the corpus.</p>")
        return "<p>No finding saved.</p>"
    return ("<table class=\"findings\">\n<tr><th>finding</th><th>what</th><th>record</th><th>reproduce</th></tr>\n"
            + "\n".join(rows) + "\n</table>")


def page(lines: list[dict], title: str, resumed_at: list[float] = (), saved: dict | None = None) -> str:
    image = base64.b64encode(png(lines, title, resumed_at)).decode()
    rows = "\n".join(f"<tr><th>{html.escape(name)}</th><td>{html.escape(value)}</td></tr>"
                     for name, value in final_figures(lines, resumed_at))
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body {{font-family: sans-serif; margin: 2em}} th {{text-align: left; padding-right: 2em}}
td {{padding-right: 2em}} img {{max-width: 100%}}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<table>
{rows}
</table>
<h2>Findings</h2>
{findings_table(saved or {}, lines[-1]["findings"] + lines[-1]["unblamed"])}
<h2>Over time</h2>
<img alt="examples, examples per second, findings and known hits, fire rate per pass, time generating and
 shrinking, memory" src="data:image/png;base64,{image}">
</body>
</html>
"""


def write(lines: list[dict], out: Path, title: str, resumed_at: list[float] = (), saved: dict | None = None) -> None:
    """``out``'s suffix says which: .png or .html (which alone lists ``saved``, the findings)."""
    if out.suffix.lower() == ".html":
        out.write_text(page(lines, title, resumed_at, saved), encoding="utf-8")
    else:
        out.write_bytes(png(lines, title, resumed_at))
