"""The report of an identification run folder: one self-contained HTML page and its figures as PNG.

``write_report(RUN)`` reads what ``pybridge identify`` wrote (``result.yaml``, ``params_nominal/``,
``params_optimized/``, the FMU) and, when ``RUN/comparison.yaml`` is missing, first simulates both
parameter sets on every manoeuvre of the reference data set (:func:`pybridge.compare.compare_parameter_sets`,
into RUN). It writes ``RUN/report/report.html`` and the figures as ``RUN/report/*.png``, in the order of
the LCV paper:

1. what was run and a verdict (fitness, indices within the tolerance TP, objective and validation);
2. the error of every index per manoeuvre, nominal vs optimized, with the TP line (Figs. 14, 16, 18),
   and the same numbers as a table;
3. the compared curves of every manoeuvre, MBM reference vs RTM nominal vs RTM optimized, with a
   band of ±TP % of the reference curve's range (the scale of the index), (Figs. 15, 17, 19);
4. the steering frequency responses of the sine sweep;
5. the identified parameters in % of nominal (Fig. 13) and a table;
6. the convergence history;
7. the run's metadata (``result.yaml``, ``RUN/run.yaml`` when present) and the sensitivity analysis
   (``RUN/sensitivity.yaml`` and ``RUN/sensitivity.png`` when present).

The page needs nothing else: every figure is a base64 PNG data URI, the stylesheet is inline, there
are no scripts, fonts or links. ``<meta name="vehiclertm-figures">`` holds the number of figures.
Angles are shown in degrees (the SI values are in the files).
"""
from __future__ import annotations

import base64
import html
import json
import math
import platform
import shutil
import textwrap
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

from pybridge.compare import (COMPARISON_FILE, CompareError, compare_parameter_sets, read_comparison,  # noqa: E402
                              trace_path)
from pybridge.identify.plots import plot_convergence, plot_parameter_changes  # noqa: E402
from pybridge.kpi import DERIVED, evaluate_indices, frf, index_functions  # noqa: E402
from pybridge.fileio import read_yaml, write_text_atomically  # noqa: E402
from pybridge.objective import DEFAULT_FILE  # noqa: E402
from pybridge.parameters import ParameterSet, ParameterSetError, read_parameter_set  # noqa: E402
from pybridge.scenarios import OUTPUT_CHANNELS  # noqa: E402
from pybridge.traces import find_trace, read_trace  # noqa: E402

__all__ = ["HTML_FILE", "REPORT_DIR", "ReportError", "write_report"]

REPORT_DIR = "report"
HTML_FILE = "report.html"
SETS = ("nominal", "optimized")
DPI = 110
FREQUENCY_TICKS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0)
COLORS = {"reference": "black", "nominal": "tab:blue", "optimized": "tab:orange"}
LABELS = {"reference": "MBM reference", "nominal": "RTM nominal", "optimized": "RTM optimized"}
DEGREES = {"rad": ("deg", 180.0 / math.pi), "rad/s": ("deg/s", 180.0 / math.pi)}
REQUIRED_SUMMARY = ("method", "fmu", "reference", "parameters", "nominal", "optimized", "history")


class ReportError(ValueError):
    """A run folder the report cannot use; the message names the folder or file and what is missing."""


@dataclass
class _Figure:
    path: Path
    alt: str
    caption: str
    number: int = 0


@dataclass
class _Run:
    folder: Path
    summary: dict
    nominal: ParameterSet
    optimized: ParameterSet


# ---------------------------------------------------------------- reading the run folder

