"""A run log (passfuzz.campaign.run_log) as pictures: examples and findings over time, fire rate per pass,
time generating against shrinking, memory over time; as a PNG, or an HTML page holding the PNG
and a table of the final figures.

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


def figure(lines: list[dict], title: str = "") -> Figure:
    """The four plots of a run, one per axes."""
    fig = Figure(figsize=(12, 8.5), layout="constrained")
    FigureCanvasAgg(fig)
    if title:
        fig.suptitle(title)
    progress, rates, split, memory = fig.subplots(2, 2).flat
    minutes = _minutes(lines)
    last = lines[-1]

    progress.plot(minutes, [line["examples"] for line in lines], label="examples")
    progress.plot(minutes, [line["shrink_runs"] for line in lines], label="shrink runs", linestyle="--")
    new = [(m, line["examples"]) for m, line, before in zip(minutes[1:], lines[1:], lines)
           if line["findings"] > before["findings"]]  # a dot on the curve where findings were saved
    if new:
        progress.scatter(*zip(*new), color="red", zorder=3, label=f"new finding saved ({last['findings']} in all)")
    progress.set(title=f"examples ({_count(last['findings'], 'finding')}, {_count(last['known'], 'known hit')}, "
                       f"{_count(last['generator_defects'], 'generator defect')})", xlabel="minutes", ylabel="count")
    progress.legend(loc="upper left")
    if any(line.get("behaviours") for line in lines):  # the behaviour corpus's saturation curve
        saturation = progress.twinx()
        saturation.plot(minutes, [line.get("behaviours", 0) for line in lines], color="green", linestyle=":",
                        label="behaviours first seen")
        saturation.set_ylabel("behaviours first seen")
        saturation.set_ylim(bottom=0)
        saturation.legend(loc="lower right")

    # the most-run passes (a rate of 1 run says little), highest rate on top
    most_run = sorted(last["passes"].items(), key=lambda item: (-item[1]["runs"], item[0]))[:_PASSES_SHOWN]
    passes = sorted(most_run, key=lambda item: (-item[1]["rate"], item[0]))
    if passes:
        bars = rates.barh([name for name, _ in passes], [100 * figures["rate"] for _, figures in passes],
                          height=0.6)
        rates.set_ylim(max(len(passes), 4) - 0.3, -0.7)  # the highest rate on top; a few passes make no fat bars
        rates.bar_label(bars, labels=[f"of {figures['runs']}" for _, figures in passes], padding=3,
                        fontsize="small")
        rates.set_xlim(0, 115)
    else:
        rates.text(0.5, 0.5, "no pass ran", ha="center", va="center", transform=rates.transAxes)
    shown = f", the {len(passes)} most run of {len(last['passes'])}" if len(passes) < len(last["passes"]) else ""
    rates.set(title=f"fire rate per pass{shown}", xlabel="% of the examples it ran in where it changed the module")

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


def png(lines: list[dict], title: str = "") -> bytes:
    buffer = io.BytesIO()
    figure(lines, title).savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def final_figures(lines: list[dict]) -> list[tuple[str, str]]:
    """The table of an HTML report: what the run came to."""
    first, last = lines[0], lines[-1]
    state = f"finished ({last['stop_reason'] or 'done'})" if last["final"] \
        else "not finished (still running, or killed)"
    return [
        ("run", state),
        ("elapsed", f"{last['elapsed'] / 60:.1f} min"),
        ("examples", f"{last['examples']} ({last['examples_per_second']:.2f}/s)"),
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


def page(lines: list[dict], title: str) -> str:
    image = base64.b64encode(png(lines, title)).decode()
    rows = "\n".join(f"<tr><th>{html.escape(name)}</th><td>{html.escape(value)}</td></tr>"
                     for name, value in final_figures(lines))
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body {{font-family: sans-serif; margin: 2em}} th {{text-align: left; padding-right: 2em}}
img {{max-width: 100%}}</style></head>
<body>
<h1>{html.escape(title)}</h1>
<table>
{rows}
</table>
<img alt="examples and findings, fire rate per pass, time generating and shrinking, memory"
 src="data:image/png;base64,{image}">
</body>
</html>
"""


def write(lines: list[dict], out: Path, title: str) -> None:
    """``out``'s suffix says which: .png or .html."""
    if out.suffix.lower() == ".html":
        out.write_text(page(lines, title), encoding="utf-8")
    else:
        out.write_bytes(png(lines, title))
