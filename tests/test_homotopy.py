"""Homotopy optimization (SLEKQ paper, Sec. 4, Eq. 3-6): the generic method and the quarter-car problem.

The generic method is checked on an oscillator whose frequency and damping are identified from its
free vibration: the output-error objective has a local minimum every few per cent of frequency (the
signals drift out of phase), so a plain Nelder-Mead from a poor guess stops in one, while the observer
coupling of Eq. 3 (position and velocity errors, PD gains) makes the model track the data at λ = 1
and leaves a single minimum. The SLEKQ problem runs the KCRig FMU with a short sweep.
"""
from __future__ import annotations

import json
import math
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
from scipy import linalg, signal

from pybridge.identify import IdentificationResult
from pybridge.identify.homotopy import DEFAULT_LAMBDAS, homotopy_optimize, nelder_mead_schedule
from pybridge.identify.slekq import SLEKQ_PARAMETERS, slekq_problem, suv_corner_data

# ---------------------------------------------------------------------------------------------------
# A problem with local minima that the coupling removes
# ---------------------------------------------------------------------------------------------------
OMEGA, ZETA = 2 * np.pi, 0.01
TIME = np.linspace(0.0, 10.0, 1001)
KP, KD = 400.0, 40.0   # observer gains: at lambda = 1 a 20 rad/s, critically damped tracking loop


def _oscillator(omega: float, zeta: float, lam: float, measured=None) -> np.ndarray:
    """x'' + 2 zeta omega x' + omega^2 x = lam (KP (x_e - x) + KD (v_e - v)), x(0) = 1: rows x, v.

    The exact solution for an input linear between samples (scipy.signal.lsim's first-order hold), its
    recurrence x[k] = Ad x[k-1] + B0 u[k-1] + B1 u[k] run through lfilter (lsim loops in Python: 9 ms a call).
    """
    a = np.array([[0.0, 1.0], [-(omega ** 2 + lam * KP), -(2 * zeta * omega + lam * KD)]])
    dt = TIME[1] - TIME[0]
    augmented = np.zeros((4, 4))
    augmented[:2, :2], augmented[1, 2], augmented[2, 3] = a * dt, lam * dt, 1.0
    hold = linalg.expm(augmented)
    ad, b1 = hold[:2, :2], hold[:2, 3]
    b0 = hold[:2, 2] - b1
    u = np.zeros_like(TIME) if measured is None else KP * measured[0] + KD * measured[1]
    w = np.zeros((2, len(TIME)))
    w[:, 0] = (1.0, 0.0)                                      # x(0), entering as the first sample
    w[:, 1:] = np.outer(b0, u[:-1]) + np.outer(b1, u[1:])
    den = [1.0, -np.trace(ad), np.linalg.det(ad)]             # (I - Ad/z)^-1 = adj(I - Ad/z) / det(I - Ad/z)
    x = signal.lfilter([1.0, -ad[1, 1]], den, w[0]) + signal.lfilter([0.0, ad[0, 1]], den, w[1])
    v = signal.lfilter([0.0, ad[1, 0]], den, w[0]) + signal.lfilter([1.0, -ad[0, 0]], den, w[1])
    return np.array([x, v])


MEASURED = _oscillator(OMEGA, ZETA, 0.0)
TOY_BOUNDS = {"omega": (0.3 * OMEGA, 3.0 * OMEGA), "zeta": (0.0, 0.1)}


def toy_objective(p: dict, lam: float) -> float:
    x, _ = _oscillator(p["omega"], p["zeta"], lam, MEASURED)
    return float(np.mean((x - MEASURED[0]) ** 2))


def _local_minima(values: np.ndarray) -> list[int]:
    return [i for i in range(1, len(values) - 1) if values[i] < values[i - 1] and values[i] < values[i + 1]]


def test_the_toy_oscillator_is_lsims_solution():
    """_oscillator's recurrence is the solution scipy.signal.lsim gives (free and coupled)."""
    for omega, zeta, lam in ((OMEGA, ZETA, 0.0), (1.7 * OMEGA, 0.05, 0.4), (0.5 * OMEGA, 0.0, 1.0)):
        a = np.array([[0.0, 1.0], [-(omega ** 2 + lam * KP), -(2 * zeta * omega + lam * KD)]])
        system = signal.StateSpace(a, np.array([[0.0], [lam]]), np.eye(2), np.zeros((2, 1)))
        expected = signal.lsim(system, KP * MEASURED[0] + KD * MEASURED[1], TIME, X0=[1.0, 0.0])[1].T
        assert np.max(np.abs(_oscillator(omega, zeta, lam, MEASURED) - expected)) < 1e-9


