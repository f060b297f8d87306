"""The full-vehicle identification problem: RTM FMU + parameter set vs the MBM reference traces.

``VehicleProblem`` is what an optimizer sees: bounds and a start point from the parameter set's
uncertain parameters, and ``fitness(values)`` (Eq. 9-10 over the manoeuvres of the objective that
the data set offers and the set can run, ``pybridge.coverage``; ``skipped`` names the others) that
fills the FMU with the candidate values, runs every manoeuvre and scores it against the reference.
It pickles (paths and the parameter set only): each worker process opens its own FMU session once.

The internal step: a native RTM FMU that locates its events inside the step is run at the largest step
that keeps the accuracy bar of ``benchmarks/rtm_accuracy.py`` for its integrator
(``IDENTIFICATION_STEPS``), not at its 1 ms default (kept for HIL); identification builds its FMU with
``IDENTIFICATION_INTEGRATOR``.
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import zipfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fmu_build.native_backend import STEP_VARIABLE
from pybridge.coverage import choose
from pybridge.simulate.divergence import run_checked
from pybridge.simulate.fmu import FMUSession
from pybridge.evaluate.kpi import index_channels
from pybridge.simulate.manoeuvres import ManifestReferences, run_scenario
from pybridge.evaluate.objective import DEFAULT_FILE, FitnessResult, Objective
from pybridge.fileio import once_per_file
from pybridge.parameters import ParameterSet
from pybridge.simulate.recorded import recorded_inputs
from pybridge.simulate.scenarios import SHIPPED_DIR, load_scenario
from pybridge.traces import find_trace, read_trace

# Largest internal step per Co-Simulation integrator (the FMU's vendor-annotation name) within the bar of
# benchmarks/rtm_accuracy.py (results/rtm_accuracy.json: NRMSE <= 0.1 % on every channel of every
# shipped manoeuvre against RK4 at 0.25 ms, the van's fitness within 0.5 % at the nominal point and at
# every corner of the uncertain box, no failed run). RK4 at 10 ms, one step per 100 Hz communication step
# (a longer one would be cut to it): worst NRMSE 5.2e-4, fitness +0.055 %, corners within 0.036 %, at
# 0.37 times Heun 1 ms's CPU (one noisy run). Heun 2 ms: 7.5e-4, +0.040 % (2.5 ms fails: 1.2e-3). Without the events
# located inside the step RK4 failed at 5 ms already (gear shifts up to a step late: acceleration ax 1.5e-3).
IDENTIFICATION_STEPS = {"RK4": 10e-3, "Heun": 2e-3}
IDENTIFICATION_INTEGRATOR = "rk4"  # fmu_build --integrator of the FMU the van's identification builds


_BUILDS: dict[tuple, ElementTree.Element | None] = {}   # native_build's answer per FMU file


def native_build(fmu: Path) -> ElementTree.Element | None:
    """The fmu_build ``Build`` element of a native FMU's VendorAnnotations (None: not a native build, or
    unreadable), read once per process for an FMU file unchanged since (``fileio.once_per_file``)."""
    try:
        return once_per_file(_BUILDS, Path(fmu), lambda: _read_build(Path(fmu)))
    except OSError:
        return None


def _read_build(fmu: Path) -> ElementTree.Element | None:
    try:
        with zipfile.ZipFile(fmu) as archive:
            root = ElementTree.fromstring(archive.read("modelDescription.xml"))
    except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError):
        return None
    return root.find("VendorAnnotations/Tool[@name='fmu_build']/Build")


def identification_step(fmu: Path) -> float | None:
    """The internal step for identifying on ``fmu``: IDENTIFICATION_STEPS of its integrator if it is a
    native build that locates events inside the step (its VendorAnnotations say so), else None (the
    FMU's own fixedStepSize)."""
    build = native_build(fmu)
    if build is None or build.get("coSimulationEvents") != "located":
        return None
    return IDENTIFICATION_STEPS.get(build.get("integrator", ""))


class ReferenceTraceError(ValueError):
    """A reference trace the objective cannot use (e.g. a channel it needs is missing); names the file."""


_SESSIONS: dict[str, FMUSession] = {}  # one FMU session per process and FMU file
# Per process: what an evaluation reads from files (objective with its reference traces, manifest
# references, scenarios), keyed by the files' paths, sizes and modification times. A worker receives
# the problem pickled with every task; without this it would re-read them for every evaluation.
_FROM_FILES: dict[tuple, object] = {}
_STEPS: dict[tuple, tuple] = {}   # per process: choose_step's choice and step for each _step_key


def _session(fmu: Path) -> FMUSession:
    key = str(fmu)
    if key not in _SESSIONS:
        _SESSIONS[key] = FMUSession(fmu)
    return _SESSIONS[key]


def _stamp(*paths: Path) -> tuple:
    """(path, size, mtime) of each file: a changed file gives a new key."""
    stamps = []
    for path in paths:
        try:
            info = path.stat()
            stamps.append((str(path), info.st_size, info.st_mtime_ns))
        except OSError:
            stamps.append((str(path), None, None))
    return tuple(stamps)


def _from_files(key: tuple, read):
    """``read()``'s value, read once per process for ``key``."""
    if key not in _FROM_FILES:
        _FROM_FILES[key] = read()
    return _FROM_FILES[key]


def _scenario(manoeuvre: str):
    return _from_files(("scenario", manoeuvre, _stamp(SHIPPED_DIR / f"{manoeuvre}.yaml")),
                       lambda: load_scenario(manoeuvre))


@dataclass
class VehicleProblem:
    """Identify ``params``' uncertain parameters on ``fmu`` against the data set ``reference_dir``."""
    params: ParameterSet
    reference_dir: Path
    fmu: Path
    objective_file: Path = DEFAULT_FILE
    internal_step: float | None = None  # s; None: identification_step(fmu); a fixedStepSize in params wins
    inputs: str = "recorded"  # recorded: the inputs the reference traces carry (pybridge.simulate.recorded); nominal
    _objectives: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        self.reference_dir, self.fmu, self.objective_file = (Path(self.reference_dir), Path(self.fmu),
                                                             Path(self.objective_file))
        if self.inputs not in ("recorded", "nominal"):
            raise ValueError(f"inputs = {self.inputs!r}; expected recorded or nominal")
        if not self.params.uncertain:
            raise ValueError("the parameter set marks no uncertain parameters: nothing to identify")
        if self.internal_step is None:
            self.internal_step = identification_step(self.fmu)
        self.objective_for(None)  # reads and checks the reference traces before any evaluation

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_objectives"] = {}  # rebuilt from the files in each process
        return state

    @property
    def objective(self) -> Objective:
        return self.objective_for(None)

    @property
    def skipped(self) -> dict[str, str]:
        """Manoeuvres of the objective file that this data set and parameter set cannot give, with why."""
        return choose(Objective.from_yaml(self.objective_file).weights, self.reference_dir, [self.params])[1]

    def objective_for(self, weights: dict | None) -> Objective:
        """The objective file's Eq. 9-10, with ``weights`` (a stage's: asked for by name, so a missing
        manoeuvre is an error) instead of its own when given; over the manoeuvres the run can use."""
        key = json.dumps(weights, sort_keys=True)
        if key not in self._objectives:
            files = _stamp(self.objective_file, self.reference_dir / "manifest.yaml",
                           *sorted(self.reference_dir.glob("traces/*")))
            self._objectives[key] = _from_files(
                ("objective", key, files, repr(self.params.metadata.get("lateral_only"))),
                lambda: self._read_objective(weights))
        return self._objectives[key]

    def _read_objective(self, weights: dict | None) -> Objective:
        objective = Objective.from_yaml(self.objective_file)
        if weights:
            objective = dataclasses.replace(objective, weights=weights)
        kept, _ = choose(objective.weights, self.reference_dir, [self.params], named=weights or ())
        objective = objective.restricted(kept)
        references = {m: self._reference(objective, m) for m in objective.weights}
        return dataclasses.replace(objective, references=references)

    def _reference(self, objective: Objective, manoeuvre: str):
        """The reference trace of ``manoeuvre``, checked to hold every channel the objective's indices read."""
        path = find_trace(self.reference_dir, manoeuvre)
        trace = read_trace(path)[0]
        for name in objective.weights[manoeuvre]:
            missing = [c for c in index_channels(manoeuvre, name) if c not in trace.columns]
            if missing:
                raise ReferenceTraceError(f"{path}: no channel '{missing[0]}', which the objective "
                                          f"({self.objective_file}) uses for {manoeuvre}/{name}")
        return trace

    @property
    def speeds(self) -> list[float]:
        """The initial speeds (m/s) of the objective's manoeuvres: the speeds the evaluations drive."""
        return [s.initial_speed for s in map(_scenario, self.objective.weights) if s.initial_speed is not None]

    def choose_step(self) -> dict:
        """Choose the internal step for this parameter set (``pybridge.identify.step_choice``; a
        ``fixedStepSize`` in the set wins); the choice and its reason."""
        from pybridge.identify.step_choice import choose_step

        if STEP_VARIABLE in self.params.scalars:
            return {"step_s": float(self.params.scalars[STEP_VARIABLE]),
                    "reason": f"the parameter set's {STEP_VARIABLE}"}
        key = self._step_key()
        if key not in _STEPS:   # the demo chooses it in its sensitivity step, then identify_vehicle asks again
            _STEPS[key] = (choose_step(self, self.speeds), self.internal_step)
        choice, self.internal_step = _STEPS[key]
        return copy.deepcopy(choice)

    def _step_key(self) -> tuple:
        """What the step choice depends on: the FMU's bytes (identify_vehicle runs a copy in the run folder),
        the objective and its reference traces, the nominal candidate's values (scalars, tables), the inputs
        and the largest step; not which parameters are uncertain (the demo's sensitivity step drops some
        before the identification asks again)."""
        nominal = self.params.with_values(self.nominal)
        digest = hashlib.sha256(json.dumps([nominal.model, nominal.scalars, repr(nominal.metadata.get("lateral_only"))],
                                           sort_keys=True, default=repr).encode())
        for name in sorted(nominal.tables):
            digest.update(name.encode() + np.ascontiguousarray(nominal.tables[name], dtype=float).tobytes())
        files = _stamp(self.objective_file, self.reference_dir / "manifest.yaml",
                       *sorted(self.reference_dir.glob("traces/*")))
        fmu = _from_files(("fmu digest", _stamp(self.fmu)), lambda: hashlib.sha256(self.fmu.read_bytes()).hexdigest())
        return digest.hexdigest(), fmu, files, self.inputs, self.internal_step

    @property
    def bounds(self) -> dict[str, tuple[float, float]]:
        return {name: (lo, hi) for name, (_, lo, hi) in self.params.uncertain.items()}

    @property
    def nominal(self) -> dict[str, float]:
        return {name: nominal for name, (nominal, _, _) in self.params.uncertain.items()}

    def candidate(self, values: dict[str, float]) -> ParameterSet:
        """The parameter set an evaluation at ``values`` runs: the values filled in, and the internal
        step the problem runs at (unless the set has its own)."""
        candidate = self.params.with_values(values)
        if self.internal_step is not None and STEP_VARIABLE not in candidate.scalars:
            candidate.scalars[STEP_VARIABLE] = self.internal_step
        return candidate

    def start_check(self) -> FitnessResult:
        """The evaluation of the nominal point (the start point of every optimizer);
        ``StartPointFailed`` with each failed manoeuvre's cause when it fails."""
        from pybridge.identify.evaluations import StartPointFailed

        result = self.evaluate(self.nominal)
        if result.failed:
            raise StartPointFailed("the nominal parameter set (the start point) fails, so no optimizer starts: "
                                   + "; ".join(f"{m}: {why}" for m, why in result.failed.items()))
        return result

    def evaluate(self, values: dict[str, float], weights: dict | None = None) -> FitnessResult:
        """Fill, run every manoeuvre of the objective (or of ``weights``), score (failures give the
        failure value)."""
        objective, traces = self.simulate(values, weights)
        return objective.fitness(traces)

    def simulate(self, values: dict[str, float], weights: dict | None = None) -> tuple[Objective, dict]:
        """The objective (of ``weights``) and its manoeuvres' traces at ``values`` (a failed run: its exception)."""
        objective = self.objective_for(weights)
        candidate = self.candidate(values)
        return objective, {m: self.run_manoeuvre(m, candidate, objective) for m in objective.weights}

    @property
    def resolve(self) -> ManifestReferences:
        """The data set's manifest references (read once per process)."""
        manifest = self.reference_dir / "manifest.yaml"
        return _from_files(("manifest", _stamp(manifest)), lambda: ManifestReferences(manifest))

    def min_span(self, manoeuvre: str, objective: Objective) -> float:
        """The shortest run (s) of ``manoeuvre`` the objective scores without a divergence check."""
        reference = objective.references[manoeuvre]["time"]
        return objective.min_duration_fraction * float(reference.iloc[-1] - reference.iloc[0])

    def run_manoeuvre(self, manoeuvre: str, candidate: ParameterSet, objective: Objective):
        """The trace of ``manoeuvre`` for ``candidate`` on the scalar path (a failed run: its exception)."""
        session = _session(self.fmu)
        try:
            return run_checked(lambda s: run_scenario(session, s, candidate, self.resolve),
                               self._scenario(manoeuvre, objective), self.min_span(manoeuvre, objective))
        except Exception as error:  # scored as a failed simulation by the objective
            return error

    def _scenario(self, manoeuvre: str, objective: Objective):
        """The scenario of ``manoeuvre`` on the inputs of its reference trace (``inputs``), once per process."""
        reference = objective.references[manoeuvre]
        return _from_files(("recorded", manoeuvre, self.inputs, id(reference)),
                           lambda: recorded_inputs(_scenario(manoeuvre), reference, carried=self.inputs == "recorded",
                                                   source=f"the {manoeuvre} trace of {self.reference_dir}"))

    def fitness(self, values: dict[str, float]) -> float:
        """Eq. 9-10 at ``values``; EvaluationFailed when a manoeuvre failed (never the failure value)."""
        return _succeeded(self.evaluate(values)).value

    def stage_fitness(self, values: dict[str, float], stage) -> float:
        """Fitness under a stage's weights (its own manoeuvres only), for ``run_stages``; EvaluationFailed
        as ``fitness``."""
        return _succeeded(self.evaluate(values, stage.weights or None)).value

    def index_errors(self, values: dict[str, float]) -> dict[str, float]:
        """Per-index errors e (%) keyed 'manoeuvre/index', for the sensitivity analysis; EvaluationFailed
        when a manoeuvre failed."""
        result = _succeeded(self.evaluate(values))
        return {f"{m}/{n}": s.error for (m, n), s in result.per_index.items()}


class EvaluationFailed(RuntimeError):
    """An evaluation in which a manoeuvre failed or diverged; the message names each with its cause."""


def _succeeded(result: FitnessResult) -> FitnessResult:
    if result.failed:
        raise EvaluationFailed("; ".join(f"{m}: {why}" for m, why in result.failed.items()))
    return result
