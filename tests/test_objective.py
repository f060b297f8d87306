"""pybridge.evaluate.objective: Eq. 9-10, failed simulations, and strict validation of the objective YAML."""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest
import yaml

from pybridge.evaluate.kpi import IndexResult, index_functions
from pybridge.evaluate.objective import DEFAULT_FILE, FORMAT, Objective, ObjectiveConfigError, corrected_error

TP, PF = 5.0, 2.0


def config(weights, tolerance=TP, penalty=PF):
    return {"format": FORMAT, "tolerance_percent": tolerance, "penalty_factor": penalty,
            "failure": {"value": 1.0e6, "min_duration_fraction": 0.5}, "weights": weights}


def braking_trace(speed_offset=0.0):
    t = np.arange(0.0, 6.0, 0.01)
    ax = -6.0 * np.clip(t - 1.0, 0.0, 1.0)
    fz = 400.0 * np.clip(t - 1.0, 0.0, 1.0)
    return pd.DataFrame({"time": t, "speed": 27.8 + np.cumsum(ax) * 0.01 + speed_offset, "ax": ax,
                         "pitch": -0.002 * ax, "fz_fl": 7000 + fz, "fz_fr": 7000 + fz,
                         "fz_rl": 7500 - fz, "fz_rr": 7500 - fz})


def step_trace():
    t = np.arange(0.0, 5.0, 0.005)
    steer = 0.1 * np.clip((t - 1.0) / 0.04, 0.0, 1.0)
    unit = np.where(t > 1.02, 1 - np.exp(-(t - 1.02) / 0.15) * np.cos(6 * (t - 1.02)), 0.0)
    return pd.DataFrame({"time": t, "steering_wheel_angle": steer, "yaw_rate": 0.02 * unit, "ay": 0.5 * unit})


def result(manoeuvre, name, value):
    return IndexResult(name, manoeuvre, value, np.zeros(1), np.zeros(1), np.zeros(1))


def test_fitness_is_zero_when_candidate_equals_reference():
    references = {"acceleration": braking_trace(), "braking": braking_trace(), "step_steer": step_trace()}
    weights = {m: dict.fromkeys(index_functions[m], 1.0) for m in references}
    objective = Objective.from_mapping(config(weights), references=references)
    fit = objective.fitness({m: trace.copy() for m, trace in references.items()})
    assert fit.value == 0.0 and not fit.failed
    assert len(fit.per_index) == sum(len(w) for w in weights.values())


def test_eq10_penalty_kicks_in_exactly_above_tp():
    assert corrected_error(TP, TP, PF) == TP
    below, above = np.nextafter(TP, 0.0), np.nextafter(TP, 10.0)
    assert corrected_error(below, TP, PF) == below
    assert corrected_error(above, TP, PF) == above + PF * (above - TP) > above
    assert corrected_error(8.0, TP, PF) == 8.0 + PF * 3.0


@pytest.mark.parametrize("error", [TP - 1e-6, TP + 1e-6, 7.5])
def test_eq10_on_traces_around_tp(error):
    """Speed offset c: e = 100 c / range(speed); alone in Eq. 9 (N = M = 1), f = e'."""
    reference = braking_trace()
    offset = error / 100 * np.ptp(reference["speed"])
    objective = Objective.from_mapping(config({"acceleration": {"speed": 1.0}}),
                                       references={"acceleration": reference})
    fit = objective.fitness({"acceleration": braking_trace(speed_offset=offset)})
    e = fit.per_index[("acceleration", "speed")].error
    assert e == pytest.approx(error, abs=1e-9)
    assert fit.value == pytest.approx(e + PF * (e - TP) if e > TP else e, rel=1e-12)
    assert (fit.value > e) == (error > TP)


def test_eq9_weighted_mean_over_indices_and_manoeuvres():
    weights = {"acceleration": {"speed": 2.0, "pitch": 1.0, "fz_front": 0.0},
               "braking": {"deceleration": 1.0, "pitch": 0.5}}
    objective = Objective.from_mapping(config(weights))
    errors = {("acceleration", "speed"): 3.0, ("acceleration", "pitch"): 9.0, ("acceleration", "fz_front"): 50.0,
              ("braking", "deceleration"): 4.0, ("braking", "pitch"): 6.0}
    results = {m: [result(m, n, e) for (mm, n), e in errors.items() if mm == m] for m in weights}
    fit = objective.fitness(results)
    # N = 3 index names with a positive weight (speed, pitch, deceleration), M = 2 manoeuvres
    terms = 2.0 * 3.0 + 1.0 * (9.0 + PF * 4.0) + 1.0 * 4.0 + 0.5 * (6.0 + PF * 1.0)
    assert fit.value == pytest.approx(terms / (3 * 2), rel=1e-12)
    assert fit.per_index[("acceleration", "fz_front")].corrected == 50.0 + PF * 45.0


