"""Identify the full vehicle: parameter set + MBM data set -> optimized parameter set and a run folder.

A run folder holds everything needed to judge and repeat the run::

    RUN/params_nominal/     the parameter set the run started from (pybridge.parameters)
    RUN/params_optimized/   the same with the identified uncertain parameters
    RUN/record.jsonl        every evaluation, append-only (resume continues from it); staged runs keep
                            one record per stage in RUN/stages/<n>-<name>.jsonl
    RUN/result.yaml         method, fitness and per-index errors nominal vs optimized, history, timing,
                            the objective's manoeuvres skipped (the data set lacks them) with why
    RUN/<model>.fmu         the FMU used
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from fmu_build.build import copy_atomically
from fmu_build.inspect import verify_fmu
from pybridge.identify.executor import make_executor
from pybridge.identify.problem import VehicleProblem
from pybridge.identify.result import IdentificationResult
from pybridge.identify.staged import Stage, run_stages
from pybridge.fileio import write_text_atomically
from pybridge.evaluate.objective import DEFAULT_FILE
from pybridge.parameters import ParameterSet
from pybridge.runlock import holding_run_folder

POLLS = ("gps2n", "gpsnp1", "mads")
METHODS = ("pattern-search", "nomad", "differential-evolution")
_PATTERN_ONLY = ("poll", "initial_mesh", "complete_poll", "search", "chunked_poll", "model_search")


@dataclass
class SearchOptions:
    """Optimizer settings of a vehicle identification (the config file's ``pattern_search`` section):
    ``method`` pattern-search or nomad; the pattern-search-only settings are ignored by nomad, and
    ``min_mesh`` is NOMAD's ``min_frame`` (stop below this fraction of each range)."""
    method: str = "pattern-search"
    poll: str = "gps2n"
    initial_mesh: float = 0.25
    min_mesh: float = 1e-3
    max_evaluations: int = 200
    max_time: float | None = None
    complete_poll: bool = False
    search: str | int | None = None
    chunked_poll: bool = False
    model_search: bool = True
    seed: int = 0
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"pattern_search.method: '{self.method}' is not one of {METHODS}")
        if self.poll not in POLLS:
            raise ValueError(f"pattern_search.poll: '{self.poll}' is not one of {POLLS}")

    @property
    def engine(self):
        """The function that runs ``method``."""
        from pybridge.identify.staged import METHODS as ENGINES
        return ENGINES[self.method]

    def keywords(self) -> dict:
        """The settings as keyword arguments of the method's function."""
        values = dataclasses.asdict(self)
        skip = {"extra", "method", *(_PATTERN_ONLY if self.method != "pattern-search" else ()),
                *(("min_mesh", "max_time") if self.method == "differential-evolution" else ())}
        keywords = {k: v for k, v in values.items() if k not in skip}
        if self.method == "nomad":
            keywords["min_frame"] = keywords.pop("min_mesh")
        return {**keywords, **values["extra"]}

    def label(self) -> str:
        return {"nomad": "NOMAD", "differential-evolution": "differential evolution"}.get(
            self.method, f"pattern search ({self.poll})")


