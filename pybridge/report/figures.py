"""The report's figures (PNG, as the LCV paper draws them): index errors, compared curves, steering
frequency responses, identified parameters, convergence; and :func:`draw_figures`, all of them for
one report, numbered in the order of the page.
"""
from __future__ import annotations

import math
import shutil
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

from pybridge.evaluate.compare import COMPARISON_FILE, trace_path  # noqa: E402
from pybridge.evaluate.kpi import DERIVED, evaluate_indices, frf, index_functions  # noqa: E402
from pybridge.report.determined import determined_figures  # noqa: E402
from pybridge.report.html import Figure  # noqa: E402
from pybridge.report.inputs import recorded_input_figures  # noqa: E402
from pybridge.report.run_folder import SETS, ReportError, Run  # noqa: E402
from pybridge.simulate.scenarios import OUTPUT_CHANNELS  # noqa: E402
from pybridge.traces import find_trace, read_trace  # noqa: E402

DPI = 110
FREQUENCY_TICKS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0)
COLORS = {"reference": "black", "nominal": "tab:blue", "optimized": "tab:orange"}
LABELS = {"reference": "MBM reference", "nominal": "RTM nominal", "optimized": "RTM optimized"}
DEGREES = {"rad": ("deg", 180.0 / math.pi), "rad/s": ("deg/s", 180.0 / math.pi)}


def plot_parameter_changes(summary: dict, path: str | Path) -> Path:
    """Optimized parameters in % of nominal, with the search bounds (LCV paper, Figure 13); a parameter
    whose nominal is 0 has no percentage: its absolute change is written on its row instead."""
    params = summary["parameters"]
    names = list(params)
    zero = [p["nominal"] == 0 for p in params.values()]
    change = [0.0 if z else p["change_percent"] for z, p in zip(zero, params.values())]
    lower = [None if z else 100 * (p["lower"] / p["nominal"] - 1) for z, p in zip(zero, params.values())]
    upper = [None if z else 100 * (p["upper"] / p["nominal"] - 1) for z, p in zip(zero, params.values())]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(names) + 1.5))
    y = range(len(names))
    ax.barh(y, change, color=["tab:red" if c < 0 else "tab:blue" for c in change])
    for i, (lo, hi) in enumerate(zip(lower, upper)):
        if lo is None:
            p = params[names[i]]
            ax.text(0, i, f" nominal 0: change {p['optimized'] - p['nominal']:+.4g} "
                          f"(bounds {p['lower']:.4g} .. {p['upper']:.4g})", va="center", fontsize=8)
            continue
        ax.plot([min(lo, hi), max(lo, hi)], [i, i], "|", color="grey", markersize=12)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(list(y), names)
    ax.invert_yaxis()
    ax.set_xlabel("change from the converted (nominal) value [%]  (| = search bounds)")
    ax.set_title("Identified parameters (LCV paper, Fig. 13)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)


def plot_index_errors(summary: dict, path: str | Path, tolerance: float = 5.0) -> Path:
    """Error of every weighted index, nominal vs optimized, with the TP line (LCV paper, Figs. 14, 16, 18)."""
    nominal, optimized = summary["nominal"]["indices"], summary["optimized"]["indices"]
    names = [n for n, v in nominal.items() if v["weight"] > 0 and n in optimized]
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(names) + 1.5))
    y = list(range(len(names)))
    ax.barh([i - 0.2 for i in y], [nominal[n]["error_percent"] for n in names], height=0.4, label="nominal")
    ax.barh([i + 0.2 for i in y], [optimized[n]["error_percent"] for n in names], height=0.4, label="optimized")
    ax.axvline(tolerance, color="tab:red", linestyle="--", label=f"TP = {tolerance:g} %")
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlabel("index error e [%] (RMSE normalised, Tables 1-2)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)


def plot_convergence(summary: dict, path: str | Path) -> Path:
    """Best fitness over evaluations."""
    history = summary["history"]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([h["evaluations"] for h in history], [h["fitness"] for h in history], marker=".")
    ax.set_xlabel("evaluations")
    ax.set_ylabel("fitness (Eq. 9)")
    ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)


