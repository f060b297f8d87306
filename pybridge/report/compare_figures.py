"""Figures of a comparison of any number of parameter sets (``pybridge compare``): the index errors of every
set per manoeuvre against TP, and per manoeuvre the curves the indices compare, MBM reference vs each set.
The report's figures (:mod:`pybridge.report.figures`) draw the same for the nominal and optimized sets."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from pybridge.evaluate.compare import trace_path  # noqa: E402
from pybridge.report.figures import (  # noqa: E402
    _channel_unit, _curves, _save, _title_and_legend, abscissa_label, panel_axes)
from pybridge.traces import find_trace, read_trace  # noqa: E402

__all__ = ["draw_comparison_figures"]


def _colors(sets: list[str]) -> dict[str, str]:
    return {name: f"C{k % 10}" for k, name in enumerate(sets)}


def _errors(comparison: dict, path: Path) -> Path:
    """A panel per manoeuvre: the error of every index, one bar per set, the TP line."""
    sets, tolerance = comparison["sets"], comparison["tolerance_percent"]
    colors, manoeuvres = _colors(sets), comparison["manoeuvres"]
    sizes = [len(entry["indices"]) * (0.25 + 0.12 * len(sets)) + 1.0 for entry in manoeuvres.values()]
    fig, axes = plt.subplots(len(manoeuvres), 1, figsize=(8, sum(sizes) + 0.6), squeeze=False,
                             gridspec_kw={"height_ratios": sizes})
    width = 0.8 / len(sets)
    for ax, (manoeuvre, entry) in zip(axes[:, 0], manoeuvres.items()):
        names = list(entry["indices"])
        y = np.arange(len(names))
        top = 2 * tolerance
        for k, name in enumerate(sets):
            values = [entry["indices"][i].get(name) for i in names]
            ax.barh(y - 0.4 + width * (k + 0.5), [np.nan if v is None else v for v in values], height=width,
                    color=colors[name], label=name)
            top = max([top, *[1.12 * v for v in values if v is not None]])
        ax.axvline(tolerance, color="tab:red", linestyle="--", linewidth=1.2, label=f"TP = {tolerance:g} %")
        ax.set_yticks(y, names, fontsize=8)
        ax.invert_yaxis()
        if top > 100:
            ax.set_xscale("symlog", linthresh=tolerance)
        else:
            ax.set_xlim(0, top)
        failed = ", ".join(entry.get("failed", {}))
        ax.set_title(f"{manoeuvre} ({entry['role']})" + (f"; failed: {failed}" if failed else ""), fontsize=9,
                     loc="left")
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(True, axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("index error e [%]", fontsize=8)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=min(4, len(labels)), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))
    return _save(fig, path)


def _curves_figure(comparison: dict, manoeuvre: str, out_dir: Path, path: Path) -> Path | None:
    """The curves of every index of ``manoeuvre``: the MBM reference and each set that ran."""
    entry, colors = comparison["manoeuvres"][manoeuvre], _colors(comparison["sets"])
    traces = {name: read_trace(trace_path(out_dir, name, manoeuvre))[0] for name in comparison["sets"]
              if name not in entry.get("failed", {}) and trace_path(out_dir, name, manoeuvre).is_file()}
    reference = read_trace(find_trace(Path(comparison["reference"]), manoeuvre))[0]
    panels = [(c, g) for c, g in _curves(manoeuvre, traces, reference).items() if "reference" in g]
    if not panels:
        return None
    fig, axes = panel_axes(len(panels), row_height=2.7)
    for ax, (channel, group) in zip(axes, panels):
        unit, factor = _channel_unit(channel) if manoeuvre != "sine_sweep" else ("-", 1.0)
        x, ref = group["reference"]
        ax.plot(x, ref * factor, color="black", lw=1.6, label="MBM reference")
        for name in traces:
            if name in group:
                ax.plot(group[name][0], group[name][1] * factor, color=colors[name], lw=1.1, label=name)
        ax.set_title(f"{channel}: " + ", ".join(group["indices"]), fontsize=8.5, loc="left")
        ax.set_ylabel(f"{channel} [{unit}]" if manoeuvre != "sine_sweep" else f"|{channel} / steering wheel|",
                      fontsize=8)
        ax.set_xlabel(abscissa_label(manoeuvre), fontsize=8)
        if manoeuvre == "sine_sweep":
            ax.set_xscale("log")
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
    _title_and_legend(fig, axes[0], f"{manoeuvre} ({entry['role']}): MBM reference vs RTM")
    return _save(fig, path)


def draw_comparison_figures(comparison: dict, out_dir: str | Path) -> list[Path]:
    """``OUT/index_errors.png`` and ``OUT/curves_<manoeuvre>.png`` of a comparison written into ``out_dir``."""
    out_dir = Path(out_dir)
    paths = [_errors(comparison, out_dir / "index_errors.png")]
    for manoeuvre in comparison["manoeuvres"]:
        path = _curves_figure(comparison, manoeuvre, out_dir, out_dir / f"curves_{manoeuvre}.png")
        if path is not None:
            paths.append(path)
    return paths