def test_coupling_convexifies_the_toy_objective():
    grid = np.linspace(*TOY_BOUNDS["omega"], 271)
    minima = {}
    for lam in (0.0, 1.0):
        values = np.array([toy_objective({"omega": w, "zeta": ZETA}, lam) for w in grid])
        minima[lam] = [grid[i] for i in _local_minima(values)]
    assert len(minima[0.0]) >= 5                      # output error: a minimum every few per cent
    assert len(minima[1.0]) == 1                      # coupled: one
    assert abs(minima[1.0][0] - OMEGA) <= grid[1] - grid[0]


def test_homotopy_finds_the_minimum_where_plain_nelder_mead_is_stuck():
    x0 = {"omega": 1.8 * OMEGA, "zeta": 0.05}
    plain = homotopy_optimize(toy_objective, TOY_BOUNDS, x0, lambdas=(0.0,))
    result = homotopy_optimize(toy_objective, TOY_BOUNDS, x0)
    assert isinstance(result, IdentificationResult) and result.method == "homotopy"
    assert abs(plain.parameters["omega"] / OMEGA - 1) > 0.2          # stuck in a local minimum
    assert plain.fitness > 1e-3
    assert abs(result.parameters["omega"] / OMEGA - 1) < 1e-4
    assert abs(result.parameters["zeta"] - ZETA) < 1e-4
    assert result.fitness < 1e-8 * plain.fitness
    # one stage per lambda, in order, each starting where the previous one ended
    assert [row["lambda"] for row in result.history] == list(DEFAULT_LAMBDAS)
    assert sum(row["stage_evaluations"] for row in result.history) == result.evaluations
    assert result.history[-1]["evaluations"] == result.evaluations
    assert result.history[-1]["parameters"] == result.parameters
    assert result.extra["stage_fitness"][-1] == result.fitness
    assert result.iterations == sum(row["stage_iterations"] for row in result.history) > 0
    assert "all 6 stages done" in result.stopped_because


def test_other_local_methods():
    x0 = {"omega": 1.8 * OMEGA, "zeta": 0.05}
    powell = homotopy_optimize(toy_objective, TOY_BOUNDS, x0, local="Powell")
    assert abs(powell.parameters["omega"] / OMEGA - 1) < 1e-3
    calls = []

    def coordinate_descent(fun, u0, bounds, options):
        from scipy.optimize import OptimizeResult, minimize_scalar
        calls.append(options["maxfev"])
        u = u0.copy()
        for _ in range(3):
            for i in range(len(u)):
                def along(s, i=i):
                    v = u.copy()
                    v[i] = s
                    return fun(v)
                u[i] = minimize_scalar(along, bounds=bounds[i], method="bounded",
                                       options={"xatol": 1e-9}).x
        return OptimizeResult(x=u, nit=3, message="coordinate descent")

    result = homotopy_optimize(toy_objective, TOY_BOUNDS, x0, local=coordinate_descent, lambdas=(1.0, 0.5, 0.0))
    assert len(calls) == 3 and result.extra["local"] == "coordinate_descent"
    assert abs(result.parameters["omega"] / OMEGA - 1) < 1e-3


# ---------------------------------------------------------------------------------------------------
# Options, failures, budget, record
# ---------------------------------------------------------------------------------------------------
def quadratic(p: dict, lam: float) -> float:
    return (p["a"] - 1.0) ** 2 + 10 * (p["b"] + 2.0) ** 2 + lam * (p["a"] - p["b"]) ** 2


QUAD_BOUNDS = {"a": (-5.0, 5.0), "b": (-5.0, 5.0)}


@pytest.mark.parametrize("kwargs, message", [
    ({"bounds": {"a": (1.0, 1.0)}, "x0": {"a": 1.0}}, "low < high"),
    ({"x0": {"a": 0.0}}, "missing"),
    ({"x0": {"a": 0.0, "b": 9.0}}, "outside"),
    ({"lambdas": (1.0, 1.5)}, "lambdas"),
    ({"lambdas": ()}, "lambdas"),
    ({"options": {"maxfev": [100, 100]}}, "one per stage"),
    ({"options": {"simplex": 0.1}}, "unknown options"),
    ({"options": {"maxfev": 2}}, "maxfev"),
    ({"resume": True}, "resume"),
])
def test_bad_arguments_are_refused(kwargs, message):
    arguments = {"bounds": QUAD_BOUNDS, "x0": {"a": 0.0, "b": 0.0}, **kwargs}
    with pytest.raises(ValueError, match=message):
        homotopy_optimize(quadratic, **arguments)


