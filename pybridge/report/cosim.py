"""The report of a co-simulation run (``pybridge cosim --report DIR``): one self-contained HTML page in the
identification report's style (pybridge.report.html: inline stylesheet, figures as base64 PNG) with the run's
facts (system, step, wall time, real-time factor, overruns) and every output trace plotted, grouped
by component; ``DIR/traces.png`` is the figure.
"""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt

from pybridge.rig.cosim import CosimResult
from pybridge.fileio import write_text_atomically
from pybridge.report.figures import DPI
from pybridge.report.html import HTML_FILE, Figure, escape, figure_html, html_table, page

__all__ = ["write_cosim_report"]


def _traces_figure(result: CosimResult, path: Path) -> Path:
    columns = [c for c in result.trace.columns if c != "time"]
    cols = 2
    rows = max(1, math.ceil(len(columns) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(11, 2.2 * rows), sharex=True, squeeze=False)
    time = result.trace["time"]
    for ax, column in zip(axes.ravel(), columns):
        ax.plot(time, result.trace[column], lw=1.0)
        ax.set_title(column, fontsize=9)
        ax.set_ylabel(f"[{result.units.get(column, '1')}]", fontsize=8)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=8)
    for ax in axes.ravel()[len(columns):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]", fontsize=8)
    fig.subplots_adjust(left=0.08, right=0.98, top=1 - 0.35 / rows, bottom=0.45 / rows, hspace=0.45, wspace=0.22)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def write_cosim_report(result: CosimResult, ssp: str | Path, out_dir: str | Path) -> Path:
    """Write ``out_dir/report.html`` and ``out_dir/traces.png``; returns the HTML path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figure = Figure(_traces_figure(result, out / "traces.png"), "outputs of every component against time",
                     "Outputs of every component of the system (libcosim, fixed step, Jacobi coupling).", 1)
    end = float(result.trace["time"].iloc[-1])
    facts = [["system", str(Path(ssp).resolve())], ["engine", "libcosim (libcosimpy), fixed-step algorithm"],
             ["communication step", f"{result.step:g} s"], ["simulated", f"{end:g} s"],
             ["wall time", f"{result.wall_time:.2f} s"], ["real-time factor", f"{result.real_time_factor:.2f}"],
             ["paced to the wall clock", "yes" if result.real_time else "no"]]
    if result.real_time:
        facts += [["overruns (steps ending later than one step behind the wall clock)", str(result.overruns)],
                  ["largest lag behind the wall clock", f"{result.max_lag * 1e3:.2f} ms"]]
    body = f"""<header>
<h1>Co-simulation report</h1>
<p>Closed-loop run of <code>{escape(Path(ssp).name)}</code>.</p>
{html_table(None, facts)}
</header>
<section id="traces">
<h2>1. Traces</h2>
{figure_html(figure)}
</section>"""
    return write_text_atomically(out / HTML_FILE, page(f"Co-simulation report: {Path(ssp).name}", [body], 1,
                                                       "pybridge.report.cosim"))
