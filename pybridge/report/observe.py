"""The report of a ``pybridge observe`` run folder: the state observer's estimates against the log's truth.

``write_observe_report(RUN)`` reads ``RUN/summary.yaml`` and ``RUN/estimates.csv`` (and the log the
summary names, for the truth channels where it has them and it is still there) and writes
``RUN/report/report.html`` with ``observe_estimates.png``: sideslip (observer with its 2-sigma band, the
linear bicycle KF, the kinematic integration), the lateral force per axle, and the road friction, each
against the truth, and a table of the errors of the observer and of both baselines. ``pybridge report
RUN`` calls it when RUN is an observe run folder (:func:`is_observe_run`).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pybridge.fileio import read_yaml, write_text_atomically
from pybridge.report.figures import DPI, panel_axes
from pybridge.report.html import HTML_FILE, Figure, escape, figure_html, fmt_number, html_table, page
from pybridge.report.run_folder import ReportError

__all__ = ["is_observe_run", "observe_section", "write_observe_report"]

FIGURE = "observe_estimates.png"
COLUMNS = ("time", "sideslip", "sideslip_sd", "fy_front", "fy_rear", "mu", "mu_sd", "sideslip_bicycle_kf",
           "sideslip_kinematic")
#: summary error key -> (row label, unit)
ERRORS = {"sideslip_rms_error_deg": ("sideslip RMS error, observer", "deg"),
          "sideslip_bicycle_kf_rms_error_deg": ("sideslip RMS error, linear bicycle KF", "deg"),
          "sideslip_kinematic_rms_error_deg": ("sideslip RMS error, kinematic integration", "deg"),
          "sideslip_max_error_deg": ("sideslip max error, observer", "deg"),
          "sideslip_true_rms_deg": ("sideslip RMS of the truth", "deg"),
          "fy_front_rms_error_N": ("front axle lateral force RMS error", "N"),
          "fy_front_true_rms_N": ("front axle lateral force RMS of the truth", "N"),
          "fy_rear_rms_error_N": ("rear axle lateral force RMS error", "N"),
          "fy_rear_true_rms_N": ("rear axle lateral force RMS of the truth", "N"),
          "mu_judged_from_s": ("friction judged from (3 s after |ay| first exceeds 1 m/s²)", "s"),
          "mu_max_error": ("friction max error after that", "1"),
          "mu_rms_error": ("friction RMS error after that", "1"),
          "mu_final": ("friction estimate at the end", "1"),
          "mu_true": ("true friction", "1")}


def is_observe_run(run_dir: str | Path) -> bool:
    """True when ``run_dir`` holds what ``pybridge observe`` writes."""
    return all((Path(run_dir) / name).is_file() for name in ("summary.yaml", "estimates.csv"))


def _load(run: Path) -> tuple[dict, pd.DataFrame, pd.DataFrame | None]:
    """(summary, estimates, the log's channels or None when the log is gone); ReportError names the file."""
    summary = read_yaml(run / "summary.yaml", ReportError)
    if not isinstance(summary, dict) or not isinstance(summary.get("errors"), dict):
        raise ReportError(f"{run / 'summary.yaml'}: expected a mapping with 'errors' (a pybridge observe summary)")
    try:
        estimates = pd.read_csv(run / "estimates.csv")
    except (OSError, ValueError) as error:
        raise ReportError(f"{run / 'estimates.csv'}: cannot read it as CSV ({error})") from None
    missing = [c for c in COLUMNS if c not in estimates]
    if missing:
        raise ReportError(f"{run / 'estimates.csv'}: no column {missing[0]!r}; expected {', '.join(COLUMNS)}")
    log_path = Path(str(summary.get("log", "")))
    log_path = next((p for p in (log_path, run / log_path) if p.is_file()), None)
    log = None
    if log_path is not None:
        from pybridge.onboard.sensors import LogError, read_log
        try:
            log = read_log(log_path)[0]
        except LogError:
            log = None
    return summary, estimates, log


def _figure(estimates: pd.DataFrame, log: pd.DataFrame | None, path: Path) -> Path:
    import matplotlib.pyplot as plt

    truth = log if log is not None else pd.DataFrame()
    t = estimates["time"]
    fig, axes = panel_axes(4, row_height=2.9)
    deg = np.degrees
    ax = axes[0]
    if "true_sideslip" in truth:
        ax.plot(truth["time"], deg(truth["true_sideslip"]), "k", lw=1.8, label="truth")
    ax.fill_between(t, deg(estimates["sideslip"] - 2 * estimates["sideslip_sd"]),
                    deg(estimates["sideslip"] + 2 * estimates["sideslip_sd"]), color="tab:blue", alpha=0.25, lw=0)
    ax.plot(t, deg(estimates["sideslip"]), color="tab:blue", lw=1.1, label="observer (±2σ)")
    ax.plot(t, deg(estimates["sideslip_bicycle_kf"]), "--", color="tab:orange", lw=1.0, label="linear bicycle KF")
    ax.plot(t, deg(estimates["sideslip_kinematic"]), ":", color="tab:green", lw=1.0, label="kinematic integration")
    ax.set_ylabel("sideslip [deg]")
    for ax, axle in zip(axes[1:3], ("front", "rear")):
        if f"true_fy_{axle}" in truth:
            ax.plot(truth["time"], truth[f"true_fy_{axle}"] / 1e3, "k", lw=1.8, label="truth")
        ax.plot(t, estimates[f"fy_{axle}"] / 1e3, color="tab:blue", lw=1.1, label="observer")
        ax.set_ylabel(f"{axle} axle lateral force [kN]")
    ax = axes[3]
    if "true_mu" in truth:
        ax.plot(truth["time"], truth["true_mu"], "k", lw=1.8, label="truth")
    ax.fill_between(t, estimates["mu"] - 2 * estimates["mu_sd"], estimates["mu"] + 2 * estimates["mu_sd"],
                    color="tab:blue", alpha=0.25, lw=0)
    ax.plot(t, estimates["mu"], color="tab:blue", lw=1.1, label="observer (±2σ)")
    ax.set_ylabel("road friction [1]")
    for ax in axes:
        ax.set_xlabel("time [s]")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=DPI)
    plt.close(fig)
    return tmp.replace(path)


