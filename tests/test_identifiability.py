"""What the data determine: intervals, correlations and flags on analytic twin problems (curves made by the
model itself plus 1 % noise, scored like the RTM's indices), the posterior, differential evolution."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.optimize import minimize

from pybridge.identify.declared import DeclaredUncertaintyError, declared_uncertainty
from pybridge.identify.differential_evolution import differential_evolution, lh_doe
from pybridge.identify.executor import make_executor
from pybridge.evaluate.kpi import IndexResult
from pybridge.evaluate.objective import Objective, corrected_error
from pybridge.identify.evaluations import _score
from pybridge.identify.identifiability import Scoring, analyse, linearise, probe_points
from pybridge.identify.residuals import residual_vector
from pybridge.identify.posterior import ACCEPTANCE, sample_posterior
from pybridge.identify.staged import StageConfigError, load_stages, run_stages

TIME = np.linspace(0.0, 2.0, 200)
BOUNDS = {"a": (0.5, 1.5), "b": (0.5, 1.5)}
TRUTH = {"a": 1.1, "b": 0.9}
OBJECTIVE_BASE = {"format": "vehiclertm-objective 1", "tolerance_percent": 5.0, "penalty_factor": 2.0,
                  "failure": {"value": 1.0e6, "min_duration_fraction": 0.5}}
SCORING = Scoring({f"curve/{k}": 1.0 / 6 for k in range(6)}, tolerance=5.0, penalty=2.0)


class Result:
    def __init__(self, residuals):
        self.residuals = {k: [float(x) for x in v] for k, v in residuals.items()}
        self.per_index = {k: float(np.linalg.norm(v)) for k, v in residuals.items()}
        self.value = sum(SCORING.coefficients[k] * corrected_error(v, SCORING.tolerance, SCORING.penalty)
                         for k, v in self.per_index.items())


def _curves(a, b):
    return [a * np.sin((k + 1) * TIME) + b ** 2 * np.cos(0.5 * k * TIME) + 0.3 * a * b * TIME for k in range(6)]


class Twin:
    """RMSE indices (% of the reference's range) of six curves against the model's own plus 1 % noise.
    ``product``: the parameters enter only as the product a*b (a redundant pair)."""

    def __init__(self, truth, product=False, noise=0.01, seed=1, curves=_curves):
        self.product, self.curves = product, curves
        rng = np.random.default_rng(seed)
        self.reference = [y + noise * np.ptp(y) * rng.standard_normal(len(y)) for y in self._model(truth)]

    def _model(self, x):
        return self.curves(x["a"] * x["b"], 1.0) if self.product else self.curves(x["a"], x["b"])

    def __call__(self, x):
        """Residual vectors whose norms are the RMSE indices."""
        return Result({f"curve/{k}": 100 * (y - r) / (np.sqrt(len(r)) * np.ptp(r))
                       for k, (y, r) in enumerate(zip(self._model(x), self.reference))})


def _optimum(twin, start=(1.0, 1.0)):
    names = list(BOUNDS)
    result = minimize(lambda v: twin(dict(zip(names, v))).value, start, method="Nelder-Mead",
                      options={"xatol": 1e-7, "fatol": 1e-12})
    return dict(zip(names, result.x))


def test_true_values_lie_inside_the_intervals_and_probes_are_2n_plus_1(tmp_path):
    twin = Twin(TRUTH)
    result = analyse(twin, BOUNDS, _optimum(twin), SCORING, record=tmp_path / "probe.jsonl")
    assert result.evaluations == 2 * len(BOUNDS) + 1
    for name, value in TRUTH.items():
        low, high = result.intervals[name]
        assert low < value < high, (name, result.intervals)
    assert not any(result.flags.values())
    again = analyse(twin, BOUNDS, result.optimum, SCORING, record=tmp_path / "probe.jsonl")
    assert again.evaluations == 0 and again.intervals == result.intervals   # resumed from its record


def test_redundant_pair_entering_as_a_product_is_flagged_correlated(tmp_path):
    twin = Twin({"a": 1.2, "b": 0.9}, product=True)
    result = analyse(twin, BOUNDS, _optimum(twin, start=(1.1, 1.0)), SCORING, record=tmp_path / "probe.jsonl")
    assert abs(result.correlation[0, 1]) > 0.95
    flags = {f["flag"]: f for f in result.flags["a"]}
    assert flags["correlated"]["partner"] == "b"


def test_on_bound_and_compensating_flags_name_their_reasons(tmp_path):
    twin = Twin({"a": 1.6, "b": 0.9})     # the truth lies beyond the upper bound of a
    optimum = _optimum(twin)
    optimum["a"] = BOUNDS["a"][1]
    result = analyse(twin, BOUNDS, optimum, SCORING, record=tmp_path / "probe.jsonl",
                     nominal={"a": 1.0, "b": 1.0}, declared={"b": (0.01, "masses.csv, tilt test")})
    reasons = {f["flag"]: f["reason"] for f in result.flags["a"]}
    assert "upper bound" in reasons["on bound"] and "widen it only if the MBM data support it" in reasons["on bound"]
    compensating = [f for f in result.flags["b"] if f["flag"] == "compensating"]
    assert compensating and "masses.csv, tilt test" in compensating[0]["reason"]


def test_an_optimum_within_the_final_mesh_of_a_bound_is_on_that_bound(tmp_path):
    """NOMAD stops with its frame below min_mesh (1e-3 of the range), so it ends a hair inside a bound
    (the van's front link split: 0.400001 on [0.4, 0.6]); that is on the bound, 2e-3 inside is not."""
    twin = Twin({"a": 0.4, "b": 0.9})     # the truth lies below the lower bound of a
    low, high = BOUNDS["a"]
    for inside, flagged in ((5e-6, True), (2e-3, False)):
        optimum = {**_optimum(twin), "a": low + inside * (high - low)}
        result = analyse(twin, BOUNDS, optimum, SCORING, record=tmp_path / f"probe{inside}.jsonl")
        reasons = {f["flag"]: f["reason"] for f in result.flags["a"]}
        assert ("on bound" in reasons) is flagged, (inside, reasons)
        assert not flagged or "lower bound" in reasons["on bound"]


def test_differential_evolution_records_resumes_and_fills_both_workers(tmp_path):
    twin = Twin(TRUTH)
    record = tmp_path / "de.jsonl"
    with make_executor(2) as executor:
        screening = lh_doe(twin, BOUNDS, None, max_evaluations=20, executor=executor, progress=False)
        first = differential_evolution(twin, BOUNDS, {"a": 1.0, "b": 1.0}, max_evaluations=60,
                                       population=screening.extra["population"], executor=executor, record=record,
                                       progress=False)
        lines = record.read_text().splitlines()
        assert len(lines) == 1 + first.extra["new_evaluations"] and first.extra["underfilled_batches"] == 0
        record.write_text("\n".join(lines[:25]) + "\n" + lines[25][:40])       # killed mid-run, mid-line
        resumed = differential_evolution(twin, BOUNDS, {"a": 1.0, "b": 1.0}, max_evaluations=60,
                                         population=screening.extra["population"], executor=executor,
                                         record=record, resume=True, progress=False)
    assert resumed.extra["replayed"] == 24 and resumed.fitness == first.fitness
    assert resumed.parameters == first.parameters
    assert first.fitness < twin({"a": 1.0, "b": 1.0}).value


def test_gauss_newton_intervals_agree_with_the_posterior_marginals(tmp_path):
    twin = Twin(TRUTH)
    local = analyse(twin, BOUNDS, _optimum(twin), SCORING, record=tmp_path / "probe.jsonl")
    posterior = sample_posterior(twin, BOUNDS, local.optimum, local.residual_variance, walkers=16, steps=600,
                                 progress=False)
    assert posterior.evaluations <= 16 * 601
    for name in BOUNDS:
        low, high = posterior.intervals[name]
        assert (high - low) / 2 == pytest.approx(local.half_width(name), rel=0.3), name
    assert ACCEPTANCE[0] < posterior.acceptance_fraction < ACCEPTANCE[1]


def _stage_fitness(values, stage):
    return Twin(TRUTH)(values)


def test_a_stage_file_screens_by_lh_doe_and_seeds_differential_evolution(tmp_path):
    path = tmp_path / "stages.yaml"
    path.write_text("format: vehiclertm-stages 1\nstages:\n"
                    "  - {name: screen, parameters: [a, b], method: lh-doe, options: {max_evaluations: 12, keep: 6}}\n"
                    "  - {name: evolve, parameters: [a, b], method: differential-evolution,\n"
                    "     options: {max_evaluations: 40, popsize: 3}}\n")
    stages = load_stages(path, parameters=list(BOUNDS), indices={"curve": []})
    result = run_stages(stages, _stage_fitness, BOUNDS, {"a": 1.0, "b": 1.0}, record_dir=tmp_path / "stages")
    screen, evolve = (s["result"] for s in result.extra["stages"])
    first_generation = [json.loads(line)["x"] for line in
                        (tmp_path / "stages" / "2-evolve.jsonl").read_text().splitlines()[1:7]]
    assert first_generation[1:] == screen.extra["population"][1:6]   # seeded by the screening (x0 replaces #0)
    assert evolve.fitness <= screen.fitness and result.method == "staged"
    path.write_text(path.read_text().replace("popsize: 3", "pop_size: 3"))
    with pytest.raises(StageConfigError, match=r"stages\[1\].options: unknown option\(s\) \['pop_size'\]"):
        load_stages(path, parameters=list(BOUNDS), indices={"curve": []})


def test_a_declared_uncertainty_file_with_a_bad_value_names_the_place(tmp_path):
    (tmp_path / "mbm").mkdir()
    (tmp_path / "mbm" / "uncertainty.yaml").write_text(
        "format: vehiclertm-mbm-uncertainty 1\nparameters:\n  chassis.cogHeight: {absolute: -0.02}\n")
    with pytest.raises(DeclaredUncertaintyError, match=r"uncertainty.yaml: parameters.chassis.cogHeight.absolute: "
                                                       r"-0.02, expected a finite number > 0"):
        declared_uncertainty(tmp_path, {"chassis.cogHeight": 0.9})
    assert declared_uncertainty(tmp_path / "none", {"chassis.cogHeight": 0.9}) == {}


def test_scalar_indices_are_signed_vectors_and_the_linearised_fitness_keeps_their_kink():
    objective = Objective.from_mapping({**OBJECTIVE_BASE, "weights": {"step_steer": {"ay_gain": 1.0,
                                                                                      "ay_trace": 1.0}}})
    curve = np.linspace(0.0, 1.0, 20)
    results = [IndexResult("ay_gain", "step_steer", 4.0, curve, curve, curve, 0.96, 1.0),
               IndexResult("ay_trace", "step_steer", 2.0, curve, curve, curve + 0.02)]
    _, row = _score(objective.fitness({"step_steer": results}))
    assert row["signs"] == {"step_steer/ay_gain": -1.0}               # a trace index has no sign
    assert residual_vector(results[0]).tolist() == [-4.0]
    trace = residual_vector(results[1])
    assert np.linalg.norm(trace) == pytest.approx(2.0) and np.all(trace < 0)
    # a scalar residual d - 0.03 crosses its zero between the probes at -+0.05: the fitness c |rho| is a V there
    u, points = np.array([0.5]), probe_points(np.array([0.5]))
    entries = [{"residuals": {"x": [float(p[0] - 0.5 - 0.03)]}} for p in points]
    model = linearise(points, entries, Scoring({"x": 1.0}, 5.0, 2.0))
    assert model(np.array([[-0.2], [0.03], [0.1]])) == pytest.approx([0.23, 0.0, 0.07])


def _one_curve_sees_b(a, b):
    """b enters one curve of six, linearly: its posterior is far from Gaussian (a sum of norms)."""
    return [a * np.sin((k + 1) * TIME) + 0.3 * a * TIME + (4.0 * b * np.cos(0.5 * TIME) if k == 0 else 0.0)
            for k in range(6)]


def test_intervals_agree_with_the_posterior_where_one_index_sees_a_parameter(tmp_path):
    """Where few indices see a parameter, the posterior exp(-f / 2 s^2) of a sum of norms has heavy tails that
    no quadratic model of f reproduces (the former curvature rule: posterior/Gauss-Newton 0.45 for b, 0.58 for a)."""
    twin = Twin(TRUTH, curves=_one_curve_sees_b)
    local = analyse(twin, BOUNDS, _optimum(twin), SCORING, record=tmp_path / "probe.jsonl")
    posterior = sample_posterior(twin, BOUNDS, local.optimum, local.residual_variance, walkers=16, steps=600,
                                 progress=False)
    for name in BOUNDS:
        low, high = posterior.intervals[name]
        assert (high - low) / 2 == pytest.approx(local.half_width(name), rel=0.2), name