def _channel_unit(channel: str) -> tuple[str, float]:
    """Display unit and factor from SI for a channel (or a derived one of pybridge.evaluate.kpi)."""
    source = DERIVED[channel][0][0] if channel in DERIVED else channel
    unit = OUTPUT_CHANNELS.get(source, ("-",))[0]
    return DEGREES.get(unit, (unit, 1.0))


def _index_option(manoeuvre: str, index: str, key: str, default=None):
    function = index_functions[manoeuvre][index]
    return getattr(function, "keywords", {}).get(key, default)


def abscissa_label(manoeuvre: str) -> str:
    function = index_functions[manoeuvre][next(iter(index_functions[manoeuvre]))]
    kind = getattr(getattr(function, "func", function), "__name__", "")
    return {"ramp_map_index": "lateral acceleration |ay| [m/s²]",
            "frf_index": "frequency [Hz]",
            "step_index": "time from 50 % of the steering step [s]"}.get(kind, "time [s]")


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _errors_figure(comparison: dict, path: Path) -> Path:
    """A panel per manoeuvre: index error nominal vs optimized as grouped horizontal bars, TP line."""
    tolerance = comparison["tolerance_percent"]
    manoeuvres = list(comparison["manoeuvres"])
    sizes = [len(comparison["manoeuvres"][m]["indices"]) + 2.2 for m in manoeuvres]
    columns: list[list[str]] = [[], []] if len(manoeuvres) > 1 else [[]]
    heights = [0.0] * len(columns)
    for manoeuvre, size in zip(manoeuvres, sizes):  # fill the shorter column
        k = int(np.argmin(heights))
        columns[k].append(manoeuvre)
        heights[k] += size
    fig = plt.figure(figsize=(6.2 * len(columns), 0.27 * max(heights) + 0.9))
    grid = fig.add_gridspec(1, len(columns), wspace=0.55)
    for k, column in enumerate(columns):
        if not column:
            continue
        sub = grid[0, k].subgridspec(len(column), 1, height_ratios=[sizes[manoeuvres.index(m)] for m in column],
                                     hspace=0.9)
        for row, manoeuvre in enumerate(column):
            ax = fig.add_subplot(sub[row, 0])
            entry = comparison["manoeuvres"][manoeuvre]
            names = list(entry["indices"])
            y = np.arange(len(names))
            top = 0.0
            for offset, name in ((-0.2, "nominal"), (0.2, "optimized")):
                values = [entry["indices"][i].get(name) for i in names]
                bars = [np.nan if v is None else v for v in values]
                ax.barh(y + offset, bars, height=0.4, color=COLORS[name], label=LABELS[name])
                top = max([top, *[v for v in values if v is not None]])
            ax.axvline(tolerance, color="tab:red", linestyle="--", linewidth=1.2, label=f"TP = {tolerance:g} %")
            labels = [f"{i} (w=0)" if entry["role"] == "objective" and not entry["indices"][i].get("weight", 0) > 0
                      else i for i in names]
            ax.set_yticks(y, labels, fontsize=8)
            ax.invert_yaxis()
            if top > 100:
                ax.set_xscale("symlog", linthresh=tolerance)
            else:
                ax.set_xlim(0, max(1.12 * top, 2 * tolerance))
            failed = ", ".join(entry.get("failed", {}))
            role = "objective" if entry["role"] == "objective" else "validation (not in the fitness)"
            ax.set_title(f"{manoeuvre}: {role}" + (f"; failed: {failed}" if failed else ""), fontsize=9,
                         loc="left", color="black" if entry["role"] == "objective" else "tab:purple")
            ax.tick_params(axis="x", labelsize=8)
            ax.grid(True, axis="x", alpha=0.3)
            if row == len(column) - 1:
                ax.set_xlabel("index error e [%]", fontsize=8)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=3, fontsize=9, frameon=False)
    fig.subplots_adjust(left=0.2, right=0.97, top=1 - 0.55 / fig.get_figheight(), bottom=0.45 / fig.get_figheight())
    return _save(fig, path)


