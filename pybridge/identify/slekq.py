"""The SLEKQ corner on the K&C rig as an identification problem (SLEKQ paper, Sec. 4-5).

The rig (``VehicleRTM.QuarterCars.KCRig``) holds the body and pushes on the contact patch with a
vertical force ``F_Z(t)``. :class:`RigObjective` runs a candidate corner on it with the observer
coupling of Eq. 5 on a reference travel, velocity and acceleration, and scores it with Eq. 6; it is
shared by the paper's twin experiment here (:func:`slekq_problem`: the "measurement" is the rig with
true parameters) and by the corner of a multibody model (:mod:`pybridge.identify.corner`: the
measurement is the MBM's corner-force sweep).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["PAPER_NAMES", "SLEKQ_PARAMETERS", "TABLE1_GAINS", "RigObjective", "SLEKQProblem", "chirp_force",
           "slekq_problem", "suv_corner_data"]

#: The paper's parameter names and the KCRig FMU's. k0 is the spring force at the free length; with the
#: free length computed from the design load (the paper's choice) it is not identifiable (see
#: :func:`slekq_problem`), so it is not among :data:`SLEKQ_PARAMETERS`.
PAPER_NAMES = {"m_unsp": "data.mUnsprung", "k0": "data.k0", "k1": "data.k1", "k2": "data.k2", "k3": "data.k3",
               "d1": "data.d1", "d2": "data.d2", "d3": "data.d3", "d4": "data.d4", "d5": "data.d5",
               "d6": "data.d6"}
#: The identified parameters (FMU names): unsprung mass, spring k1..k3 (Eq. 2), damper d1..d6 (Eq. 1).
SLEKQ_PARAMETERS = ("data.mUnsprung", "data.k1", "data.k2", "data.k3", "data.d1", "data.d2", "data.d3",
                    "data.d4", "data.d5", "data.d6")
#: Homotopy coupling gains (G_I, G_P, G_D) of the paper's Table 1.
TABLE1_GAINS = {"front": (0.1, 2.0, 1.0), "rear": (0.5, 1.5, 0.8)}
_SPRING = ("data.k0", "data.k1", "data.k2", "data.k3")
# The homotopy coupling of Eq. 3-5 with Table 1 gains makes the rig stiff: its KC rig FMU integrates with
# RK4 (with Heun the λ = 1 acceleration tracking error is 1.05 % of the uncoupled one, not < 1 %).
KCRIG_INTEGRATOR = "rk4"
_EXAMPLE = "VehicleRTM.Examples.KCSweptSine"


def chirp_force(t: np.ndarray, f0: float, amplitude: float, f_start: float, f_end: float,
                duration: float) -> np.ndarray:
    """``F0 + amplitude·sin(φ(t))`` with a linear chirp: φ = 2π(f_start·t + (f_end - f_start)·t²/(2·duration))."""
    return f0 + amplitude * np.sin(2 * np.pi * (f_start * t + (f_end - f_start) * t ** 2 / (2 * duration)))


class RigObjective:
    """Eq. 6 on the K&C rig: ``objective(parameters, λ)`` and its three ``terms``.

    ``session`` is an open ``FMUSession`` of a KCRig Co-Simulation FMU and ``base`` the corner's
    parameter set; ``parameters`` passed to the objective override it (FMU names). ``time`` are the
    communication points (uniform ``step``), ``force`` the contact-patch force there (held over each
    step), ``reference`` the measured (z, v, a) at the communication points, ``coupling`` the
    (z, v, a) fed to the observer over each step (the measurement at its middle, or ``reference``).
    ``derived`` maps a candidate's parameters to further FMU values (e.g. the sprung load that keeps
    the static point). Terms are normalised by the measurement's own energy: ``∫e²/∫ref²`` of travel,
    velocity and the mean acceleration over each step ((v[k+1] - v[k])/step, for measurement and
    candidate alike: the FMU's output ``a`` at a communication point already feeds through the
    coupling inputs of the coming step).
    """

    def __init__(self, session, base, time: np.ndarray, force: np.ndarray, reference: np.ndarray, *,
                 coupling: np.ndarray | None = None, gains: Sequence[float] = TABLE1_GAINS["front"],
                 weights: Sequence[float] = (1.0, 1.0, 1.0),
                 derived: Callable[[dict], dict] | None = None):
        if len(gains) != 3 or len(weights) != 3:
            raise ValueError("gains are (G_I, G_P, G_D) and weights (w1, w2, w3): three numbers each")
        self.session, self.base, self.time, self.force = session, base, np.asarray(time), np.asarray(force)
        self.step = float(self.time[1] - self.time[0])
        self.reference = np.asarray(reference, dtype=float)
        self.coupling = self.reference if coupling is None else np.asarray(coupling, dtype=float)
        self.gains, self.weights = [float(g) for g in gains], [float(w) for w in weights]
        self.derived = derived
        self.ref_acc = np.diff(self.reference[:, 1]) / self.step
        self.energy = np.array([np.mean(self.reference[:, 0] ** 2), np.mean(self.reference[:, 1] ** 2),
                                np.mean(self.ref_acc ** 2)])
        self._frames: dict[float, pd.DataFrame] = {}

    def inputs(self, lam: float) -> pd.DataFrame:
        """The rig's input frame at coupling ``lam``."""
        if lam not in self._frames:
            g = self.gains
            self._frames[lam] = pd.DataFrame({
                "time": self.time, "FZ": self.force, "lambda": lam, "GI": g[0], "GP": g[1], "GD": g[2],
                "zRef": self.coupling[:, 0], "vRef": self.coupling[:, 1], "aRef": self.coupling[:, 2]})
        return self._frames[lam]

    def values(self, params: Mapping[str, float]) -> dict[str, float]:
        """The FMU values of a candidate: ``params`` (paper or FMU names) and what ``derived`` adds."""
        values = {PAPER_NAMES.get(k, k): float(v) for k, v in params.items()}
        return {**values, **(self.derived(values) if self.derived else {})}

    def run(self, params: Mapping[str, float], lam: float = 0.0, outputs: Sequence[str] = ("z", "v")) -> pd.DataFrame:
        """The rig's response to the force with the candidate ``params`` at coupling ``lam``."""
        self.session.apply(self.base.with_values(self.values(params)))
        return self.session.simulate(self.inputs(float(lam)), stop_time=float(self.time[-1]), step=self.step,
                                     outputs=list(outputs), start_time=float(self.time[0]))

    def terms(self, params: Mapping[str, float], lam: float) -> dict[str, float]:
        """The three normalised terms of Eq. 6 (travel, velocity, acceleration) before weighting."""
        run = self.run(params, lam)
        z, v = run["z"].to_numpy(), run["v"].to_numpy()
        ref = self.reference
        return {"z": float(np.mean((z - ref[:, 0]) ** 2) / self.energy[0]),
                "v": float(np.mean((v - ref[:, 1]) ** 2) / self.energy[1]),
                "a": float(np.mean((np.diff(v) / self.step - self.ref_acc) ** 2) / self.energy[2])}

    def __call__(self, params: Mapping[str, float], lam: float) -> float:
        parts = self.terms(params, lam)
        w = self.weights
        return float(w[0] * parts["z"] + w[1] * parts["v"] + w[2] * parts["a"])