def observe_section(run_dir: str | Path, out_dir: str | Path, number: int = 1, first_figure: int = 1) -> str:
    """The HTML section of an observe run (its figure written into ``out_dir``)."""
    run = Path(run_dir)
    summary, estimates, log = _load(run)
    figure = Figure(_figure(estimates, log, Path(out_dir) / FIGURE), "observer estimates against the truth",
                    "Sideslip, lateral force per axle and road friction: the observer (UKF on the RTM FMU) with "
                    "its 2σ band, the baselines, and the log's truth where it has it.", first_figure)
    errors = summary["errors"]
    rows = [[label, fmt_number(errors[key]) if errors[key] is not None else "not judged (no excitation)", unit]
            for key, (label, unit) in ERRORS.items() if key in errors]
    cost = summary.get("cost_per_update_us") or {}
    facts = [["log", str(summary.get("log"))], ["manoeuvre", str(summary.get("manoeuvre"))],
             ["parameter set", str(summary.get("params"))], ["FMU", str(summary.get("fmu"))],
             ["log samples", str(summary.get("samples"))],
             ["cost per update (median / p99.9 / max)",
              " / ".join(f"{cost[k]:.0f} µs" for k in ("median", "p99.9", "max") if k in cost)
              + f" of {cost.get('clock', 'CPU time')}, load {cost.get('load', float('nan')):.1f}"]]
    note = "" if log is not None else (f'<p class="note">The log {escape(summary.get("log"))} is not there any more: '
                                       "the figure shows the estimates alone; the errors are those of the run.</p>")
    table = html_table(["quantity", "value", "unit"], rows) if rows else \
        '<p class="note">The log carries no truth channels: no errors.</p>'
    return f"""<section id="observe">
<h2>{number}. State observer: estimates against the truth</h2>
{html_table(None, facts)}
{table}
{note}
{figure_html(figure)}
</section>"""


def write_observe_report(run_dir: str | Path, out_dir: str | Path | None = None) -> Path:
    """Write ``report.html`` (and its figure) for a ``pybridge observe`` run folder; returns the HTML path."""
    run = Path(run_dir)
    out = Path(out_dir) if out_dir is not None else run / "report"
    out.mkdir(parents=True, exist_ok=True)
    section = observe_section(run, out)
    return write_text_atomically(out / HTML_FILE, page(f"State observer report: {run.resolve().name}", [section], 1,
                                                       "pybridge.report.observe"))