def _load_run(run_dir: Path) -> _Run:
    if not run_dir.is_dir():
        raise ReportError(f"{run_dir}: no such run folder (expected the output folder of pybridge identify)")
    result = run_dir / "result.yaml"
    if not result.is_file():
        raise ReportError(f"{run_dir}: result.yaml missing; expected the run folder of pybridge identify "
                          "(result.yaml, params_nominal/, params_optimized/, the FMU)")
    summary = read_yaml(result, ReportError)
    if not isinstance(summary, dict):
        raise ReportError(f"{result}: expected a mapping (the summary of pybridge identify)")
    missing = [key for key in REQUIRED_SUMMARY if key not in summary]
    if missing:
        raise ReportError(f"{result}: key(s) {missing} missing; expected the summary of pybridge identify")
    sets = {}
    for name in SETS:
        folder = run_dir / f"params_{name}"
        if not (folder / "params.yaml").is_file():
            raise ReportError(f"{run_dir}: params_{name}/params.yaml missing; expected the {name} parameter set")
        try:
            sets[name] = read_parameter_set(folder)
        except ParameterSetError as error:
            raise ReportError(str(error)) from None
    return _Run(run_dir, summary, sets["nominal"], sets["optimized"])


def _reference_dir(given: str, run_dir: Path) -> Path:
    path = Path(given)
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, run_dir / path,
                                                    Path(__file__).resolve().parent.parent / path]
    for candidate in candidates:
        if (candidate / "manifest.yaml").is_file():
            return candidate.resolve()
    raise ReportError(f"{run_dir / 'result.yaml'}: reference: data set '{given}' not found (looked in "
                      f"{', '.join(str(c) for c in candidates)}); expected a folder with manifest.yaml and traces/")


def _objective_file(run: _Run) -> Path:
    """The objective the run used: result.yaml's ``objective``, else the record's header, else the default."""
    given = run.summary.get("objective")
    if not given:
        try:
            with open(run.folder / "record.jsonl", encoding="utf-8") as handle:
                header = json.loads(handle.readline())
            given = header["problem"]["description"]["objective"]
        except (OSError, ValueError, KeyError, TypeError):
            given = None
    return Path(given) if given and Path(given).is_file() else DEFAULT_FILE


def _comparison(run: _Run, workers: int, progress: bool) -> dict:
    path = run.folder / COMPARISON_FILE
    if not path.is_file():
        fmu = run.folder / str(run.summary["fmu"])
        if not fmu.is_file():
            raise ReportError(f"{run.folder}: the FMU {run.summary['fmu']} named in result.yaml is missing; "
                              "expected it copied into the run folder")
        reference = _reference_dir(str(run.summary["reference"]), run.folder)
        try:
            compare_parameter_sets({"nominal": run.nominal, "optimized": run.optimized}, reference, fmu,
                                   run.folder, objective_file=_objective_file(run), workers=workers,
                                   progress=progress)
        except CompareError as error:
            raise ReportError(str(error)) from None
    try:
        comparison = read_comparison(path)
    except CompareError as error:
        raise ReportError(str(error)) from None
    missing = [name for name in SETS if name not in comparison["sets"]]
    if missing:
        raise ReportError(f"{path}: sets {missing} missing; expected {list(SETS)} (delete the file to recompute it)")
    return comparison


# ---------------------------------------------------------------- helpers

def _channel_unit(channel: str) -> tuple[str, float]:
    """Display unit and factor from SI for a channel (or a derived one of pybridge.kpi)."""
    source = DERIVED[channel][0][0] if channel in DERIVED else channel
    unit = OUTPUT_CHANNELS.get(source, ("-",))[0]
    return DEGREES.get(unit, (unit, 1.0))


def _index_option(manoeuvre: str, index: str, key: str, default=None):
    function = index_functions[manoeuvre][index]
    return getattr(function, "keywords", {}).get(key, default)


def _abscissa_label(manoeuvre: str) -> str:
    function = index_functions[manoeuvre][next(iter(index_functions[manoeuvre]))]
    kind = getattr(getattr(function, "func", function), "__name__", "")
    return {"ramp_map_index": "lateral acceleration |ay| [m/s²]",
            "frf_index": "frequency [Hz]",
            "step_index": "time from 50 % of the steering step [s]"}.get(kind, "time [s]")


