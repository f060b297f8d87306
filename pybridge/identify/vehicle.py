"""Identify the full vehicle: parameter set + MBM data set -> optimized parameter set and a run folder.

A run folder holds everything needed to judge and repeat the run::

    RUN/params_nominal/     the parameter set the run started from (pybridge.parameters)
    RUN/params_optimized/   the same with the identified uncertain parameters
    RUN/record.jsonl        every evaluation, append-only (resume continues from it); staged runs keep
                            one record per stage in RUN/stages/<n>-<name>.jsonl
    RUN/result.yaml         method, fitness and per-index errors nominal vs optimized, history, timing,
                            the objective's manoeuvres skipped (the data set lacks them) with why, the
                            internal step chosen for the set and why (pybridge.identify.step_choice),
                            each parameter's change (absolute, and in % unless its nominal is 0)
    RUN/<model>.fmu         the FMU used
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

from fmu_build.build import copy_atomically
from fmu_build.inspect import verify_fmu
from pybridge.identify.executor import make_executor
from pybridge.identify.lane_batch import StageFitness, lane_objective
from pybridge.identify.problem import IDENTIFICATION_STEPS, VehicleProblem
from pybridge.identify.result import IdentificationResult
from pybridge.identify.staged import Stage, option_problem, run_stages
from pybridge.fileio import dump_yaml, write_text_atomically
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
        problem = _option_problem(self)
        if problem:
            raise ValueError(f"pattern_search.{problem}")

    @classmethod
    def from_settings(cls, section: dict, source: str) -> SearchOptions:
        """The options of a settings section (preset + config file + flags); errors name ``source``
        (the config file, or the flag) and the section's key."""
        try:
            return cls(**section)
        except ValueError as error:
            raise ValueError(f"{source}: {error}") from None

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


def _option_problem(o: SearchOptions) -> str | None:
    """The first setting of ``o`` out of its range, as 'key: value, expected ...' (None: all fine)."""
    for key, value in dataclasses.asdict(o).items():
        expected = (f"one of {', '.join(METHODS)}" if key == "method" and value not in METHODS
                    else None if key in ("method", "extra") else option_problem(key, value))
        if expected:
            return f"{key}: {value!r}, expected {expected}"
    return None


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


def change(nominal: float, value: float) -> dict:
    """The change from ``nominal`` to ``value``: absolute, and in % of the nominal (None for a zero
    nominal, where a percentage has no meaning)."""
    percent = None if nominal == 0 else round(100 * (value / nominal - 1), 3)
    return {"change": float(value - nominal), "change_percent": percent}


def _scores(result) -> dict:
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


def check_stage_coverage(stages, reference_dir: Path, params: ParameterSet, source: str = "") -> None:
    """CoverageError naming the stage (and ``source``, its file) whose weights name a manoeuvre the data set
    cannot run; checked before anything is built or evaluated."""
    from pybridge.coverage import CoverageError, choose

    for stage in stages:
        try:
            choose(stage.weights, reference_dir, [params], named=stage.weights)
        except CoverageError as error:
            raise CoverageError(f"{source + ': ' if source else ''}stage '{stage.name}': {error}") from None


@holding_run_folder("run_dir", "identify")
def identify_vehicle(params: ParameterSet, reference_dir: str | Path, fmu: str | Path, run_dir: str | Path, *,
                     options: SearchOptions | None = None, objective_file: str | Path = DEFAULT_FILE,
                     workers: int = 2, address: str | None = None, resume: bool = False,
                     progress: bool = True, stages: list[Stage] | None = None,
                     analyse: bool = True, lanes: str | int | None = None) -> IdentificationResult:
    """Pattern search or NOMAD (``options.method``) over ``params``' uncertain parameters against the traces of ``reference_dir``;
    with ``stages`` (LMS paper), the stages in sequence, each from the last one's result. ``analyse``: then
    what the data determine at the optimum (``pybridge.identify.run_analysis``, 2N + 1 evaluations).
    ``lanes``: several candidates per call on the FMU's lane model (pybridge.identify.lane_batch: off, auto,
    4 or 8; default $PYBRIDGE_LANES, else auto)."""
    options = options or SearchOptions()
    check_stage_coverage(stages or (), Path(reference_dir), params)
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    fmu_copy = _fmu_in_run_folder(Path(fmu), run_dir)
    if not (run_dir / "params_nominal").exists():
        params.write(run_dir / "params_nominal")
    problem = VehicleProblem(params, Path(reference_dir), fmu_copy, Path(objective_file))
    start = time.perf_counter()
    step = problem.choose_step()
    nominal = _scores(problem.start_check())
    description = {"reference": str(Path(reference_dir).resolve()), "objective": str(Path(objective_file).resolve()),
                   "model": params.model, "uncertain": sorted(params.uncertain)}
    if step["step_s"] not in (None, IDENTIFICATION_STEPS["RK4"]):  # a record of another step is refused
        description["internal_step"] = step["step_s"]
    objective = lane_objective(problem, lanes=lanes)   # before the workers fork: they inherit its lane sessions
    with make_executor(workers=workers, address=address) as executor:   # kept for the analysis
        if stages:
            fitness = StageFitness(problem, objective.lanes) if objective.lanes > 1 else problem.stage_fitness
            result = run_stages(staged_with_defaults(stages, options), fitness, problem.bounds,
                                problem.nominal, executor=executor, record_dir=run_dir / "stages", resume=resume,
                                progress=progress)
        else:
            result = options.engine(objective, problem.bounds, problem.nominal, **options.keywords(),
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
            "workers": workers, "lanes": objective.lanes,
            "reference": str(Path(reference_dir).resolve()), "skipped": problem.skipped,
            "objective": str(Path(objective_file).resolve()), "fmu": fmu_copy.name,
            "identification_step": step,
            "parameters": {name: {"nominal": float(problem.nominal[name]), "optimized": float(value),
                                  "lower": float(problem.bounds[name][0]), "upper": float(problem.bounds[name][1]),
                                  **change(problem.nominal[name], value)}
                           for name, value in result.parameters.items()},
            "nominal": nominal, "optimized": _scores(problem.evaluate(result.parameters)),
            "history": result.history,
        }
        if stages:
            summary["stages"] = [{"name": s["stage"].name, "method": s["stage"].engine, "parameters": s["stage"].parameters,
                                  "evaluations": s["result"].evaluations, "fitness": float(s["result"].fitness),
                                  "stopped_because": s["result"].stopped_because} for s in result.extra["stages"]]
        write_text_atomically(run_dir / "result.yaml", dump_yaml(summary, sort_keys=False))
        if analyse:
            from pybridge.identify.run_analysis import analyse_after_identification
            summary["identifiability"] = analyse_after_identification(run_dir, problem, workers=workers,
                                                                      address=address, executor=executor, lanes=lanes,
                                                                      optimized=optimized, summary=summary)
    result.record_path = run_dir / ("stages" if stages else "record.jsonl")
    result.extra["summary"] = summary
    return result