@functools.lru_cache(maxsize=None)
def _example_rig_data(example: str) -> tuple[tuple[str, float], ...]:
    from fmu_build.variables import model_variables

    return tuple((v.name[len("rig."):], float(v.start)) for v in model_variables(example).variables
                 if v.name.startswith("rig.data.") and v.kind == "parameter" and v.start is not None)


def suv_corner_data(example: str = _EXAMPLE) -> dict[str, float]:
    """Every ``data.*`` parameter of the KCRig as the swept-sine example sets it (the SUV front corner,
    ``VehicleRTM.Data.SUV.Front``), read from the Modelica library."""
    data = dict(_example_rig_data(example))
    if "data.mUnsprung" not in data:
        raise ValueError(f"{example}: no rig.data.* parameters found; expected a KCRig instance 'rig'")
    return data


@dataclass
class SLEKQProblem:
    """A SLEKQ identification: ``objective(parameters, λ)``, ``bounds`` and ``truth`` (FMU names).

    ``truth`` is the true corner in a twin experiment, the converted start values for a multibody
    corner. ``scales`` is the size each parameter's error is measured against (its true value, or for
    a zero true value the size given by :func:`slekq_problem`); ``reference`` holds the measurement
    (time, z, v, a at the communication points). Unpacks as ``objective, bounds, truth = problem``.
    """

    objective: Callable[[dict, float], float]
    bounds: dict[str, tuple[float, float]]
    truth: dict[str, float]
    scales: dict[str, float]
    reference: pd.DataFrame
    settings: dict = field(default_factory=dict)
    terms: Callable[[dict, float], dict] | None = None
    session: object = None

    def __iter__(self):
        return iter((self.objective, self.bounds, self.truth))

    def relative_errors(self, parameters: Mapping[str, float]) -> dict[str, float]:
        """|identified - true| / scale for each identified parameter."""
        return {k: abs(float(parameters[k]) - self.truth[k]) / self.scales[k] for k in self.bounds}

    def recovered(self, parameters: Mapping[str, float], tolerance: float = 0.02) -> bool:
        """Every identified parameter within ``tolerance`` (relative to its scale) of the truth."""
        return max(self.relative_errors(parameters).values()) <= tolerance

    def initial_guess(self, rng: np.random.Generator, spread: float = 0.5) -> dict[str, float]:
        """A random guess, each parameter uniform within ±``spread`` (relative to its scale) of the truth,
        clipped to the bounds."""
        return {k: float(np.clip(self.truth[k] + self.scales[k] * rng.uniform(-spread, spread), *self.bounds[k]))
                for k in self.bounds}

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def spring_scale(name: str, values: Mapping[str, float], compression: float) -> float | None:
    """Size of a spring coefficient k_i whose value is zero: the smallest |k_j|·ΔL0^(j-i) over the
    non-zero coefficients, i.e. the k_i giving, at the static compression ΔL0, the force of the
    smallest non-zero term of the polynomial."""
    i = _SPRING.index(name)
    sizes = [abs(values[k]) * compression ** (j - i) for j, k in enumerate(_SPRING) if j != i and values.get(k)]
    return min(sizes) if sizes and compression > 0 else None