def _fmt(value, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _fmt_number(value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value == 0 or 1e-3 <= abs(value) < 1e6:
        return f"{value:.6g}"
    return f"{value:.4e}"


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _save(fig, path: Path) -> Path:
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _values(entry: dict, index: str) -> dict:
    return {name: entry["indices"][index].get(name) for name in SETS}


def _within(comparison: dict, role: str, name: str) -> tuple[int, int]:
    """(indices within TP, indices) of set ``name`` over the weighted indices of ``role`` manoeuvres
    (every index for validation manoeuvres); a failed or missing value counts as not within."""
    tolerance = comparison["tolerance_percent"]
    inside = total = 0
    for entry in comparison["manoeuvres"].values():
        if entry["role"] != role:
            continue
        for index in entry["indices"].values():
            if role == "objective" and not index.get("weight", 0) > 0:
                continue
            total += 1
            value = index.get(name)
            inside += value is not None and value <= tolerance
    return inside, total


# ---------------------------------------------------------------- figures

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


def _trace_figure(manoeuvre: str, comparison: dict, groups: dict, path: Path) -> Path | None:
    tolerance = comparison["tolerance_percent"]
    entry = comparison["manoeuvres"][manoeuvre]
    panels = [(channel, group) for channel, group in groups.items() if "reference" in group]
    if not panels:
        return None
    ncols = 2 if len(panels) > 1 else 1
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.4 * ncols, 2.9 * nrows + 1.0), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (channel, group) in zip(axes.flat, panels):
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
        ax.set_xlabel(_abscissa_label(manoeuvre), fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
    role = "objective" if entry["role"] == "objective" else "validation"
    _title_and_legend(fig, axes.flat[0], f"{manoeuvre} ({role}): MBM reference vs RTM")
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


# ---------------------------------------------------------------- HTML

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;max-width:1180px;
margin:1.5em auto;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.above{background:#fbd5d5;color:#7a0000;font-weight:600}td.failed{background:#eee;color:#777}
tr.validation td:first-child{font-style:italic}
figure{margin:1.2em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9em;color:#444;margin-top:.3em}
.verdict{background:#f6f8fa;border-left:4px solid #4a7;padding:.6em 1em}
.note{color:#666;font-size:.9em}
"""


def _table(header: list[str] | None, rows: list[list[str]]) -> str:
    """An HTML table of escaped cells; without ``header`` the first cell of each row is a row heading."""
    if header is None:
        body = "\n".join(f'<tr><th scope="row">{_e(r[0])}</th>' + "".join(f"<td>{_e(c)}</td>" for c in r[1:])
                         + "</tr>" for r in rows)
        return f"<table>\n<tbody>\n{body}\n</tbody>\n</table>"
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "\n".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def _figure_html(figure: _Figure) -> str:
    data = base64.b64encode(figure.path.read_bytes()).decode("ascii")
    return (f'<figure id="fig{figure.number}">\n<img class="figure" src="data:image/png;base64,{data}" '
            f'alt="{_e(figure.alt)}">\n<figcaption>Figure {figure.number}. {_e(figure.caption)} '
            f'(<code>{_e(figure.path.name)}</code>)</figcaption>\n</figure>')


def _error_table(comparison: dict) -> str:
    tolerance = comparison["tolerance_percent"]
    rows = []
    for manoeuvre, entry in comparison["manoeuvres"].items():
        for index, values in entry["indices"].items():
            cells = [f"<td>{_e(manoeuvre)}</td>", f"<td>{_e(index)}</td>", f"<td>{_e(entry['role'])}</td>",
                     f'<td class="num">{_e(_fmt_number(values.get("weight", 0.0)))}</td>']
            for name in SETS:
                value = values.get(name)
                if value is None:
                    why = entry.get("failed", {}).get(name) or entry.get("unscored", {}).get(name, {}).get(index, "")
                    cells.append(f'<td class="num failed" data-set="{name}" title="{_e(why)}">failed</td>')
                else:
                    cls = "num above" if value > tolerance else "num"
                    cells.append(f'<td class="{cls}" data-set="{name}" data-value="{value!r}">{value:.2f}</td>')
            nominal, optimized = (values.get(n) for n in SETS)
            change = f"{optimized - nominal:+.2f}" if nominal is not None and optimized is not None else "–"
            cells.append(f'<td class="num">{change}</td>')
            rows.append(f'<tr class="{_e(entry["role"])}" data-manoeuvre="{_e(manoeuvre)}" data-index="{_e(index)}">'
                        + "".join(cells))
    header = ["manoeuvre", "index", "role", "weight", "nominal e [%]", "optimized e [%]", "change [points]"]
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "\n".join(r + "</tr>" for r in rows)
    return f'<table id="error-table">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>'


def _parameter_table(run: _Run) -> str:
    rows = []
    for name, p in run.summary["parameters"].items():
        rows.append([name, run.nominal.units.get(name, ""), _fmt_number(p["nominal"]), _fmt_number(p["optimized"]),
                     _fmt_number(p["lower"]), _fmt_number(p["upper"]), f"{p['change_percent']:+.2f}"])
    return _table(["parameter", "unit", "nominal", "optimized", "lower bound", "upper bound", "change [%]"], rows)


def _flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            out += _flatten(item, f"{prefix}.{key}" if prefix else str(key))
        return out or [(prefix, "{}")]
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return [(prefix, ", ".join(_fmt_number(v) for v in value))]
    if isinstance(value, list):
        out = []
        for k, item in enumerate(value):
            out += _flatten(item, f"{prefix}[{k}]")
        return out
    return [(prefix, _fmt_number(value))]


def _cell(value) -> str:
    if isinstance(value, (dict, list)):
        return "; ".join(f"{key}: {text}" if key else text for key, text in _flatten(value))
    return _fmt_number(value)


def _generic_yaml(data) -> str:
    """Key/value table of a mapping; a list of mappings becomes a table of its own (e.g. run steps)."""
    if not isinstance(data, dict):
        return _table(["value"], [[_fmt_number(data)]])
    parts, plain = [], {}
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            columns = list(dict.fromkeys(k for v in value for k in v))
            rows = [[_cell(v.get(c, "")) for c in columns] for v in value]
            parts.append(f"<h4>{_e(key)}</h4>\n" + _table(columns, rows))
        else:
            plain[key] = value
    flat = _flatten(plain)
    table = _table(["key", "value"], [list(r) for r in flat]) if plain else ""
    return table + "\n" + "\n".join(parts)


def _sensitivity_html(data) -> str:
    """Ranking and tunable set of RUN/sensitivity.yaml, read tolerantly; other keys as a key/value table."""
    if not isinstance(data, dict):
        return _generic_yaml(data)
    ranking = data.get("ranking") or data.get("overall")
    tunable = data.get("tunable") or data.get("proposed") or data.get("selected") or {}
    ranges = tunable if isinstance(tunable, dict) else {}
    tunable_names = set(tunable) if isinstance(tunable, (dict, list)) else set()
    rows = []
    if isinstance(ranking, dict):
        ranking = [{"parameter": k, "score": v} for k, v in ranking.items()]
    if isinstance(ranking, list):
        for k, item in enumerate(ranking, start=1):
            if isinstance(item, dict):
                name = item.get("parameter") or item.get("name") or ""
                score = item.get("score", item.get("overall", item.get("importance", "")))
            else:
                name, score = item, ""
            span = ranges.get(name)
            rows.append([str(k), str(name), _fmt_number(score) if score != "" else "",
                         "yes" if name in tunable_names else "no",
                         ", ".join(_fmt_number(v) for v in span) if isinstance(span, (list, tuple)) else ""])
    parts = []
    if rows:
        parts.append(_table(["rank", "parameter", "score", "tunable", "range"], rows))
    elif tunable_names:
        parts.append(_table(["tunable parameter", "range"],
                            [[n, ", ".join(_fmt_number(v) for v in ranges[n]) if isinstance(ranges.get(n),
                              (list, tuple)) else ""] for n in tunable]))
    rest = {k: v for k, v in data.items() if k not in ("ranking", "overall", "tunable", "proposed", "selected")}
    if rest:
        parts.append(_generic_yaml(rest))
    return "\n".join(parts)


# ---------------------------------------------------------------- the report

def write_report(run_dir: str | Path, out_dir: str | Path | None = None, *, workers: int = 2,
                 progress: bool = True) -> Path:
    """Write ``report.html`` and its PNG figures for a ``pybridge identify`` run folder; returns the HTML path.

    ``out_dir`` defaults to RUN/report. When RUN/comparison.yaml is missing, the nominal and optimized
    parameter sets are first simulated on every manoeuvre of the run's data set (``workers`` processes).
    Raises :class:`ReportError` for a folder that lacks what the report needs.
    """
    run_dir = Path(run_dir)
    run = _load_run(run_dir)
    comparison = _comparison(run, workers, progress)
    out = Path(out_dir) if out_dir is not None else run_dir / REPORT_DIR
    out.mkdir(parents=True, exist_ok=True)
    reference_dir = Path(comparison["reference"])
    summary, tolerance = run.summary, comparison["tolerance_percent"]

    figures: dict[str, list[_Figure]] = {key: [] for key in ("errors", "traces", "frf", "parameters",
                                                             "convergence", "sensitivity")}
    figures["errors"].append(_Figure(
        _errors_figure(comparison, out / "index_errors.png"),
        "Horizontal grouped bars: index error in percent for every index of every manoeuvre, nominal and "
        f"optimized RTM, with a dashed line at the tolerance TP = {tolerance:g} %.",
        f"Index errors e per manoeuvre, nominal vs optimized, with the tolerance TP = {tolerance:g} % "
        "(LCV paper, Figs. 14, 16, 18). Objective manoeuvres are in the fitness; validation manoeuvres "
        "(purple titles) are not; '(w=0)' marks an index computed but weighted 0."))

    references = {}
    for manoeuvre in comparison["manoeuvres"]:
        try:
            references[manoeuvre] = read_trace(find_trace(reference_dir, manoeuvre))[0]
        except (FileNotFoundError, ValueError) as error:
            raise ReportError(f"{run_dir / COMPARISON_FILE}: reference: {error}") from None
    for manoeuvre, entry in comparison["manoeuvres"].items():
        if manoeuvre == "sine_sweep":
            continue
        groups = _curves(manoeuvre, _set_traces(run_dir, comparison, manoeuvre), references[manoeuvre])
        path = _trace_figure(manoeuvre, comparison, groups, out / f"traces_{manoeuvre}.png")
        if path is None:
            continue
        channels = ", ".join(g for g in groups)
        figures["traces"].append(_Figure(
            path, f"Line plots for {manoeuvre}: {channels} against {_abscissa_label(manoeuvre)}; MBM reference "
                  f"with a grey ±{tolerance:g} % band, RTM nominal dashed and RTM optimized solid.",
            f"{manoeuvre} ({entry['role']}): the curves the indices compare, MBM reference vs RTM nominal vs "
            f"RTM optimized, band ±{tolerance:g} % of the reference curve's range (LCV paper, Figs. 15, 17, 19)."))
    if "sine_sweep" in comparison["manoeuvres"]:
        path = _frf_figure(run_dir, comparison, references["sine_sweep"], out / "frf_sine_sweep.png")
        if path is not None:
            figures["frf"].append(_Figure(
                path, "Frequency response magnitudes of roll, lateral acceleration and yaw rate over the "
                      "steering-wheel angle against frequency on a log axis, with coherence below; MBM reference, "
                      "RTM nominal and RTM optimized.",
                f"sine_sweep: |H1| over the steering-wheel angle and coherence. The grey band (±{tolerance:g} % "
                "of the reference's RMS gain) covers the frequencies where both coherences reach the index's "
                "threshold, i.e. where the FRF indices are computed."))
    figures["parameters"].append(_Figure(
        plot_parameter_changes(summary, out / "parameter_changes.png"),
        "Horizontal bars: change of each identified parameter from its nominal value in percent, with the "
        "search bounds marked.",
        "Identified parameters in % of the converted (nominal) value; | marks the search bounds "
        "(LCV paper, Fig. 13)."))
    if summary.get("history"):
        figures["convergence"].append(_Figure(
            plot_convergence(summary, out / "convergence.png"),
            "Line plot of the best fitness against the number of evaluations, logarithmic fitness axis.",
            f"Convergence: best fitness (Eq. 9) over the evaluations of the {summary['method']} run."))
    if (run_dir / "sensitivity.png").is_file():
        sensitivity_png = out / "sensitivity.png"
        if sensitivity_png.resolve() != (run_dir / "sensitivity.png").resolve():
            shutil.copyfile(run_dir / "sensitivity.png", sensitivity_png)
        figures["sensitivity"].append(_Figure(
            sensitivity_png, "Sensitivity analysis chart of the run: importance of each parameter.",
            "Sensitivity of the indices to the uncertain parameters (from the run's sensitivity analysis)."))
    number = 0
    for group in figures.values():
        for figure in group:
            number += 1
            figure.number = number

    def show(key: str) -> str:
        return "\n".join(_figure_html(f) for f in figures[key])

    # header and verdict
    fitness = {name: summary[name].get("fitness") for name in SETS}
    objective_within = {name: _within(comparison, "objective", name) for name in SETS}
    validation_within = {name: _within(comparison, "validation", name) for name in SETS}
    failed = {m: e["failed"] for m, e in comparison["manoeuvres"].items() if e.get("failed")}
    created = datetime.fromtimestamp((run_dir / "result.yaml").stat().st_mtime).isoformat(sep=" ",
                                                                                          timespec="minutes")
    facts = [
        ("reference data set", str(summary["reference"])), ("FMU", str(summary["fmu"])),
        ("model", run.nominal.model), ("method", f"{summary['method']}"
                                                 + (f" ({summary['poll']})" if summary.get("poll") else "")),
        ("evaluations", _fmt_number(summary.get("evaluations", "–"))),
        ("iterations", _fmt_number(summary.get("iterations", "–"))),
        ("stopped because", str(summary.get("stopped_because", "–"))),
        ("wall time", f"{summary['wall_time_s']} s" if "wall_time_s" in summary else "–"),
        ("workers", _fmt_number(summary.get("workers", "–"))), ("run finished", created),
        ("tolerance TP", f"{tolerance:g} %"),
    ]

    def fit(value) -> str:
        return _fmt_number(float(value)) if isinstance(value, (int, float)) else "–"

    def ratio(pair) -> str:
        return f"{pair[0]} of {pair[1]}"

    verdict = [
        f"<li>Fitness (Eq. 9): <strong>{fit(fitness['nominal'])} → {fit(fitness['optimized'])}</strong> "
        "(nominal → optimized).</li>",
        f"<li>Objective indices within TP = {tolerance:g} %: <strong>{ratio(objective_within['nominal'])}"
        f"</strong> nominal → <strong>{ratio(objective_within['optimized'])}</strong> optimized.</li>",
    ]
    if validation_within["nominal"][1]:
        names = ", ".join(m for m, e in comparison["manoeuvres"].items() if e["role"] == "validation")
        verdict.append(f"<li>Validation manoeuvres ({_e(names)}, not in the fitness): indices within TP "
                       f"<strong>{ratio(validation_within['nominal'])}</strong> nominal → "
                       f"<strong>{ratio(validation_within['optimized'])}</strong> optimized.</li>")
    skipped = {**summary.get("skipped", {}), **comparison.get("skipped", {})}
    if skipped:
        verdict.append("<li>Skipped manoeuvres (the data set or the parameter set cannot give them): "
                       + "; ".join(f"{_e(m)}: {_e(why)}" for m, why in skipped.items()) + ".</li>")
    if failed:
        verdict.append("<li>Failed simulations: " + "; ".join(
            f"{_e(m)}: {_e(', '.join(f))}" for m, f in failed.items()) + " (details in the table).</li>")

    metadata_rows = [[key, _fmt_number(summary[key]) if not isinstance(summary[key], (dict, list))
                      else json.dumps(summary[key])] for key in summary
                     if key not in ("parameters", "nominal", "optimized", "history", "skipped")]
    metadata_rows.append(["objective", str(_objective_file(run))])
    metadata_rows.append(["report written with", f"Python {platform.python_version()}, matplotlib "
                                                  f"{matplotlib.__version__}"])
    run_yaml = run_dir / "run.yaml"
    sensitivity_yaml = run_dir / "sensitivity.yaml"

    def optional_yaml(path: Path, render) -> str:
        try:
            return render(read_yaml(path, ReportError))
        except ReportError as error:
            return f'<p class="note">{_e(path.name)} could not be read: {_e(error)}</p>'

    total = sum(len(group) for group in figures.values())
    trace_manoeuvres = ", ".join(m for m in comparison["manoeuvres"] if m != "sine_sweep")
    sections = [
        f"""<header>
<h1>RTM identification report</h1>
<p>{_e(summary['method'])} identification of {len(summary['parameters'])} uncertain parameters of
<code>{_e(run.nominal.model)}</code> against the multibody reference <code>{_e(summary['reference'])}</code>;
run folder <code>{_e(run_dir.resolve())}</code>. {total} figures.</p>
{_table(None, [list(f) for f in facts])}
<div class="verdict" id="verdict"><h2 style="margin-top:.2em">Verdict</h2><ul>
{chr(10).join(verdict)}
</ul></div>
</header>""",
        f"""<section id="errors">
<h2>1. Index errors per manoeuvre</h2>
<p>Error e of each index in % (pybridge.kpi, Tables 1–2 of the LCV paper), nominal and optimized
parameter set, against the tolerance TP = {tolerance:g} %. Cells above TP are highlighted.</p>
{show('errors')}
{_error_table(comparison)}
</section>""",
        f"""<section id="traces">
<h2>2. Compared curves</h2>
<p>The curves each index compares ({_e(trace_manoeuvres)}): maps against lateral acceleration for the
ramp steer, step responses from 50 % of the steering step, time traces for the others. Angles in degrees.</p>
{show('traces') or '<p class="note">No curves to draw.</p>'}
</section>""",
        f"""<section id="frf">
<h2>3. Frequency responses (sine sweep)</h2>
{show('frf') or '<p class="note">No sine sweep in this comparison.</p>'}
</section>""",
        f"""<section id="parameters">
<h2>4. Identified parameters</h2>
{show('parameters')}
{_parameter_table(run)}
</section>""",
        f"""<section id="convergence">
<h2>5. Convergence</h2>
{show('convergence') or '<p class="note">No history in result.yaml.</p>'}
</section>""",
        f"""<section id="metadata">
<h2>6. Run metadata</h2>
<h3>result.yaml</h3>
{_table(['key', 'value'], metadata_rows)}
{('<h3>run.yaml</h3>' + optional_yaml(run_yaml, _generic_yaml)) if run_yaml.is_file() else ''}
</section>""",
    ]
    if sensitivity_yaml.is_file() or figures["sensitivity"]:
        sections.append(f"""<section id="sensitivity">
<h2>7. Sensitivity analysis</h2>
{optional_yaml(sensitivity_yaml, _sensitivity_html) if sensitivity_yaml.is_file() else ''}
{show('sensitivity')}
</section>""")
    from pybridge.corner_demo import corner_section
    corners = corner_section(run_dir, len(sections))
    if corners:
        sections.append(corners)
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="vehiclertm-figures" content="{total}">
<title>RTM identification report: {_e(run_dir.resolve().name)}</title>
<style>{STYLE}</style>
</head>
<body>
{chr(10).join(sections)}
<footer><p class="note">Written {datetime.now().isoformat(sep=' ', timespec='seconds')} by pybridge.report.</p></footer>
</body>
</html>
"""
    return write_text_atomically(out / HTML_FILE, page)
