"""Simulate parameter sets on the manoeuvres of an MBM data set and score each against the MBM.

``compare_parameter_sets(sets, reference_dir, fmu, out_dir)`` runs every (set, manoeuvre) on the RTM
FMU through one :class:`~pybridge.simulate.manoeuvres.ScenarioRunner`, writes the traces and the index errors
(``pybridge.evaluate.kpi``, in %) of every set::

    OUT/traces/<set>/<manoeuvre>.csv   the RTM trace of the set (pybridge.traces format)
    OUT/comparison.yaml                the index errors, per manoeuvre and set (below)

``comparison.yaml``::

    format: vehiclertm-comparison 1
    reference: /abs/path/of/the/data/set
    fmu: VehicleRTM_Vehicles_RTM14DoF.fmu
    tolerance_percent: 5.0           # TP of the objective
    sets: [nominal, optimized]
    manoeuvres:
      ramp_steer:
        role: objective              # some index has a positive weight in the objective; else validation
        failed: {}                   # set -> why its simulation gave no usable trace (then no values)
        indices:
          sideslip: {weight: 1.0, nominal: 3.21, optimized: 2.05}   # error in %, 4 decimals

By default the manoeuvres are those the data set offers and every set can run (``pybridge.coverage``);
the others are listed under ``skipped: {manoeuvre: reason}`` (present only then).

An index whose reference value is below the floor of its near-zero rule (``near_zero`` of the objective,
``pybridge.evaluate.near_zero``) is scored by the absolute difference on the TP scale and says so::

        ay_overshoot: {weight: 1.0, nominal: 11.25, rule: absolute, reference_value: 8.1022, floor: 10.0,
                       tolerance: 1.0}

An index that cannot be computed on an otherwise usable trace is ``null`` for that set, with the
reason under the manoeuvre's ``unscored: {set: {index: message}}`` (present only then). The index
errors are computed on the traces as written (read back from the CSV), so anyone can recompute them
from the files with ``pybridge.evaluate.kpi.evaluate_indices`` (and ``Objective.scored`` for the near-zero
rule). A trace shorter than the objective's ``min_duration_fraction`` of the reference counts as a failed
simulation, as in the objective.

``comparison.yaml`` is removed when a comparison starts and written (atomically) only when all runs
are done, so an interrupted comparison leaves no comparison.yaml that disagrees with the traces.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import yaml
from tqdm import tqdm

from pybridge.coverage import choose, offered
from pybridge.evaluate.kpi import evaluate_indices, index_functions
from pybridge.simulate.manoeuvres import ManifestReferences, ScenarioRunner
from pybridge.fileio import read_yaml, write_text_atomically
from pybridge.evaluate.objective import DEFAULT_FILE, Objective
from pybridge.parameters import ParameterSet
from pybridge.simulate.scenarios import load_scenario
from pybridge.simulate.divergence import divergence_behind_end, diverged
from pybridge.traces import find_trace, read_trace, write_trace

__all__ = ["COMPARISON_FILE", "FORMAT", "CompareError", "compare_parameter_sets", "default_manoeuvres",
           "read_comparison", "trace_path"]

FORMAT = "vehiclertm-comparison 1"
COMPARISON_FILE = "comparison.yaml"
TRACES_DIR = "traces"
SET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
DECIMALS = 4


class CompareError(ValueError):
    """Inputs a comparison cannot use; the message names the file or argument and what is expected."""


def default_manoeuvres(reference_dir: str | Path) -> list[str]:
    """Manoeuvres with indices in ``pybridge.evaluate.kpi`` that the data set offers (``pybridge.coverage``), in kpi
    order."""
    return [manoeuvre for manoeuvre, why_not in offered(reference_dir).items() if why_not is None]


def trace_path(out_dir: str | Path, set_name: str, manoeuvre: str) -> Path:
    """Where ``compare_parameter_sets`` writes the trace of a set on a manoeuvre."""
    return Path(out_dir) / TRACES_DIR / set_name / f"{manoeuvre}.csv"


def read_comparison(path: str | Path) -> dict:
    """Read a ``comparison.yaml`` (file or the folder holding it), checking its format line."""
    path = Path(path)
    if path.is_dir():
        path = path / COMPARISON_FILE
    data = read_yaml(path, CompareError)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CompareError(f"{path}: format: expected '{FORMAT}'")
    for key in ("sets", "manoeuvres", "reference", "tolerance_percent"):
        if key not in data:
            raise CompareError(f"{path}: {key}: missing")
    return data


def _check_inputs(sets, reference_dir: Path, fmu: Path, manoeuvres) -> list[str]:
    if not isinstance(sets, Mapping) or not sets:
        raise CompareError("sets: empty; expected at least one name -> ParameterSet")
    for name, params in sets.items():
        if not isinstance(name, str) or not SET_NAME.fullmatch(name):
            raise CompareError(f"sets: name {name!r}: expected letters, digits, '_', '.' or '-' "
                               "(it names a folder of traces)")
        if not isinstance(params, ParameterSet):
            raise CompareError(f"sets.{name}: expected a ParameterSet, got {type(params).__name__}")
    if not reference_dir.is_dir():
        raise CompareError(f"{reference_dir}: no such data-set folder (expected manifest.yaml and traces/)")
    if not (reference_dir / "manifest.yaml").is_file():
        raise CompareError(f"{reference_dir / 'manifest.yaml'}: missing; expected the data set's manifest")
    if not fmu.is_file():
        raise CompareError(f"{fmu}: no such FMU file")
    if manoeuvres is None:
        chosen = default_manoeuvres(reference_dir)
        if not chosen:
            raise CompareError(f"{reference_dir / TRACES_DIR}: no reference trace of any manoeuvre with indices "
                               f"(expected some of {', '.join(f'{m}.csv[.gz]' for m in index_functions)})")
        return chosen
    chosen = list(dict.fromkeys([manoeuvres] if isinstance(manoeuvres, str) else manoeuvres))
    if not chosen:
        raise CompareError("manoeuvres: empty; expected at least one manoeuvre (or None for all)")
    for manoeuvre in chosen:
        if manoeuvre not in index_functions:
            raise CompareError(f"manoeuvres: unknown manoeuvre {manoeuvre!r}; expected one of "
                               f"{', '.join(index_functions)}")
        try:
            find_trace(reference_dir, manoeuvre)
        except FileNotFoundError:
            raise CompareError(f"{reference_dir / TRACES_DIR / (manoeuvre + '.csv')}: missing; expected the "
                               f"reference trace of {manoeuvre} (.csv or .csv.gz)") from None
    return chosen


def _role(manoeuvre: str, objective: Objective) -> str:
    weights = objective.weights.get(manoeuvre, {})
    return "objective" if any(w > 0 for w in weights.values()) else "validation"


def _run_all(runner: ScenarioRunner, jobs: list[tuple[ParameterSet, str]], resolve, workers: int,
             progress: bool) -> list:
    """Each job through the runner's worker processes, ``workers`` at a time, with a progress bar."""
    results: list = [None] * len(jobs)
    with tqdm(total=len(jobs), desc="compare", unit="run", disable=not progress) as bar, \
            ThreadPoolExecutor(max(1, workers)) as threads:
        def one(i: int) -> None:
            results[i] = runner.run([jobs[i]], resolve=resolve)[0]
            bar.update(1)

        for future in [threads.submit(one, i) for i in range(len(jobs))]:
            future.result()
    return results