@pytest.mark.parametrize("outcome, reason", [
    (RuntimeError("solver diverged at t = 3.2 s"), "RuntimeError: solver diverged"),
    (None, "no simulation result"),
    ("nan", "non-finite value"),
    ("short", "trace too short"),
])
def test_failed_simulation_costs_the_penalty_and_logs(outcome, reason, caplog):
    reference = braking_trace()
    if outcome == "nan":
        outcome = reference.assign(pitch=np.where(reference["time"] > 3.0, np.nan, reference["pitch"]))
    elif outcome == "short":
        outcome = reference.iloc[:200]
    objective = Objective.from_mapping(config({"braking": {"pitch": 1.0}, "acceleration": {"speed": 1.0}}),
                                       references={"braking": reference, "acceleration": reference})
    with caplog.at_level(logging.WARNING, logger="pybridge.evaluate.objective"):
        fit = objective.fitness({"braking": outcome, "acceleration": reference})
    assert fit.value == 1.0e6
    assert list(fit.failed) == ["braking"] and reason in fit.failed["braking"]
    assert ("acceleration", "speed") in fit.per_index
    assert any("braking" in r.getMessage() and reason in r.getMessage() for r in caplog.records)


def test_trace_without_reference_is_a_configuration_error():
    objective = Objective.from_mapping(config({"braking": {"pitch": 1.0}}), source="obj.yaml")
    with pytest.raises(ObjectiveConfigError, match=r"obj.yaml: no reference traces for \['braking'\]"):
        objective.fitness({"braking": braking_trace()})


def test_shipped_objective_covers_tables_1_and_2():
    objective = Objective.from_yaml()
    assert objective.tolerance_percent == 5.0 and objective.penalty_factor >= 0
    assert set(objective.weights) == {"ramp_steer", "sine_sweep", "step_steer", "acceleration", "braking"}
    for manoeuvre, weights in objective.weights.items():
        assert set(weights) == set(index_functions[manoeuvre])


GOOD = config({"braking": {"pitch": 1.0}})


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(extra=1), r"top level: unknown key\(s\) \['extra'\]"),
    (lambda d: d.pop("penalty_factor"), r"top level: missing key\(s\) \['penalty_factor'\]"),
    (lambda d: d.update(format="objective 2"), r"format: 'objective 2', expected 'vehiclertm-objective 1'"),
    (lambda d: d.update(tolerance_percent=-1), r"tolerance_percent: -1, expected a number in \[0.0, inf\]"),
    (lambda d: d.update(penalty_factor="high"), r"penalty_factor: 'high', expected a finite number"),
    (lambda d: d.update(penalty_factor=True), r"penalty_factor: True, expected a finite number"),
    (lambda d: d["failure"].update(value=0), r"failure.value: 0, expected a number in \(0.0, inf\]"),
    (lambda d: d["failure"].update(min_duration_fraction=1.5), r"failure.min_duration_fraction: 1.5"),
    (lambda d: d["failure"].pop("value"), r"failure: missing key\(s\) \['value'\]"),
    (lambda d: d.update(weights={"drift": {"pitch": 1}}), r"weights.drift: unknown manoeuvre"),
    (lambda d: d.update(weights={"braking": {"roll": 1}}), r"weights.braking.roll: unknown index"),
    (lambda d: d.update(weights={"braking": {"pitch": -1}}), r"weights.braking.pitch: -1, expected a number"),
    (lambda d: d.update(weights={"braking": {"pitch": 0}}), r"weights: expected at least one positive weight"),
    (lambda d: d.update(weights={"braking": {}}), r"weights.braking: empty"),
    (lambda d: d.update(weights=[1, 2]), r"weights: expected a mapping, got list"),
])
def test_bad_objective_yaml_names_file_and_key(tmp_path, change, message):
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    change(data)
    path = tmp_path / "objective.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ObjectiveConfigError, match=f"^{path}: {message}"):
        Objective.from_yaml(path)


def test_unreadable_objective_files(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("format: vehiclertm-objective 1\nweights: {braking: [\n")
    with pytest.raises(ObjectiveConfigError, match=rf"^{broken}:3:1: not valid YAML"):
        Objective.from_yaml(broken)
    with pytest.raises(ObjectiveConfigError, match=r"missing.yaml: cannot read"):
        Objective.from_yaml(tmp_path / "missing.yaml")
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("42\n")
    with pytest.raises(ObjectiveConfigError, match=r"top level: expected a mapping, got int"):
        Objective.from_yaml(scalar)
    assert Objective.from_yaml(DEFAULT_FILE).source == str(DEFAULT_FILE)