def test_failed_evaluations_cost_the_penalty_and_the_run_goes_on(caplog):
    def fragile(p, lam):
        if p["a"] > 2.0:
            raise RuntimeError("simulation diverged")
        if p["b"] > 1.0:
            return math.nan
        return quadratic(p, lam)

    result = homotopy_optimize(fragile, QUAD_BOUNDS, {"a": 1.5, "b": 0.5}, options={"simplex_size": 0.3})
    assert result.extra["failures"] > 0
    assert "simulation diverged" in caplog.text
    assert result.parameters["a"] == pytest.approx(1.0, abs=1e-3)
    assert result.parameters["b"] == pytest.approx(-2.0, abs=1e-3)


def test_max_evaluations_and_callback_stop_the_run():
    result = homotopy_optimize(quadratic, QUAD_BOUNDS, {"a": 0.0, "b": 0.0}, options={"max_evaluations": 30})
    assert result.evaluations == 30 and "max_evaluations" in result.stopped_because
    assert math.isfinite(result.fitness)
    seen = []
    stopped = homotopy_optimize(quadratic, QUAD_BOUNDS, {"a": 0.0, "b": 0.0},
                                callback=lambda row: seen.append(row["lambda"]) or row["stage"] == 1)
    assert seen == [1.0, 0.8] and len(stopped.history) == 2 and "callback" in stopped.stopped_because


def test_record_replays_a_killed_run(tmp_path):
    path = tmp_path / "run.jsonl"
    x0 = {"a": 4.0, "b": 3.0}
    first = homotopy_optimize(quadratic, QUAD_BOUNDS, x0, record=path)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["kind"] == "header" and len(lines) == first.evaluations + 1
    assert {json.loads(line)["lambda"] for line in lines[1:]} == set(DEFAULT_LAMBDAS)
    with pytest.raises(FileExistsError):
        homotopy_optimize(quadratic, QUAD_BOUNDS, x0, record=path)
    # killed half way, the last line cut in the middle
    half = len(lines) // 2
    path.write_text("\n".join(lines[:half]) + "\n" + lines[half][:20])
    calls = []

    def counted(p, lam):
        calls.append(lam)
        return quadratic(p, lam)

    resumed = homotopy_optimize(counted, QUAD_BOUNDS, x0, record=path, resume=True)
    assert resumed.parameters == first.parameters and resumed.fitness == first.fitness
    assert resumed.extra["replayed"] == half - 1 and len(calls) == first.evaluations - (half - 1)
    again = homotopy_optimize(counted, QUAD_BOUNDS, x0, record=path, resume=True)
    assert again.extra["new_evaluations"] == 0 and again.parameters == first.parameters
    assert resumed.record_path == path


def test_schedule_is_loose_while_coupled_and_tight_at_the_end():
    options = nelder_mead_schedule(6)
    assert options["maxfev"][:5] == [150] * 5 and options["restarts"][-1] == 3
    assert options["xatol"][-1] < options["xatol"][0]
    plain = nelder_mead_schedule(1)
    assert plain["maxfev"] == [options["maxfev"][-1]] and plain["restarts"] == [3]


# ---------------------------------------------------------------------------------------------------
# The SLEKQ problem (KCRig FMU, 2 s sweep)
# ---------------------------------------------------------------------------------------------------
SHORT = {"duration": 2.0, "step": 0.005}


@pytest.fixture(scope="module")
def kc_fmu(tmp_path_factory):
    from fmu_build import build_fmu
    from pybridge.identify.slekq import KCRIG_INTEGRATOR

    return build_fmu("VehicleRTM.QuarterCars.KCRig", backend="native", fmi_type="cs", integrator=KCRIG_INTEGRATOR,
                     out_dir=tmp_path_factory.mktemp("kc-rk4"))


@pytest.fixture(scope="module")
def slekq(kc_fmu):
    with slekq_problem(kc_fmu, **SHORT) as problem:
        yield problem


