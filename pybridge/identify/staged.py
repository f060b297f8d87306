"""Staged optimization (LMS paper, Table 9): stages of parameters and objectives run in sequence.

Each stage optimises its own parameters with all others fixed at the current values, starting from
the result of the stage before; its objective is ``evaluate_fitness(parameters, stage)``, which may
use ``stage.weights`` (manoeuvre -> index -> weight, the shape of the objective's ``weights``; empty:
the objective's own). Stage files (YAML, loaded safely, validated strictly)::

    format: vehiclertm-stages 1
    stages:
      - name: roll                                  # unique
        parameters: [k_arb_front, k_arb_rear]       # uncertain parameters tuned in this stage
        weights: {ramp_steer: {roll: 1.0}}          # optional
        method: pattern-search                      # optional (default); or nomad, differential-evolution,
                                                    # lh-doe (screening: its best points seed a following
                                                    # differential-evolution stage of the same parameters)
        options: {max_evaluations: 200, poll: mads} # optional, keyword arguments of the method
"""
from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


from pybridge.identify.differential_evolution import differential_evolution, lh_doe
from pybridge.identify.nomad import nomad_search
from pybridge.identify.nomad_options import NomadOptionError, check_nomad_options
from pybridge.identify.pattern_search import POLLS, pattern_search
from pybridge.identify.result import IdentificationResult
from pybridge.fileio import read_yaml

__all__ = ["FORMAT", "METHODS", "Stage", "StageConfigError", "load_stages", "run_stages"]

FORMAT = "vehiclertm-stages 1"
METHODS: dict[str, Callable[..., IdentificationResult]] = {"pattern-search": pattern_search, "nomad": nomad_search,
                                                            "differential-evolution": differential_evolution,
                                                            "lh-doe": lh_doe}
DEFAULT_METHOD = "pattern-search"
_STAGE_KEYS = {"name", "parameters", "weights", "method", "options"}
_RESERVED = {"objective", "bounds", "x0", "executor", "record", "resume", "progress", "description"}


class StageConfigError(ValueError):
    """A stage definition that cannot be used; the message names the file and the key."""


@dataclass
class Stage:
    """One stage: the parameters it tunes, the objective weights it uses, the method and its options.
    ``method`` None: the run's method (``identify_vehicle``'s ``options.method``; ``run_stages`` alone:
    ``DEFAULT_METHOD``)."""

    name: str
    parameters: list[str]
    weights: dict[str, dict[str, float]] = field(default_factory=dict)
    method: str | None = None
    options: dict = field(default_factory=dict)

    @property
    def engine(self) -> str:
        """The method the stage runs with."""
        return self.method or DEFAULT_METHOD


def method_options(method: str) -> set[str]:
    """Keyword options a stage may pass to ``method`` (run_stages sets the others)."""
    return set(inspect.signature(METHODS[method]).parameters) - _RESERVED


class _StageObjective:
    """The stage's parameters merged into the fixed values, then ``evaluate_fitness`` (picklable)."""

    def __init__(self, evaluate_fitness, stage: Stage, fixed: dict[str, float]):
        self.evaluate_fitness, self.stage, self.fixed = evaluate_fitness, stage, fixed

    def __call__(self, values: Mapping[str, float]):
        return self.evaluate_fitness({**self.fixed, **values}, self.stage)


class _StageLaneObjective(_StageObjective):
    """The same for an ``evaluate_fitness`` with ``lanes`` and ``batch(items, stage)`` (lane_batch.StageFitness):
    the engines' blocks go to the workers in chunks, each run on the lane model (executor.map_batched)."""

    @property
    def lanes(self) -> int:
        return self.evaluate_fitness.lanes

    def batch(self, items: list[Mapping[str, float]]) -> list:
        return self.evaluate_fitness.batch([{**self.fixed, **values} for values in items], self.stage)


def _check(stages: list[Stage], bounds: Mapping, x0: Mapping) -> None:
    if not stages:
        raise ValueError("no stages to run")
    names = [s.name for s in stages]
    if len(set(names)) != len(names):
        raise ValueError(f"stage names must be unique: {names}")
    missing = sorted(set(bounds) - set(x0))
    if missing:
        raise ValueError(f"x0 lacks the bounded parameters {missing}")
    for s in stages:
        unknown = [p for p in s.parameters if p not in bounds]
        if not s.parameters:
            raise ValueError(f"stage '{s.name}': no parameters")
        if unknown:
            raise ValueError(f"stage '{s.name}': parameters {unknown} have no bounds; known: {list(bounds)}")
        if s.engine not in METHODS:
            raise ValueError(f"stage '{s.name}': method '{s.method}', expected one of {list(METHODS)}")
        bad = sorted(set(s.options) - method_options(s.engine))
        if bad:
            raise ValueError(f"stage '{s.name}': unknown options {bad} for {s.engine}")