def parameter_scales(names: Sequence[str], data: Mapping[str, float], compression: float,
                     given: Mapping[str, float] | None = None) -> dict[str, float]:
    """The scale of each parameter: ``given``, else |value|, else (a zero spring coefficient) :func:`spring_scale`."""
    given = {PAPER_NAMES.get(k, k): float(v) for k, v in (given or {}).items()}
    scale = {}
    for name in names:
        value = given.get(name)
        if value is None:
            value = abs(data[name]) if data[name] else \
                spring_scale(name, data, compression) if name in _SPRING else None
        if not value or not value > 0:
            raise ValueError(f"{name}: value 0 and no scale to measure it against; give scales[{name!r}]")
        scale[name] = float(value)
    return scale


def slekq_problem(fmu_path: str | Path, truth: Mapping[str, float] | None = None, duration: float = 30.0,
                  step: float = 0.005, *, parameters: Sequence[str] = SLEKQ_PARAMETERS,
                  gains: Sequence[float] = TABLE1_GAINS["front"], weights: Sequence[float] = (1.0, 1.0, 1.0),
                  bound_fraction: float = 0.6, force_amplitude: float = 1000.0, f_start: float = 0.0,
                  f_end: float = 6.0, scales: Mapping[str, float] | None = None,
                  base_data: Mapping[str, float] | None = None, noise: float = 0.0,
                  seed: int = 0) -> SLEKQProblem:
    """The paper's twin identification of a SLEKQ corner from the K&C swept-sine vertical force test.

    ``fmu_path`` is a Co-Simulation FMU of ``VehicleRTM.QuarterCars.KCRig``. The true corner is
    ``base_data`` (every ``data.*`` value; default the SUV front corner of ``Examples.KCSweptSine``)
    with the entries of ``truth`` (FMU names ``data.*`` or the paper's names of :data:`PAPER_NAMES`).

    Test: ``F_Z(t) = F0 + force_amplitude·sin(φ(t))`` with F0 the corner weight
    ((mSprung + mUnsprung)·g of the truth) and a linear chirp from ``f_start`` to ``f_end`` over
    ``duration`` seconds (:func:`chirp_force`). The force is held over each communication ``step``; the
    FMU integrates with its integrator (default IMEX2) at ``step/2``.

    Measurement: the rig with the true parameters and λ = 0, run at ``step/2`` (the force still held
    over ``step``, so its samples at the communication points are exactly those of a candidate run),
    plus, with ``noise`` > 0, white noise of that fraction of each signal's RMS on travel and velocity
    (seeded). Candidate: the rig with the parameters under identification and the coupling of Eq. 5
    (inputs λ, ``gains`` = (G_I, G_P, G_D), reference z, dz/dt, d²z/dt² of the measurement). The
    reference inputs held over a step are the measurement at its middle, so that at the true
    parameters the coupled candidate reproduces the measurement to second order in the step (λ = 0:
    exactly). Objective: :class:`RigObjective` (Eq. 6).

    Identified ``parameters``: the unsprung mass, k1..k3 and d1..d6 (:data:`SLEKQ_PARAMETERS`). k0 is
    left out: with the free length computed so that z = 0 is the static equilibrium (as in the paper),
    a change of k0 is undone by k1, k2 and the free length (four coefficients, three observable
    ones: force, slope and curvature at the equilibrium, with k3). Bounds are the truth ±
    ``bound_fraction`` of each parameter's scale (|true value|; for a spring coefficient whose true
    value is zero, see :func:`spring_scale`; ``scales`` overrides).
    """
    from pybridge.simulate.fmu import FMUSession
    from pybridge.parameters import ParameterSet

    if not (duration > 0 and step > 0 and math.isclose(duration / step, round(duration / step), abs_tol=1e-9)):
        raise ValueError(f"duration ({duration}) must be a positive multiple of step ({step})")
    if not 0 < bound_fraction < 1:
        raise ValueError(f"bound_fraction must be in (0, 1), got {bound_fraction}")
    data = dict(base_data) if base_data is not None else suv_corner_data()
    for name, value in (truth or {}).items():
        key = PAPER_NAMES.get(name, name)
        if key not in data:
            raise ValueError(f"truth: unknown parameter {name!r}; expected one of {sorted(data)} or "
                             f"{sorted(PAPER_NAMES)}")
        data[key] = float(value)
    names = [PAPER_NAMES.get(p, p) for p in parameters]
    unknown = [p for p in names if p not in data]
    if unknown or not names:
        raise ValueError(f"parameters {unknown or names} are not corner data of the KCRig; expected some of "
                         f"{sorted(data)}")

    session = FMUSession(fmu_path, instance_name="slekq")
    try:
        g = float(session.variables["g"].start)
        base = ParameterSet(model=session.model_name, scalars={**data, "fixedStepSize": step / 2})
        count = round(duration / step)
        t = step * np.arange(count + 1)
        f0 = (data["data.mSprung"] + data["data.mUnsprung"]) * g
        force = chirp_force(t, f0, force_amplitude, f_start, f_end, duration)
        half = step / 2 * np.arange(2 * count + 1)
        session.apply(base)
        measured = session.simulate(pd.DataFrame({"time": half, "FZ": np.repeat(force, 2)[:len(half)]}),
                                    stop_time=duration, step=step / 2, outputs=["z", "v", "a", "corner.dL"])
        samples = measured[["z", "v", "a"]].to_numpy()
        if not np.isfinite(samples).all():
            raise ValueError("the measurement run with the true parameters diverged")
        if noise > 0:
            rng = np.random.default_rng(seed)
            rms = np.sqrt(np.mean(samples ** 2, axis=0))
            samples = samples + noise * rms * rng.standard_normal(samples.shape) * np.array([1.0, 1.0, 0.0])
        ref = samples[0::2]
        middle = np.vstack([samples[1::2], samples[-1:]])
        compression = float(measured["corner.dL"].iloc[0])
        scale = parameter_scales(names, data, compression, scales)
        bounds = {k: (data[k] - bound_fraction * scale[k], data[k] + bound_fraction * scale[k]) for k in names}
        objective = RigObjective(session, base, t, force, ref, coupling=middle, gains=gains, weights=weights)
        reference = pd.DataFrame({"time": t, "z": ref[:, 0], "v": ref[:, 1], "a": ref[:, 2], "FZ": force})
        settings = {"fmu": str(fmu_path), "duration": duration, "step": step, "internal_step": step / 2,
                    "gains": objective.gains, "weights": objective.weights,
                    "F0": f0, "force_amplitude": force_amplitude, "f_start": f_start, "f_end": f_end,
                    "static_compression": compression, "bound_fraction": bound_fraction, "noise": noise,
                    "energy": dict(zip("zva", objective.energy.tolist()))}
        return SLEKQProblem(objective=objective, bounds=bounds, truth={k: data[k] for k in names}, scales=scale,
                            reference=reference, settings=settings, terms=objective.terms, session=session)
    except Exception:
        session.close()
        raise
