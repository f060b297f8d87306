"""The report of an identification run folder: one self-contained HTML page and its figures as PNG.

``write_report(RUN)`` (this package) reads what ``pybridge identify`` wrote (``result.yaml``, ``params_nominal/``,
``params_optimized/``, the FMU) and, when ``RUN/comparison.yaml`` is missing, first simulates both
parameter sets on every manoeuvre of the reference data set (:func:`pybridge.evaluate.compare.compare_parameter_sets`,
into RUN). It writes ``RUN/report/report.html`` and the figures as ``RUN/report/*.png``, in the order of
the LCV paper:

1. what was run and a verdict (fitness, indices within the tolerance TP, objective and validation);
2. the error of every index per manoeuvre, nominal vs optimized, with the TP line (Figs. 14, 16, 18),
   and the same numbers as a table;
3. the compared curves of every manoeuvre, MBM reference vs RTM nominal vs RTM optimized, with a
   band of ±TP % of the reference curve's range (the scale of the index), (Figs. 15, 17, 19);
4. the steering frequency responses of the sine sweep;
5. the identified parameters in % of nominal (Fig. 13) and a table, then what the data determine
   (:mod:`~pybridge.report.determined`: intervals, correlations, flags, the posterior when run);
6. the convergence history;
7. the run's metadata (``result.yaml``, ``RUN/run.yaml`` when present) and the sensitivity analysis
   (``RUN/sensitivity.yaml`` and ``RUN/sensitivity.png`` when present).

The page needs nothing else (:mod:`pybridge.report.html`); angles are shown in degrees (the SI values
are in the files). The package: :mod:`~pybridge.report.run_folder` (what the report reads),
:mod:`~pybridge.report.figures`, :mod:`~pybridge.report.sections`, :mod:`~pybridge.report.html`, and
:mod:`~pybridge.report.cosim` (the co-simulation's page) and :mod:`~pybridge.report.observe` (the page of a
``pybridge observe`` run folder) and :mod:`~pybridge.report.replay` (a ``pybridge replay`` one), which
``write_report`` writes when given such a folder.
"""
from __future__ import annotations

from pathlib import Path

from pybridge.corner_demo import corner_section
from pybridge.fileio import write_text_atomically
from pybridge.report import sections
from pybridge.report.determined import determined_section
from pybridge.report.figures import draw_figures
from pybridge.report.html import HTML_FILE, page
from pybridge.report.run_folder import ReportError, comparison_of, load_run  # ReportError: the package's error

__all__ = ["REPORT_DIR", "ReportError", "write_report"]

REPORT_DIR = "report"


def write_report(run_dir: str | Path, out_dir: str | Path | None = None, *, workers: int = 2,
                 progress: bool = True) -> Path:
    """Write ``report.html`` and its PNG figures for a ``pybridge identify`` run folder (or a ``pybridge observe``
    or ``pybridge replay`` one: :mod:`pybridge.report.observe`, :mod:`pybridge.report.replay`); returns the HTML path.

    ``out_dir`` defaults to RUN/report. When RUN/comparison.yaml is missing, the nominal and optimized
    parameter sets are first simulated on every manoeuvre of the run's data set (``workers`` processes).
    Raises :class:`ReportError` for a folder that lacks what the report needs.
    """
    from pybridge.report.observe import is_observe_run, write_observe_report
    from pybridge.report.replay import is_replay_run, write_replay_report
    if is_observe_run(run_dir):  # a pybridge observe or replay run: its own page
        return write_observe_report(run_dir, out_dir)
    if is_replay_run(run_dir):
        return write_replay_report(run_dir, out_dir)
    run = load_run(Path(run_dir))
    comparison = comparison_of(run, workers, progress)
    out = Path(out_dir) if out_dir is not None else run.folder / REPORT_DIR
    out.mkdir(parents=True, exist_ok=True)
    figures = draw_figures(run, comparison, out)
    total = sum(len(group) for group in figures.values())
    parts = [sections.header(run, comparison, total),
             sections.index_errors(comparison, figures["errors"]),
             sections.compared_curves(comparison, figures["traces"]),
             sections.frequency_responses(figures["frf"]),
             sections.identified_parameters(run, figures["parameters"]),
             *filter(None, [determined_section(run, figures["determined"])]),
             sections.convergence(figures["convergence"]),
             sections.run_metadata(run)]
    parts += filter(None, [sections.sensitivity(run, figures["sensitivity"])])
    parts += filter(None, [corner_section(run.folder, len(parts))])  # numbered after the sections before it
    title = f"RTM identification report: {run.folder.resolve().name}"
    return write_text_atomically(out / HTML_FILE, page(title, parts, total, "pybridge.report"))