def run_stages(stages: Iterable[Stage], evaluate_fitness: Callable[[dict, Stage], object],
               bounds: Mapping[str, tuple[float, float]], x0: Mapping[str, float], executor=None,
               record_dir: str | Path | None = None, resume: bool = False,
               progress: bool = False) -> IdentificationResult:
    """Run ``stages`` in order from ``x0`` (all parameters; those in no stage stay fixed).

    ``evaluate_fitness(parameters, stage)`` gets every parameter and returns the fitness (a number or
    a ``FitnessResult``); it must pickle for a process executor. One with ``lanes`` and
    ``batch(items, stage)`` (``lane_batch.StageFitness``) gets the engines' blocks in chunks. With ``record_dir`` each stage keeps
    a run record ``<n>-<name>.jsonl`` there, and ``resume=True`` replays a killed run through them.
    The history is the stages' histories in order, with ``stage`` and ``stage_iteration`` added and
    ``iteration``, ``evaluations`` and ``time`` counted from the start of the first stage; ``fitness``
    is the last stage's; ``extra["stages"]`` lists each stage with its start point and result.
    """
    stages = list(stages)
    _check(stages, bounds, x0)
    if record_dir is not None:
        record_dir = Path(record_dir)
        record_dir.mkdir(parents=True, exist_ok=True)
    current = {k: float(v) for k, v in x0.items()}
    objective_class = _StageLaneObjective if hasattr(evaluate_fitness, "batch") else _StageObjective
    history, per_stage = [], []
    iterations = evaluations = 0
    start = time.monotonic()
    for number, stage in enumerate(stages, start=1):
        fixed = {k: v for k, v in current.items() if k not in stage.parameters}
        first = {p: current[p] for p in stage.parameters}
        record = None if record_dir is None else record_dir / f"{number}-{stage.name}.jsonl"
        offset = time.monotonic() - start
        seeds = _seeds(per_stage, stage)
        result = METHODS[stage.engine](
            objective_class(evaluate_fitness, stage, fixed), {p: bounds[p] for p in stage.parameters}, first,
            **seeds, **stage.options, executor=executor, record=record, resume=resume and record is not None,
            progress=progress, description={"stage": stage.name, "weights": stage.weights, "fixed": fixed})
        history += [{**row, "stage": stage.name, "stage_iteration": row["iteration"],
                     "iteration": iterations + row["iteration"], "evaluations": evaluations + row["evaluations"],
                     "time": offset + row["time"]} for row in result.history]
        iterations += result.iterations
        evaluations += result.evaluations
        current.update(result.parameters)
        per_stage.append({"stage": stage, "start": {**fixed, **first}, "result": result})
    last = per_stage[-1]["result"]
    return IdentificationResult(
        method="staged", parameters=current, fitness=last.fitness, evaluations=evaluations,
        iterations=iterations, history=history, stopped_because=f"stage '{stages[-1].name}': {last.stopped_because}",
        wall_time=time.monotonic() - start, record_path=record_dir, extra={"stages": per_stage})


def _seeds(done: list[dict], stage: Stage) -> dict:
    """A screening stage's best points (``extra["population"]``, LH-DOE) seed the next stage of the same
    parameters when its method takes a ``population`` (differential evolution)."""
    if not done or "population" not in inspect.signature(METHODS[stage.engine]).parameters \
            or "population" in stage.options:
        return {}
    previous = done[-1]
    if sorted(previous["stage"].parameters) != sorted(stage.parameters):
        return {}
    population = previous["result"].extra.get("population")
    return {"population": population} if population else {}


def _where(stage: int, key: str | None = None) -> str:
    return f"stages[{stage}]" + (f".{key}" if key else "")