def staged_with_defaults(stages: list[Stage], options: SearchOptions) -> list[Stage]:
    """The stages as the run executes them: a stage without ``method`` takes the run's; a stage without
    its own budget gets an equal share of ``options.max_evaluations``; a stage of the run's method
    takes the run's settings under its own options."""
    share = max(1, options.max_evaluations // len(stages))
    resolved = []
    for s in stages:
        method = s.method or options.method
        run_settings = options.keywords() if method == options.method else {}
        resolved.append(dataclasses.replace(
            s, method=method, options={**run_settings, "max_evaluations": share, **s.options}))
    return resolved


def _scores(problem: VehicleProblem, values: dict) -> dict:
    result = problem.evaluate(values)
    return {"fitness": float(result.value), "failed": dict(result.failed),
            "indices": {f"{m}/{n}": {"error_percent": round(s.error, 4), "weight": s.weight}
                        for (m, n), s in result.per_index.items()}}


def _fmu_in_run_folder(fmu: Path, run_dir: Path) -> Path:
    """The run folder's copy of ``fmu``: copied atomically; a copy found there (a resumed run) is kept
    if it is a complete archive, and copied again if not (a killed run's half copy)."""
    copy = run_dir / fmu.name
    if copy.exists() and copy.resolve() == fmu.resolve():
        return copy
    if not copy.exists() or verify_fmu(copy) is not None:
        copy_atomically(fmu, copy)
    return copy


@holding_run_folder("run_dir", "identify")
def identify_vehicle(params: ParameterSet, reference_dir: str | Path, fmu: str | Path, run_dir: str | Path, *,
                     options: SearchOptions | None = None, objective_file: str | Path = DEFAULT_FILE,
                     workers: int = 2, address: str | None = None, resume: bool = False,
                     progress: bool = True, stages: list[Stage] | None = None,
                     analyse: bool = True) -> IdentificationResult:
    """Pattern search or NOMAD (``options.method``) over ``params``' uncertain parameters against the traces of ``reference_dir``;
    with ``stages`` (LMS paper), the stages in sequence, each from the last one's result. ``analyse``: then
    what the data determine at the optimum (``pybridge.identify.run_analysis``, 2N + 1 evaluations)."""
    options = options or SearchOptions()
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    fmu_copy = _fmu_in_run_folder(Path(fmu), run_dir)
    if not (run_dir / "params_nominal").exists():
        params.write(run_dir / "params_nominal")
    problem = VehicleProblem(params, Path(reference_dir), fmu_copy, Path(objective_file))
    start = time.perf_counter()
    nominal = _scores(problem, problem.nominal)
    description = {"reference": str(Path(reference_dir).resolve()), "objective": str(Path(objective_file).resolve()),
                   "model": params.model, "uncertain": sorted(params.uncertain)}
    with make_executor(workers=workers, address=address) as executor:
        if stages:
            result = run_stages(staged_with_defaults(stages, options), problem.stage_fitness, problem.bounds,
                                problem.nominal, executor=executor, record_dir=run_dir / "stages", resume=resume,
                                progress=progress)
        else:
            result = options.engine(problem.evaluate, problem.bounds, problem.nominal, **options.keywords(),
                                    executor=executor, record=run_dir / "record.jsonl", resume=resume,
                                    progress=progress, description=description)
    optimized = params.with_values(result.parameters)
    method = f"staged {options.label()} ({len(stages)} stages)" if stages else options.label()
    optimized.metadata = {**params.metadata, "identified_by": method,
                          "run": str(run_dir)}
    optimized.write(run_dir / "params_optimized")
    summary = {
        "format": "vehiclertm-identification 1", "method": result.method,
        "poll": options.poll if options.method == "pattern-search" else None,
        "stopped_because": result.stopped_because, "evaluations": result.evaluations,
        "iterations": result.iterations, "wall_time_s": round(time.perf_counter() - start, 1),
        "workers": workers, "reference": str(Path(reference_dir).resolve()), "skipped": problem.skipped,
        "objective": str(Path(objective_file).resolve()), "fmu": fmu_copy.name,
        "parameters": {name: {"nominal": float(problem.nominal[name]), "optimized": float(value),
                              "lower": float(problem.bounds[name][0]), "upper": float(problem.bounds[name][1]),
                              "change_percent": round(100 * (value / problem.nominal[name] - 1), 3)}
                       for name, value in result.parameters.items()},
        "nominal": nominal, "optimized": _scores(problem, result.parameters),
        "history": result.history,
    }
    if stages:
        summary["stages"] = [{"name": s["stage"].name, "method": s["stage"].engine, "parameters": s["stage"].parameters,
                              "evaluations": s["result"].evaluations, "fitness": float(s["result"].fitness),
                              "stopped_because": s["result"].stopped_because} for s in result.extra["stages"]]
    write_text_atomically(run_dir / "result.yaml", yaml.safe_dump(summary, sort_keys=False))
    if analyse:
        from pybridge.identify.run_analysis import analyse_after_identification
        summary["identifiability"] = analyse_after_identification(run_dir, problem, workers=workers, address=address)
    result.record_path = run_dir / ("stages" if stages else "record.jsonl")
    result.extra["summary"] = summary
    return result
