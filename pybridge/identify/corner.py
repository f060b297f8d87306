"""Identify one SLEKQ corner of the MBM against its swept-sine corner-force trace (SLEKQ paper, Sec. 4-5).

The MBM's ``traces/corner_force_sweep_<corner>.csv`` holds the contact-patch force
F0 + 1 kN sin(φ(t)) (0 -> 6 Hz in 30 s, chassis held, the other wheel of the axle held at design) and
the wheel travel it caused. :class:`CornerProblem` drives the KCRig FMU with the same force, the
corner's start values from :func:`pybridge.convert_corner.convert_corner`, and the observer coupling of
Eq. 5 on the measured travel and its derivatives (a cubic spline through the trace), scored by
Eq. 6. Identified: the unsprung mass, spring k1..k3 (Eq. 2) and damper d1..d6 (Eq. 1), and on a corner
whose conversion carries spring friction (a multi-leaf rear) its force and presliding length
(:data:`FRICTION_PARAMETERS`); the sprung load follows the unsprung mass so that z = 0 stays the static
point under F0.

Observer gains: the paper's Table 1 (front or rear) on normalisations scaled to the corner: the SLEKQ
model's N_I, N_P, N_D (set for the paper's SUV front corner, :data:`SUV_FRONT`) times the ratio of
this corner's wheel rate, of √(rate·mass) and of its unsprung mass to the SUV's, so that λ·Γ bears the
same proportion to this corner's spring, damping and inertia as in the paper.

:func:`identify_corner` writes a run folder::

    RUN/corner.yaml             the starting corner: K&C fits and their residuals, rates, mass split
    RUN/params_start/           the KCRig parameter set converted from the MBM data set
    RUN/params_identified/      the same with the identified parameters
    RUN/record.jsonl            every evaluation, append-only (--resume continues from it)
    RUN/result.yaml             method, fitness, parameters start -> identified, wheel-travel NRMSE, λ path
    RUN/sweep.csv               time, force, MBM travel, SLEKQ travel with the start and identified values
    RUN/<KCRig>.fmu             the FMU used
"""
from __future__ import annotations

import math
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy.interpolate import CubicSpline

from pybridge.convert_corner import G, CornerConversion, convert_corner
from pybridge.identify.slekq import (KCRIG_INTEGRATOR, SLEKQ_PARAMETERS, TABLE1_GAINS, RigObjective,
                                     parameter_scales)
from pybridge.parameters import ParameterSet
from pybridge.traces import find_trace, read_trace

__all__ = ["FRICTION_PARAMETERS", "KCRIG", "METHODS", "SUV_FRONT", "CornerProblem", "identify_corner", "nrmse"]

KCRIG = "VehicleRTM.QuarterCars.KCRig"
METHODS = ("homotopy", "nelder-mead", "pattern-search")
#: The strut friction (Dahl law of ``CornerData``), identified where the conversion found some.
FRICTION_PARAMETERS = ("data.fFriction", "data.xFriction")
#: The corner the SLEKQ model's observer normalisations were set for: the paper's SUV front
#: (``Data.SUV.Front``: wheel rate at design, identified unsprung mass of Table 2) and the normalisations.
SUV_FRONT = {"wheel_rate": 36.7e3, "unsprung": 59.1, "NI": 1.0e5, "NP": 1.0e4, "ND": 50.0}
_OBJECTIVES: dict[tuple, RigObjective] = {}   # one rig objective (and FMU session) per process and problem


def nrmse(reference: np.ndarray, values: np.ndarray) -> float:
    """RMS of the difference over the range (max - min) of the reference."""
    reference, values = np.asarray(reference, float), np.asarray(values, float)
    return float(np.sqrt(np.mean((values - reference) ** 2)) / np.ptp(reference))


