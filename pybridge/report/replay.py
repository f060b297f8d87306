"""The report of a ``pybridge replay`` run folder: the RTM driven by a log's inputs against the log.

``write_replay_report(RUN)`` reads ``RUN/replay.yaml`` (format ``vehiclertm-replay 1``) and the figure
``RUN/replay.png`` that replay drew (:mod:`pybridge.onboard.replay_figures`), and writes
``RUN/report/report.html``: what drove the RTM (log, parameter set, input mode, channel per input), the
index error of every channel, and the figure. ``pybridge report RUN`` calls it for a replay run folder.
"""
from __future__ import annotations

from pathlib import Path

from pybridge.fileio import read_yaml, write_text_atomically
from pybridge.report.html import HTML_FILE, Figure, figure_html, fmt_number, html_table, page
from pybridge.report.run_folder import ReportError

__all__ = ["is_replay_run", "replay_section", "write_replay_report"]

FORMAT = "vehiclertm-replay 1"


def is_replay_run(run_dir: str | Path) -> bool:
    """True when ``run_dir`` holds what ``pybridge replay`` writes."""
    return (Path(run_dir) / "replay.yaml").is_file()


def replay_section(run_dir: str | Path, number: int = 1, first_figure: int = 1) -> str:
    """The HTML section of a replay run folder."""
    run = Path(run_dir)
    summary = read_yaml(run / "replay.yaml", ReportError)
    if not isinstance(summary, dict) or summary.get("format") != FORMAT:
        raise ReportError(f"{run / 'replay.yaml'}: format: expected {FORMAT!r} (a pybridge replay summary)")
    for key in ("log", "mode", "inputs", "index_errors_percent"):
        if key not in summary:
            raise ReportError(f"{run / 'replay.yaml'}: no key {key!r}; expected a pybridge replay summary")
    if not (run / "replay.png").is_file():
        raise ReportError(f"{run / 'replay.png'}: missing; expected the figure pybridge replay draws")
    facts = [["log", str(summary["log"])], ["parameter set", str(summary.get("params"))],
             ["manoeuvre", str(summary.get("manoeuvre"))], ["rear axle and brakes from", str(summary["mode"])],
             ["inputs (FMU input ← log channel)", "; ".join(f"{k} ← {v}" for k, v in summary["inputs"].items())],
             ["log time of the first input sample", f"{fmt_number(summary.get('log_start_s'))} s"],
             ["duration", f"{fmt_number(summary.get('duration_s'))} s"]]
    rows = [[channel, fmt_number(error)] for channel, error in summary["index_errors_percent"].items()]
    figure = Figure(run / "replay.png", "RTM on the log's inputs against the log",
                    "Every channel the log has: the log's measurement and the RTM driven by the log's inputs.",
                    first_figure)
    return f"""<section id="replay">
<h2>{number}. Replay: the RTM driven by the log's inputs</h2>
{html_table(None, facts)}
{html_table(["channel", "index error [%]"], rows)}
{figure_html(figure)}
</section>"""


def write_replay_report(run_dir: str | Path, out_dir: str | Path | None = None) -> Path:
    """Write ``report.html`` for a ``pybridge replay`` run folder; returns the HTML path."""
    run = Path(run_dir)
    section = replay_section(run)
    out = Path(out_dir) if out_dir is not None else run / "report"
    out.mkdir(parents=True, exist_ok=True)
    return write_text_atomically(out / HTML_FILE, page(f"Replay report: {run.resolve().name}", [section], 1,
                                                       "pybridge.report.replay"))