def _set_traces(run_dir: Path, comparison: dict, manoeuvre: str):
    traces = {}
    for name in SETS:
        path = trace_path(run_dir, name, manoeuvre)
        if name not in comparison["manoeuvres"][manoeuvre].get("failed", {}) and path.is_file():
            traces[name] = read_trace(path)[0]
    return traces


def _curves(manoeuvre: str, traces: dict, reference) -> dict:
    """channel -> {"indices": [...], "abscissa", "reference", set -> (abscissa, curve)} from the kpi indices."""
    groups: dict[str, dict] = {}
    for index in index_functions[manoeuvre]:
        channel = _index_option(manoeuvre, index, "channel", index)
        group = groups.setdefault(channel, {"indices": []})
        group["indices"].append(index)
        for name, trace in traces.items():
            if name in group:
                continue
            try:
                result = evaluate_indices(manoeuvre, trace, reference, [index])[0]
            except Exception:  # this index cannot be drawn for this set; the table says why
                continue
            group[name] = (result.abscissa, result.candidate_curve)
            if "reference" not in group or len(result.abscissa) > len(group["reference"][0]):
                group["reference"] = (result.abscissa, result.reference_curve)
    return groups


def _panel_title(channel: str, indices: list[str], entry: dict) -> str:
    """Channel, its indices (when several share the curve) and the errors of the curve's own index."""
    names = [i[len(channel) + 1:] if i.startswith(channel + "_") else i for i in indices]
    title = channel if len(indices) == 1 else f"{channel} (indices: {', '.join(names)})"
    shown = indices[0] if len(indices) == 1 else next((i for i in indices if i.endswith("_trace")), None)
    if shown is not None:
        values = [f"{name} {entry['indices'][shown][name]:.2f} %" for name in SETS
                  if entry["indices"][shown].get(name) is not None]
        if values:
            label = "e" if len(indices) == 1 else f"e({shown})"
            title += f"\n{label}: " + ", ".join(values)
    return "\n".join(textwrap.wrap(title.split("\n")[0], 62) + title.split("\n")[1:])


def _title_and_legend(fig, ax, title: str) -> None:
    """Title and one legend for all panels on top of the figure, then the panels laid out below them."""
    height = fig.get_figheight()
    fig.text(0.5, 1 - 0.12 / height, title, ha="center", va="top", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.36 / height))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.62 / height))