@dataclass
class CornerProblem:
    """The identification of ``corner`` of the MBM data set ``reference_dir`` on the KCRig ``fmu``.

    ``duration`` (s) takes the first part of the sweep (None: all of it); ``step`` is the
    communication step (s; the FMU integrates at half of it); bounds are the start ±
    ``bound_fraction`` of each parameter's scale. Pickles as paths and settings: each process opens
    its own FMU session.
    """

    reference_dir: Path
    corner: str
    fmu: Path
    duration: float | None = None
    step: float = 0.005
    bound_fraction: float = 0.6
    weights: tuple[float, float, float] = (1.0, 1.0, 1.0)
    parameters: tuple[str, ...] = SLEKQ_PARAMETERS
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        self.reference_dir, self.fmu = Path(self.reference_dir), Path(self.fmu)
        self.weights = tuple(float(w) for w in self.weights)
        self.parameters = tuple(self.parameters)

    def __getstate__(self):
        return {**self.__dict__, "_cache": {}}

    def _key(self) -> tuple:
        return (str(self.reference_dir), self.corner, str(self.fmu), self.duration, self.step, self.weights)

    @property
    def conversion(self) -> CornerConversion:
        if "conversion" not in self._cache:
            trace = self.trace
            self._cache["conversion"] = convert_corner(self.reference_dir / "mbm", self.corner,
                                                       corner_load=float(trace["corner_force"].iloc[0]))
        return self._cache["conversion"]

    @property
    def trace(self) -> pd.DataFrame:
        """The MBM trace (time, corner_force, wheel_travel), cut to ``duration``."""
        if "trace" not in self._cache:
            name = f"corner_force_sweep_{self.corner}"
            try:
                path = find_trace(self.reference_dir, name)
            except (OSError, ValueError) as error:
                raise ValueError(f"{self.reference_dir}: no trace {name} ({error}); the corner-force sweep of "
                                 f"{self.corner} is needed (pybridge mbm generate writes FL and RL)") from None
            trace = read_trace(path)[0]
            missing = {"time", "corner_force", "wheel_travel"} - set(trace)
            if missing:
                raise ValueError(f"{path}: no channel {', '.join(sorted(missing))}; expected time, corner_force, "
                                 "wheel_travel")
            if self.duration is not None:
                length = float(trace["time"].iloc[-1] - trace["time"].iloc[0]) if len(trace) else 0.0
                if not (math.isfinite(self.duration) and 2 * self.step <= self.duration <= length + 1e-9):
                    raise ValueError(f"duration (--duration): {self.duration!r} s, expected a number of seconds from "
                                     f"{2 * self.step:g} (two communication steps) to the sweep's length "
                                     f"{length:g} s ({path})")
                trace = trace[trace["time"] <= self.duration + 1e-9].reset_index(drop=True)
            self._cache["trace"] = trace
        return self._cache["trace"]

    @property
    def base(self) -> ParameterSet:
        """The converted corner as a KCRig parameter set (with the scaled observer normalisations)."""
        data = dict(self.conversion.data)
        rates, m_u = self.conversion.rates["single_wheel"], data["data.mUnsprung"]
        s_k, s_m = rates / SUV_FRONT["wheel_rate"], m_u / SUV_FRONT["unsprung"]
        tables = {name: np.array([data.pop(f"{name}[{i}]") for i in (1, 2, 3)]) for name in ("data.rUpper", "data.rLower")}
        scalars = {**data, "corner.NI": SUV_FRONT["NI"] * s_k, "corner.NP": SUV_FRONT["NP"] * math.sqrt(s_k * s_m),
                   "corner.ND": SUV_FRONT["ND"] * s_m, "z0": 0.0, "fixedStepSize": self.step / 2}
        return ParameterSet(model=KCRIG, scalars=scalars, tables=tables,
                            metadata={"corner": self.corner, "source": str(self.reference_dir)})

    @property
    def gains(self) -> tuple[float, float, float]:
        return TABLE1_GAINS["front" if self.corner.startswith("F") else "rear"]

    @property
    def start(self) -> dict[str, float]:
        return {k: float(self.conversion.data[k]) for k in self.parameters}

    @property
    def scales(self) -> dict[str, float]:
        return parameter_scales(self.parameters, self.conversion.data, self.conversion.static_compression)

    @property
    def bounds(self) -> dict[str, tuple[float, float]]:
        start, scale, f = self.start, self.scales, self.bound_fraction
        return {k: (start[k] - f * scale[k], start[k] + f * scale[k]) for k in self.parameters}

    def reference(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(time, force at the middle of each step, measured (z, v, a), (z, v, a) at the middle of each step)."""
        trace = self.trace
        t_in, z_in = trace["time"].to_numpy(), trace["wheel_travel"].to_numpy()
        count = int(round((t_in[-1] - t_in[0]) / self.step))
        t = t_in[0] + self.step * np.arange(count + 1)
        travel, force = CubicSpline(t_in, z_in), CubicSpline(t_in, trace["corner_force"].to_numpy())
        middle = np.minimum(t + self.step / 2, t_in[-1])
        measured = np.column_stack([travel(t), travel(t, 1), travel(t, 2)])
        coupling = np.column_stack([travel(middle), travel(middle, 1), travel(middle, 2)])
        return t, force(middle), measured, coupling

    @property
    def objective(self) -> RigObjective:
        key = self._key()
        if key not in _OBJECTIVES:
            from pybridge.simulate.fmu import FMUSession

            t, force, measured, coupling = self.reference()
            load = self.conversion.corner_load
            _OBJECTIVES[key] = RigObjective(
                FMUSession(self.fmu, instance_name=f"corner{self.corner}"), self.base, t, force, measured,
                coupling=coupling, gains=self.gains, weights=self.weights,
                derived=lambda values: {"data.mSprung": load / G - values.get("data.mUnsprung", self.start["data.mUnsprung"])})
        return _OBJECTIVES[key]

    def at_lambda(self, values: dict[str, float], lam: float) -> float:
        """Eq. 6 at coupling ``lam``."""
        return self.objective(values, lam)

    def fitness(self, values: dict[str, float]) -> float:
        """Eq. 6 of the plain model (λ = 0)."""
        return self.objective(values, 0.0)

    def travel(self, values: dict[str, float]) -> np.ndarray:
        """The SLEKQ wheel travel at the communication points (λ = 0)."""
        return self.objective.run(values, 0.0, outputs=("z",))["z"].to_numpy()

    def travel_nrmse(self, values: dict[str, float]) -> float:
        """NRMSE of the wheel travel against the MBM (λ = 0)."""
        return nrmse(self.objective.reference[:, 0], self.travel(values))


def _method_run(problem: CornerProblem, method: str, x0: dict, *, max_evaluations: int, record: Path, resume: bool,
                workers: int, progress: bool, lambdas=None, description=None):
    from pybridge.identify.homotopy import DEFAULT_LAMBDAS, homotopy_optimize, nelder_mead_schedule

    if method == "pattern-search":
        from pybridge.identify.executor import make_executor
        from pybridge.identify.pattern_search import pattern_search

        with make_executor(workers=workers) as executor:
            return pattern_search(problem.fitness, problem.bounds, x0, max_evaluations=max_evaluations,
                                  min_mesh=1e-4, executor=executor, record=record, resume=resume, progress=progress,
                                  description=description)
    lambdas = tuple(lambdas or DEFAULT_LAMBDAS) if method == "homotopy" else (0.0,)
    n, coupled = len(problem.parameters), len(lambdas) - 1
    minimum = max(n + 1 + coupled * (n + 2), 2 * coupled * (n + 2))
    if max_evaluations < minimum:
        raise ValueError(f"max_evaluations (--max-evaluations): {max_evaluations} is too small for {method} on "
                         f"{n} parameters" + (f" in {len(lambdas)} homotopy stages" if coupled else "")
                         + f": a Nelder-Mead simplex alone needs {n + 1}; give at least {minimum}")
    per_stage = max(n + 1, max_evaluations // (3 * len(lambdas)))   # a coupled stage only leads the way
    options = nelder_mead_schedule(len(lambdas), intermediate_maxfev=per_stage,
                                   final_maxfev=max_evaluations - coupled * (per_stage + 1), final_restarts=1)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(lambdas), desc=f"{method} {problem.corner}", unit="stage")

    def stage_done(row):
        if bar is not None:
            bar.update(1)
            bar.set_postfix(fitness=f"{row['fitness']:.4g}", lam=row["lambda"])
    try:
        return homotopy_optimize(problem.at_lambda, problem.bounds, x0, lambdas=lambdas,
                                 options={**options, "max_evaluations": max_evaluations}, callback=stage_done,
                                 record=record, resume=resume, description=description)
    finally:
        if bar is not None:
            bar.close()


def identify_corner(reference_dir: str | Path, corner: str, run_dir: str | Path, *, method: str = "homotopy",
                    fmu: str | Path | None = None, max_evaluations: int = 400, duration: float | None = None,
                    step: float = 0.005, workers: int = 1, resume: bool = False, progress: bool = True,
                    lambdas=None) -> dict:
    """Identify ``corner`` of the MBM data set ``reference_dir`` by ``method`` (one of :data:`METHODS`)
    within ``max_evaluations``; write the run folder ``run_dir`` and return its ``result.yaml`` content.
    ``workers`` parallelise pattern search's polls (homotopy and Nelder-Mead are sequential)."""
    if method not in METHODS:
        raise ValueError(f"method {method!r}: expected one of {', '.join(METHODS)}")
    if duration is not None and not (isinstance(duration, (int, float)) and math.isfinite(duration) and duration > 0):
        raise ValueError(f"duration (--duration): {duration!r}, expected a number of seconds > 0 (at most the "
                         "sweep's length)")
    run_dir = Path(run_dir)
    record = run_dir / "record.jsonl"
    if record.exists() and not resume:
        raise FileExistsError(f"{run_dir} already holds a run (record.jsonl); pass --resume to continue it, "
                              "or use another run folder")
    run_dir.mkdir(parents=True, exist_ok=True)
    if fmu is None:
        from fmu_build import build_fmu
        fmu = build_fmu(KCRIG, out_dir=run_dir / "fmu-build", fmi_type="cs", integrator=KCRIG_INTEGRATOR)
    fmu_copy = run_dir / Path(fmu).name
    if not fmu_copy.exists():
        shutil.copy2(fmu, fmu_copy)
    problem = CornerProblem(Path(reference_dir), corner, fmu_copy, duration=duration, step=step)
    conversion = problem.conversion
    if conversion.data["data.fFriction"] > 0:
        problem.parameters += FRICTION_PARAMETERS
    (run_dir / "corner.yaml").write_text(yaml.safe_dump(conversion.summary(), sort_keys=False))
    problem.base.write(run_dir / "params_start")
    start = time.perf_counter()
    description = {"reference": str(Path(reference_dir).resolve()), "corner": corner, "duration": duration,
                   "step": step, "gains": list(problem.gains)}
    result = _method_run(problem, method, problem.start, max_evaluations=max_evaluations, record=record,
                         resume=resume, workers=workers, progress=progress, lambdas=lambdas, description=description)
    identified = dict(result.parameters)
    z_start, z_found = problem.travel(problem.start), problem.travel(identified)
    measured = problem.objective.reference[:, 0]
    pd.DataFrame({"time": problem.objective.time, "corner_force": problem.objective.force, "wheel_travel_mbm": measured,
                  "wheel_travel_start": z_start, "wheel_travel_identified": z_found}).to_csv(run_dir / "sweep.csv",
                                                                                             index=False)
    params = problem.base.with_values(problem.objective.values(identified))
    params.metadata = {**params.metadata, "identified_by": method, "run": str(run_dir)}
    params.write(run_dir / "params_identified")
    summary = {
        "format": "vehiclertm-corner-identification 1", "corner": corner, "method": method,
        "represents": _represents(corner, conversion),
        "stopped_because": result.stopped_because, "evaluations": result.evaluations,
        "wall_time_s": round(time.perf_counter() - start, 1), "duration_s": float(problem.objective.time[-1]),
        "gains": {"GI": problem.gains[0], "GP": problem.gains[1], "GD": problem.gains[2],
                  "NI": problem.base.scalars["corner.NI"], "NP": problem.base.scalars["corner.NP"],
                  "ND": problem.base.scalars["corner.ND"]},
        "fitness": {"start": problem.fitness(problem.start), "identified": float(problem.fitness(identified))},
        "wheel_travel_nrmse_percent": {"start": round(100 * nrmse(measured, z_start), 3),
                                       "identified": round(100 * nrmse(measured, z_found), 3)},
        "parameters": {k: {"start": problem.start[k], "identified": float(v), "lower": problem.bounds[k][0],
                           "upper": problem.bounds[k][1]} for k, v in identified.items()},
        "wheel_rate_N_per_mm": _wheel_rates(problem, identified),
        "lambda_path": [{"lambda": h.get("lambda", 0.0), "fitness": float(h["fitness"]),
                         "evaluations": h["evaluations"]} for h in result.history if "lambda" in h],
    }
    (run_dir / "result.yaml").write_text(yaml.safe_dump(summary, sort_keys=False))
    return summary


def _wheel_rates(problem: CornerProblem, identified: dict) -> dict:
    """Static wheel rates at design (N/mm): K&C parallel, opposite and single wheel, and the SLEKQ's
    with the start and the identified spring (from the strut force slope and the installation ratio)."""
    out = {k: round(v / 1000, 2) for k, v in problem.conversion.rates.items()}
    session, dz = problem.objective.session, 1e-4
    frame = pd.DataFrame({"time": [0.0, problem.step], "FZ": [problem.conversion.corner_load] * 2})
    for label, values in (("slekq_start", problem.start), ("slekq_identified", identified)):
        q = []
        for z0 in (-dz, dz):
            session.apply(problem.base.with_values({**problem.objective.values(values), "z0": z0}))
            q.append(float(session.simulate(frame, stop_time=problem.step, step=problem.step,
                                            outputs=["corner.Q"])["corner.Q"].iloc[0]))
        out[label] = round(-(q[1] - q[0]) / (2 * dz) / 1000, 2)
    return out


def _represents(corner: str, conversion: CornerConversion) -> str:
    r = conversion.rates
    return (f"{corner} with the other wheel of the axle held (the MBM corner sweep): K&C single-wheel rate "
            f"{r['single_wheel'] / 1000:.1f} N/mm = mean of parallel {r['parallel'] / 1000:.1f} and opposite "
            f"{r['opposite'] / 1000:.1f} N/mm; in heave and pitch both wheels move together (parallel rate, "
            f"{100 * (r['parallel'] / r['single_wheel'] - 1):+.0f} % from this corner's); kinematics from "
            f"{conversion.kinematics_from}")