def test_slekq_parameters_map_to_the_rig(slekq, kc_fmu):
    data = suv_corner_data()
    assert list(slekq.bounds) == list(SLEKQ_PARAMETERS)
    assert "data.k0" not in slekq.bounds
    assert slekq.truth == {k: data[k] for k in SLEKQ_PARAMETERS}
    assert slekq.settings["F0"] == pytest.approx((data["data.mSprung"] + data["data.mUnsprung"]) * 9.81)
    assert slekq.scales["data.k2"] == pytest.approx(data["data.k3"] * slekq.settings["static_compression"])
    for name, (low, high) in slekq.bounds.items():
        assert low < slekq.truth[name] < high
    # the measurement is replayed exactly at lambda = 0; coupled, the true parameters are near-optimal
    assert slekq.objective(slekq.truth, 0.0) < 1e-20
    assert 0 < slekq.objective(slekq.truth, 1.0) < 1e-3
    with slekq_problem(kc_fmu, truth={"m_unsp": 61.1, "data.d1": 2000.0}, **SHORT) as other:
        assert other.truth["data.mUnsprung"] == 61.1 and other.truth["data.d1"] == 2000.0
        assert other.settings["F0"] == pytest.approx((data["data.mSprung"] + 61.1) * 9.81)
    with pytest.raises(ValueError, match="unknown parameter"):
        slekq_problem(kc_fmu, truth={"data.nothing": 1.0}, **SHORT)


def test_slekq_coupling_tracks_and_smooths(slekq):
    wrong = {k: slekq.truth[k] * f for k, f in (("data.mUnsprung", 1.3), ("data.k1", 0.75), ("data.d4", 0.6),
                                                 ("data.d6", 0.6))}
    tracking = {lam: slekq.terms(wrong, lam) for lam in (0.0, 1.0)}
    # Table 1 front gains: strong on velocity and acceleration errors, weak on position (G_I = 0.1)
    assert tracking[1.0]["v"] < 0.01 * tracking[0.0]["v"] and tracking[1.0]["a"] < 0.01 * tracking[0.0]["a"]
    assert tracking[1.0]["z"] < 0.25 * tracking[0.0]["z"]
    assert slekq.objective(wrong, 1.0) < 0.1 * slekq.objective(wrong, 0.0)
    # 1-D scans of each parameter from -80 % to +200 % of its scale, the others at the truth
    grid = np.linspace(-0.8, 2.0, 29)
    counts, concave = {0.0: 0, 1.0: 0}, {0.0: 0, 1.0: 0}
    for name in slekq.bounds:
        minima = {}
        for lam in (0.0, 1.0):
            values = np.array([slekq.objective({name: slekq.truth[name] + slekq.scales[name] * g}, lam)
                               for g in grid])
            minima[lam] = len(_local_minima(values))
            counts[lam] += minima[lam]
            concave[lam] += int(np.sum(np.diff(values, 2) < -1e-4 * np.ptp(values)))
        assert minima[1.0] <= minima[0.0], name
    print(f"\n  local minima over the scans: {counts}; concave grid points: {concave}")
    assert counts[1.0] <= counts[0.0]
    assert concave[1.0] <= concave[0.0] / 3          # the coupled objective is convex almost everywhere


_WORKER = None


def _start_worker(fmu: str) -> None:
    global _WORKER
    _WORKER = slekq_problem(fmu, **SHORT)


def _identify(index: int) -> dict:
    x0 = _WORKER.initial_guess(np.random.default_rng([2013, index]))
    result = homotopy_optimize(_WORKER.objective, _WORKER.bounds, x0, options=nelder_mead_schedule(len(DEFAULT_LAMBDAS)))
    return {"start": _WORKER.relative_errors(x0), "end": _WORKER.relative_errors(result.parameters),
            "fitness": result.fitness, "evaluations": result.evaluations, "lambdas": result.extra["lambdas"]}


def test_slekq_homotopy_recovers_the_parameters_from_random_guesses(kc_fmu):
    with ProcessPoolExecutor(2, initializer=_start_worker, initargs=(str(kc_fmu),)) as pool:
        runs = list(pool.map(_identify, range(2)))
    for run in runs:
        print(f"\n  start max error {max(run['start'].values()):.0%}, end {max(run['end'].values()):.2e} "
              f"after {run['evaluations']} evaluations (J = {run['fitness']:.2e})")
        assert max(run["start"].values()) > 0.25            # a poor guess
        assert max(run["start"].values()) <= 0.5
        assert run["lambdas"] == list(DEFAULT_LAMBDAS)
        assert max(run["end"].values()) <= 0.02, run["end"]