def _score(manoeuvre: str, trace: pd.DataFrame, reference: pd.DataFrame,
           objective: Objective) -> tuple[dict, dict, dict]:
    """(index -> error % or None, index -> why it is None, index -> its near-zero rule where it applied)."""
    values, unscored, rules = {}, {}, {}
    for name in index_functions[manoeuvre]:
        try:
            result = evaluate_indices(manoeuvre, trace, reference, [name])[0]
        except Exception as error:  # an index that cannot be computed is reported, not fatal
            values[name], unscored[name] = None, f"{type(error).__name__}: {error}"
            continue
        rule = objective.near_zero.get((manoeuvre, name))
        if rule is not None and rule.applies(result):
            rules[name] = rule.describe(result)
        value = objective.scored(result).value_percent
        if math.isfinite(value):
            values[name] = round(float(value), DECIMALS)
        else:
            values[name], unscored[name] = None, f"non-finite value {value}"
    return values, unscored, rules


def _diverged_behind_end(fmu: Path, params: ParameterSet, manoeuvre: str, resolve, trace: pd.DataFrame):
    """For a trace an end condition cut short: the divergence the run meets without its end conditions."""
    if trace.attrs.get("stopped_at") is None:
        return None
    from pybridge.simulate.manoeuvres import run_scenario

    return divergence_behind_end(lambda s: run_scenario(fmu, s, params, resolve), load_scenario(manoeuvre))


