"""The identification run folder a report is made of: its summary, parameter sets and comparison."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pybridge.evaluate.compare import COMPARISON_FILE, CompareError, compare_parameter_sets, read_comparison
from pybridge.fileio import read_yaml
from pybridge.evaluate.objective import DEFAULT_FILE
from pybridge.parameters import ParameterSet, ParameterSetError, read_parameter_set

REQUIRED_SUMMARY = ("method", "fmu", "reference", "parameters", "nominal", "optimized", "history")


SETS = ("nominal", "optimized")


class ReportError(ValueError):
    """A run folder the report cannot use; the message names the folder or file and what is missing."""


@dataclass
class Run:
    """A ``pybridge identify`` run folder as read: ``result.yaml`` and the two parameter sets."""
    folder: Path
    summary: dict
    nominal: ParameterSet
    optimized: ParameterSet


def load_run(run_dir: Path) -> Run:
    """The run in ``run_dir``; :class:`ReportError` naming what is missing."""
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
    return Run(run_dir, summary, sets["nominal"], sets["optimized"])


def reference_dir(given: str, run_dir: Path) -> Path:
    """The reference data set named in result.yaml: absolute, or relative to the cwd, the run or the repository."""
    path = Path(given)
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, run_dir / path,
                                                    Path(__file__).resolve().parents[2] / path]
    for candidate in candidates:
        if (candidate / "manifest.yaml").is_file():
            return candidate.resolve()
    raise ReportError(f"{run_dir / 'result.yaml'}: reference: data set '{given}' not found (looked in "
                      f"{', '.join(str(c) for c in candidates)}); expected a folder with manifest.yaml and traces/")


def objective_file(run: Run) -> Path:
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


def comparison_of(run: Run, workers: int, progress: bool) -> dict:
    """RUN/comparison.yaml, computed first (both sets on every manoeuvre) when missing."""
    path = run.folder / COMPARISON_FILE
    if not path.is_file():
        fmu = run.folder / str(run.summary["fmu"])
        if not fmu.is_file():
            raise ReportError(f"{run.folder}: the FMU {run.summary['fmu']} named in result.yaml is missing; "
                              "expected it copied into the run folder")
        reference = reference_dir(str(run.summary["reference"]), run.folder)
        try:
            compare_parameter_sets({"nominal": run.nominal, "optimized": run.optimized}, reference, fmu,
                                   run.folder, objective_file=objective_file(run), workers=workers,
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