def _mapping(value, where: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise StageConfigError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def _weights(value, where: str, indices: Mapping[str, Iterable[str]]) -> dict[str, dict[str, float]]:
    out = {}
    for manoeuvre, ws in _mapping(value, where).items():
        if manoeuvre not in indices:
            raise StageConfigError(f"{where}.{manoeuvre}: unknown manoeuvre, expected one of {sorted(indices)}")
        out[manoeuvre] = {}
        for name, w in _mapping(ws, f"{where}.{manoeuvre}").items():
            here = f"{where}.{manoeuvre}.{name}"
            if name not in indices[manoeuvre]:
                raise StageConfigError(f"{here}: unknown index, expected one of {list(indices[manoeuvre])}")
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not (math.isfinite(w) and w >= 0):
                raise StageConfigError(f"{here}: {w!r}, expected a finite weight >= 0")
            out[manoeuvre][name] = float(w)
    if out and not any(w > 0 for ws in out.values() for w in ws.values()):
        raise StageConfigError(f"{where}: expected at least one positive weight")
    return out


def _stage(i: int, data, known: list[str] | None, indices: Mapping, names: set[str]) -> Stage:
    data = _mapping(data, _where(i))
    unknown = sorted(set(map(str, data)) - _STAGE_KEYS)
    if unknown:
        raise StageConfigError(f"{_where(i)}: unknown key(s) {unknown}, expected some of {sorted(_STAGE_KEYS)}")
    for key in ("name", "parameters"):
        if key not in data:
            raise StageConfigError(f"{_where(i)}: missing key '{key}'")
    name = data["name"]
    if not isinstance(name, str) or not name or name in names:
        raise StageConfigError(f"{_where(i, 'name')}: {name!r}, expected a unique non-empty string")
    params = data["parameters"]
    if not isinstance(params, list) or not params or not all(isinstance(p, str) for p in params):
        raise StageConfigError(f"{_where(i, 'parameters')}: expected a non-empty list of parameter names")
    for j, p in enumerate(params):
        if known is not None and p not in known:
            raise StageConfigError(f"{_where(i, f'parameters[{j}]')}: unknown parameter '{p}', expected one of {known}")
        if p in params[:j]:
            raise StageConfigError(f"{_where(i, f'parameters[{j}]')}: '{p}' listed twice")
    method = data.get("method")
    if method is not None and method not in METHODS:
        raise StageConfigError(f"{_where(i, 'method')}: {method!r}, expected one of {list(METHODS)}")
    options = dict(_mapping(data.get("options", {}) or {}, _where(i, "options")))
    allowed = method_options(method) if method else set().union(*map(method_options, METHODS))
    bad = sorted(set(map(str, options)) - allowed)
    if bad:
        raise StageConfigError(f"{_where(i, 'options')}: unknown option(s) {bad} for {method or 'any method'}, "
                               f"expected some of {sorted(allowed)}")
    for key, value in options.items():
        problem = option_problem(key, value)
        if problem:
            raise StageConfigError(f"{_where(i, f'options.{key}')}: {value!r}, expected {problem}")
    if "nomad_options" in options:
        try:
            options["nomad_options"] = check_nomad_options(options["nomad_options"], _where(i, "options.nomad_options"))
        except NomadOptionError as error:
            raise StageConfigError(str(error)) from None
    weights = _weights(data.get("weights", {}) or {}, _where(i, "weights"), indices)
    return Stage(name, list(params), weights, method, options)


def _positive(value, integer: bool = False) -> bool:
    kinds = int if integer else (int, float)
    return not isinstance(value, bool) and isinstance(value, kinds) and math.isfinite(value) and value > 0


_OPTION_RANGES = {  # option -> (check, what is expected)
    "max_evaluations": (lambda v: _positive(v, True), "a whole number of evaluations >= 1"),
    "max_time": (lambda v: v is None or _positive(v), "null or a number of seconds > 0"),
    "initial_mesh": (lambda v: _positive(v) and v <= 1, "a fraction of each range in (0, 1]"),
    "min_mesh": (lambda v: _positive(v) and v < 1, "a fraction of each range in (0, 1)"),
    "min_frame": (lambda v: v is None or (_positive(v) and v < 1), "a fraction of each range in (0, 1)"),
    "expansion": (lambda v: _positive(v) and v >= 1, "a number >= 1"),
    "contraction": (lambda v: _positive(v) and v < 1, "a number in (0, 1)"),
    "seed": (lambda v: not isinstance(v, bool) and isinstance(v, int) and v >= 0, "a whole number >= 0"),
    "search": (lambda v: v is None or v == "lhs" or _positive(v, True), "null, lhs or a whole number of points >= 1"),
    "poll": (lambda v: v in POLLS, f"one of {', '.join(POLLS)}"),
}


def option_problem(key: str, value) -> str | None:
    """What a stage option's value should be, when it is not (None: fine or not range-checked here)."""
    if key in _OPTION_RANGES and not _OPTION_RANGES[key][0](value):
        return _OPTION_RANGES[key][1]
    if key in ("complete_poll", "speculative", "model_search", "chunked_poll", "fill_blocks") \
            and not isinstance(value, bool):
        return "true or false"
    return None


def load_stages(path: str | Path, parameters: Iterable[str] | None = None,
                indices: Mapping[str, Iterable[str]] | None = None) -> list[Stage]:
    """Read a stage file; ``parameters``: the known parameter names (unchecked when None); ``indices``:
    manoeuvre -> index names the weights may use (default ``pybridge.evaluate.kpi.index_functions``)."""
    path = Path(path)
    if indices is None:
        from pybridge.evaluate.kpi import index_functions as indices
    known = None if parameters is None else list(parameters)
    data = read_yaml(path, StageConfigError)
    try:
        top = _mapping(data, "top level")
        unknown = sorted(set(map(str, top)) - {"format", "stages"})
        if unknown:
            raise StageConfigError(f"top level: unknown key(s) {unknown}, expected ['format', 'stages']")
        if top.get("format") != FORMAT:
            raise StageConfigError(f"format: {top.get('format')!r}, expected '{FORMAT}'")
        if not isinstance(top.get("stages"), list) or not top["stages"]:
            raise StageConfigError("stages: expected a non-empty list of stages")
        stages: list[Stage] = []
        for i, item in enumerate(top["stages"]):
            stages.append(_stage(i, item, known, indices, {s.name for s in stages}))
        return stages
    except StageConfigError as exc:
        raise StageConfigError(f"{path}: {exc}") from None