def compare_parameter_sets(sets: Mapping[str, ParameterSet], reference_dir: str | Path, fmu: str | Path,
                           out_dir: str | Path, *, manoeuvres: Iterable[str] | None = None,
                           objective_file: str | Path = DEFAULT_FILE, workers: int = 2,
                           progress: bool = True) -> dict:
    """Simulate every set on every manoeuvre, score it against the data set and write OUT/comparison.yaml.

    ``sets``: name -> parameter set (the name names the trace folder). ``manoeuvres``: default all with
    indices and a reference trace in ``reference_dir``. ``objective_file`` gives the weights (and so the
    role of each manoeuvre) and TP. Returns what it writes to comparison.yaml.
    """
    reference_dir, fmu, out_dir = Path(reference_dir).resolve(), Path(fmu), Path(out_dir)
    chosen = _check_inputs(sets, reference_dir, fmu, manoeuvres)
    skipped = {}
    if manoeuvres is None:  # by default what every set can run; asked-for manoeuvres are run (and fail) as asked
        chosen, skipped = choose(chosen, reference_dir, sets.values())
    if workers < 1:
        raise CompareError(f"workers = {workers}; expected at least 1")
    objective = Objective.from_yaml(objective_file)
    for manoeuvre in chosen:
        load_scenario(manoeuvre)  # a bad scenario file fails here, before any run
    references = {m: read_trace(find_trace(reference_dir, m))[0] for m in chosen}
    resolve = ManifestReferences(reference_dir / "manifest.yaml")

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / COMPARISON_FILE).unlink(missing_ok=True)
    jobs = [(name, manoeuvre) for name in sets for manoeuvre in chosen]
    with ScenarioRunner(fmu, workers=min(workers, len(jobs))) as runner:
        outcomes = _run_all(runner, [(sets[n], m) for n, m in jobs], resolve, workers, progress)

    report = {m: {"role": _role(m, objective), "failed": {},
                  "indices": {i: {"weight": float(objective.weights.get(m, {}).get(i, 0.0))}
                              for i in index_functions[m]}} for m in chosen}
    for (name, manoeuvre), outcome in zip(jobs, outcomes):
        entry, path = report[manoeuvre], trace_path(out_dir, name, manoeuvre)
        reference = references[manoeuvre]
        message = None
        if isinstance(outcome, BaseException):
            found = diverged(outcome)
            message = str(found) if found else f"simulation failed: {type(outcome).__name__}: {outcome}"
        elif not isinstance(outcome, pd.DataFrame) or outcome.empty:
            message = "simulation gave no trace"
        else:
            span = float(outcome["time"].iloc[-1] - outcome["time"].iloc[0])
            need = objective.min_duration_fraction * float(reference["time"].iloc[-1] - reference["time"].iloc[0])
            if span < need:
                found = _diverged_behind_end(fmu, sets[name], manoeuvre, resolve, outcome)
                message = str(found) if found else f"trace too short: {span:.3g} s, expected at least {need:.3g} s"
        if message is not None:
            path.unlink(missing_ok=True)  # no stale trace of an earlier comparison
            entry["failed"][name] = message
            for index in entry["indices"].values():
                index[name] = None
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        write_trace(outcome, path, {"manoeuvre": manoeuvre, "set": name, "fmu": fmu.name,
                                    "source": f"RTM {fmu.name}, parameter set '{name}'"})
        values, unscored, rules = _score(manoeuvre, read_trace(path)[0], reference, objective)
        for index, value in values.items():
            entry["indices"][index][name] = value
        for index, rule in rules.items():
            entry["indices"][index].update(rule)
        if unscored:
            entry.setdefault("unscored", {})[name] = unscored

    comparison = {"format": FORMAT, "reference": str(reference_dir), "fmu": fmu.name,
                  "tolerance_percent": float(objective.tolerance_percent), "sets": list(sets),
                  "manoeuvres": report, **({"skipped": skipped} if skipped else {})}
    write_text_atomically(out_dir / COMPARISON_FILE, yaml.safe_dump(comparison, sort_keys=False, width=120))
    return comparison