def panel_axes(count: int, row_height: float):
    """A figure of ``count`` panels in up to two columns (the unused cell hidden) and its axes, row by row."""
    ncols = 2 if count > 1 else 1
    nrows = math.ceil(count / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.4 * ncols, row_height * nrows + 1.0), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def _trace_figure(manoeuvre: str, comparison: dict, groups: dict, path: Path) -> Path | None:
    tolerance = comparison["tolerance_percent"]
    entry = comparison["manoeuvres"][manoeuvre]
    panels = [(channel, group) for channel, group in groups.items() if "reference" in group]
    if not panels:
        return None
    fig, axes = panel_axes(len(panels), row_height=2.9)
    for ax, (channel, group) in zip(axes, panels):
        unit, factor = _channel_unit(channel)
        x, ref = group["reference"]
        half = tolerance / 100 * float(np.ptp(ref)) * factor
        ax.fill_between(x, ref * factor - half, ref * factor + half, color="0.85", linewidth=0,
                        label=f"±{tolerance:g} % of the reference range")
        ax.plot(x, ref * factor, color=COLORS["reference"], lw=1.6, label=LABELS["reference"])
        for name in SETS:
            if name in group:
                xs, ys = group[name]
                ax.plot(xs, ys * factor, color=COLORS[name], lw=1.1, linestyle="--" if name == "nominal" else "-",
                        label=LABELS[name])
        ax.set_title(_panel_title(channel, group["indices"], entry), fontsize=8.5, loc="left")
        ax.set_ylabel(f"{channel} [{unit}]", fontsize=8)
        ax.set_xlabel(abscissa_label(manoeuvre), fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
    role = "objective" if entry["role"] == "objective" else "validation"
    _title_and_legend(fig, axes[0], f"{manoeuvre} ({role}): MBM reference vs RTM")
    return _save(fig, path)


def _frf_figure(run_dir: Path, comparison: dict, reference, path: Path) -> Path | None:
    """|H| and coherence of each sine-sweep channel over the steering-wheel angle, log frequency."""
    manoeuvre = "sine_sweep"
    tolerance = comparison["tolerance_percent"]
    traces = {"reference": reference, **_set_traces(run_dir, comparison, manoeuvre)}
    indices = list(index_functions[manoeuvre])
    step = float(np.median(np.diff(reference["time"].to_numpy())))
    fig, axes = plt.subplots(2, len(indices), figsize=(4.2 * len(indices), 5.6), squeeze=False,
                             sharex="col", gridspec_kw={"height_ratios": [2.2, 1]})
    drawn = False
    for k, index in enumerate(indices):
        channel = _index_option(manoeuvre, index, "channel")
        segment = _index_option(manoeuvre, index, "segment", 10.0)
        unit, factor = _channel_unit(channel)
        per_steer = factor * math.pi / 180.0  # SI per rad of steering -> display unit per deg
        used = None
        try:
            used = evaluate_indices(manoeuvre, traces.get("optimized", traces.get("nominal")), reference,
                                    [index])[0].abscissa if len(traces) > 1 else None
        except Exception:
            used = None
        for name, trace in traces.items():
            try:
                f, gain, coherence = frf(trace, channel, step=step, segment=segment, where=f"{manoeuvre} {name}")
            except Exception:
                continue
            top = 1.1 * float(used.max()) if used is not None and len(used) else 5.0
            keep = (f > 0) & (f <= top)
            style = dict(color=COLORS[name], lw=1.6 if name == "reference" else 1.1,
                         linestyle="--" if name == "nominal" else "-")
            axes[0, k].plot(f[keep], gain[keep] * per_steer, label=LABELS[name], **style)
            axes[1, k].plot(f[keep], coherence[keep], **style)
            if name == "reference" and used is not None and len(used):
                band = np.isin(f, used)
                half = tolerance / 100 * float(np.sqrt(np.mean(gain[band] ** 2))) * per_steer
                axes[0, k].fill_between(f[band], gain[band] * per_steer - half, gain[band] * per_steer + half,
                                        color="0.85", label=f"±{tolerance:g} % (index frequencies)")
            drawn = True
        axes[0, k].set_title(_panel_title(index, [index], comparison["manoeuvres"][manoeuvre]), fontsize=8.5,
                             loc="left")
        axes[0, k].set_ylabel(f"|{channel} / steering wheel| [{unit}/deg]", fontsize=8)
        axes[1, k].set_ylabel("coherence [-]", fontsize=8)
        axes[1, k].set_xlabel("frequency [Hz]", fontsize=8)
        axes[1, k].set_ylim(0, 1.05)
        for ax in axes[:, k]:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_xticks([t for t in FREQUENCY_TICKS if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]])
            ax.grid(True, which="both", alpha=0.3)
            ax.tick_params(labelsize=8)
    if not drawn:
        plt.close(fig)
        return None
    _title_and_legend(fig, axes[0, 0], "sine_sweep: steering frequency responses, MBM reference vs RTM")
    return _save(fig, path)


# ---------------------------------------------------------------- the figures of one report

def draw_figures(run: Run, comparison: dict, out: Path) -> dict[str, list[Figure]]:
    """Every figure of the report into ``out``, grouped by section and numbered in page order."""
    references = _reference_traces(run, comparison)
    figures = {"errors": [_index_errors(comparison, out)],
               "traces": _compared_curves(run, comparison, references, out)
               + recorded_input_figures(comparison, references, out),
               "frf": _frequency_responses(run, comparison, references, out),
               "parameters": [_parameter_changes(run, out)],
               "determined": determined_figures(run, out),
               "convergence": [_convergence(run, out)] if run.summary.get("history") else [],
               "sensitivity": _sensitivity_chart(run, out)}
    number = 0
    for group in figures.values():
        for figure in group:
            number += 1
            figure.number = number
    return figures


def _reference_traces(run: Run, comparison: dict) -> dict:
    references = {}
    for manoeuvre in comparison["manoeuvres"]:
        try:
            references[manoeuvre] = read_trace(find_trace(Path(comparison["reference"]), manoeuvre))[0]
        except (FileNotFoundError, ValueError) as error:
            raise ReportError(f"{run.folder / COMPARISON_FILE}: reference: {error}") from None
    return references


def _index_errors(comparison: dict, out: Path) -> Figure:
    tolerance = comparison["tolerance_percent"]
    return Figure(
        _errors_figure(comparison, out / "index_errors.png"),
        "Horizontal grouped bars: index error in percent for every index of every manoeuvre, nominal and "
        f"optimized RTM, with a dashed line at the tolerance TP = {tolerance:g} %.",
        f"Index errors e per manoeuvre, nominal vs optimized, with the tolerance TP = {tolerance:g} % "
        "(LCV paper, Figs. 14, 16, 18). Objective manoeuvres are in the fitness; validation manoeuvres "
        "(purple titles) are not; '(w=0)' marks an index computed but weighted 0.")


def _compared_curves(run: Run, comparison: dict, references: dict, out: Path) -> list[Figure]:
    tolerance = comparison["tolerance_percent"]
    figures = []
    for manoeuvre, entry in comparison["manoeuvres"].items():
        if manoeuvre == "sine_sweep":
            continue
        groups = _curves(manoeuvre, _set_traces(run.folder, comparison, manoeuvre), references[manoeuvre])
        path = _trace_figure(manoeuvre, comparison, groups, out / f"traces_{manoeuvre}.png")
        if path is None:
            continue
        channels = ", ".join(g for g in groups)
        figures.append(Figure(
            path, f"Line plots for {manoeuvre}: {channels} against {abscissa_label(manoeuvre)}; MBM reference "
                  f"with a grey ±{tolerance:g} % band, RTM nominal dashed and RTM optimized solid.",
            f"{manoeuvre} ({entry['role']}): the curves the indices compare, MBM reference vs RTM nominal vs "
            f"RTM optimized, band ±{tolerance:g} % of the reference curve's range (LCV paper, Figs. 15, 17, 19)."))
    return figures


def _frequency_responses(run: Run, comparison: dict, references: dict, out: Path) -> list[Figure]:
    if "sine_sweep" not in comparison["manoeuvres"]:
        return []
    path = _frf_figure(run.folder, comparison, references["sine_sweep"], out / "frf_sine_sweep.png")
    if path is None:
        return []
    return [Figure(
        path, "Frequency response magnitudes of roll, lateral acceleration and yaw rate over the "
              "steering-wheel angle against frequency on a log axis, with coherence below; MBM reference, "
              "RTM nominal and RTM optimized.",
        f"sine_sweep: |H1| over the steering-wheel angle and coherence. The grey band (±{comparison['tolerance_percent']:g} % "
        "of the reference's RMS gain) covers the frequencies where both coherences reach the index's "
        "threshold, i.e. where the FRF indices are computed.")]


def _parameter_changes(run: Run, out: Path) -> Figure:
    return Figure(
        plot_parameter_changes(run.summary, out / "parameter_changes.png"),
        "Horizontal bars: change of each identified parameter from its nominal value in percent, with the "
        "search bounds marked.",
        "Identified parameters in % of the converted (nominal) value; | marks the search bounds "
        "(LCV paper, Fig. 13).")


def _convergence(run: Run, out: Path) -> Figure:
    return Figure(
        plot_convergence(run.summary, out / "convergence.png"),
        "Line plot of the best fitness against the number of evaluations, logarithmic fitness axis.",
        f"Convergence: best fitness (Eq. 9) over the evaluations of the {run.summary['method']} run.")


def _sensitivity_chart(run: Run, out: Path) -> list[Figure]:
    source = run.folder / "sensitivity.png"
    if not source.is_file():
        return []
    target = out / "sensitivity.png"
    if target.resolve() != source.resolve():
        shutil.copyfile(source, target)
    return [Figure(target, "Sensitivity analysis chart of the run: importance of each parameter.",
                   "Sensitivity of the indices to the uncertain parameters (from the run's sensitivity analysis).")]
