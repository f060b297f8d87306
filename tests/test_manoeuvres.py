"""Full-vehicle scenarios on the native RTM14DoF FMU (pybridge.simulate.manoeuvres): PI speed hold, ISO signs,
end conditions, reuse of one session, the worker pool, errors, the manifest reference and the CLI."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO

from pybridge.cli import main
from pybridge.simulate.manoeuvres import ManifestReferences, ManoeuvreError, ScenarioRunner, run_scenario
from pybridge.parameters import ParameterSet
from pybridge.simulate.scenarios import OUTPUT_CHANNELS, ScenarioError, load_scenario
from pybridge.traces import read_trace

MODEL = "VehicleRTM.Vehicles.RTM14DoF"
G = 9.80665
KMH = 1 / 3.6
DATASET = REPO / "scenarios" / "mbm" / "lcv35"


@pytest.fixture(scope="module")
def references() -> ManifestReferences:
    return ManifestReferences(DATASET)


def straight_scenario(tmp_path, target_kmh: float | None = None):
    """80 km/h straight ahead for 12 s, the PI holding the initial speed (or another target)."""
    raw = {"format": "vehiclertm-scenario 1", "name": "straight", "description": "straight run under the PI",
           "kind": "full_vehicle", "initial_speed": {"value": 80, "unit": "km/h"},
           "duration": {"value": 12, "unit": "s"}, "sample_rate": {"value": 100, "unit": "Hz"},
           "inputs": {"steering_wheel_angle": {"type": "constant", "value": {"value": 0, "unit": "deg"}}},
           "speed_control": {"target": "initial" if target_kmh is None else {"value": target_kmh, "unit": "km/h"}},
           "outputs": ["time", "speed", "throttle", "brake"]}
    path = tmp_path / f"straight_{target_kmh}.yaml"
    path.write_text(yaml.safe_dump(raw))
    return load_scenario(path)


def test_the_pi_holds_a_straight_run_within_half_a_km_h(session, tmp_path):
    hold = run_scenario(session, straight_scenario(tmp_path))
    assert len(hold) == 1201 and hold["time"].iloc[-1] == pytest.approx(12.0)
    assert hold.attrs["units"] == {c: OUTPUT_CHANNELS[c][0] for c in hold.columns}
    assert (hold["speed"] - 80 * KMH).abs().max() < 0.5 * KMH
    assert hold["throttle"].iloc[100:].min() > 0.1 and hold["brake"].max() == 0.0   # it pulls against drag
    # the loop is closed around the FMU's speed: a higher target is reached and held
    faster = run_scenario(session, straight_scenario(tmp_path, target_kmh=86))
    assert faster["throttle"].iloc[1:50].max() == 1.0
    assert (faster["speed"].iloc[-100:] - 86 * KMH).abs().max() < 0.5 * KMH


def test_the_left_ramp_steer_has_iso_signs_and_ends_at_its_lateral_acceleration(session):
    scenario = load_scenario("ramp_steer")
    trace = run_scenario(session, scenario)
    limit = scenario.end["ay_above"]
    assert trace.attrs["stopped_at"] == pytest.approx(trace["time"].iloc[-1])
    assert 5.0 < trace["time"].iloc[-1] < scenario.duration
    assert abs(trace["ay"].iloc[-1]) > limit >= trace["ay"].iloc[:-1].abs().max()
    turning = trace[trace["time"] > 5.0]
    assert (turning["steering_wheel_angle"] > 0).all()                  # left
    for channel in ("ay", "yaw_rate", "roll", "load_transfer_front", "load_transfer_rear", "load_transfer_total"):
        assert (turning[channel] > 0).all(), channel
    assert (turning["sideslip"] < 0).all()
    assert (turning["fz_fr"] > turning["fz_fl"]).all() and (turning["fz_rr"] > turning["fz_rl"]).all()
    np.testing.assert_allclose(np.diff(trace["time"]), 0.01, atol=1e-9)


def test_the_step_steer_amplitude_is_resolved_from_the_shipped_manifest(session, references):
    manifest = yaml.safe_load((DATASET / "manifest.yaml").read_text())["references"]["ramp_steer_at_ay"]
    scenario = load_scenario("step_steer")
    (needed,) = scenario.references()
    assert references(needed.name, needed.argument) == manifest["steering_wheel_angle [rad]"]
    trace = run_scenario(session, scenario, resolve=references)
    steer = trace["steering_wheel_angle"].to_numpy()
    assert steer[trace["time"] <= 1.0].max() == 0.0
    np.testing.assert_allclose(steer[trace["time"] >= 1.5], manifest["steering_wheel_angle [rad]"], rtol=1e-12)
    assert trace["ay"].iloc[-1] > 0.25 * G
    with pytest.raises(ManoeuvreError, match="made for ay"):
        references(needed.name, 0.5 * G)
    with pytest.raises(ManoeuvreError, match="references.corner_weight: not in the manifest"):
        references("corner_weight", None)
    with pytest.raises(ScenarioError, match="needs the reference 'ramp_steer_at_ay'"):
        run_scenario(session, scenario)


def test_one_reused_session_gives_identical_traces(session, references):
    first = run_scenario(session, "step_steer", resolve=references)
    heavy = ParameterSet(model=MODEL, scalars={"chassis.sprungBodies": 3000.0})
    other = run_scenario(session, "step_steer", heavy, resolve=references)
    again = run_scenario(session, "step_steer", resolve=references)
    assert not np.allclose(first["roll"], other["roll"])                 # the set mattered
    pd.testing.assert_frame_equal(again, first, check_exact=True)


def test_an_end_condition_cuts_the_same_run_short(session):
    # the FMU's default brakes (weaker than the converted van's) need about 11 s to 10 km/h
    braking = dataclasses.replace(load_scenario("braking"), duration=14.0)
    stopped = run_scenario(session, braking)
    full = run_scenario(session, dataclasses.replace(braking, end={}))
    assert full.attrs["stopped_at"] is None and len(full) == 1401
    assert stopped["speed"].iloc[-1] < braking.end["speed_below"] <= stopped["speed"].iloc[:-1].min()
    assert stopped["ax"].min() < -2.0                                    # it braked
    pd.testing.assert_frame_equal(stopped, full.iloc[:len(stopped)], check_exact=True)


def test_the_sample_period_step_matches_a_1_ms_step(session, references):
    coarse = run_scenario(session, "step_steer", resolve=references)
    fine = run_scenario(session, "step_steer", resolve=references, step=1e-3)
    assert (coarse["speed"] - fine["speed"]).abs().max() < 0.05 * KMH
    for channel in ("ay", "yaw_rate", "roll", "sideslip"):
        error = np.sqrt(np.mean((coarse[channel] - fine[channel]) ** 2)) / np.ptp(fine[channel])
        assert error < 1e-3, channel


def test_a_runner_with_two_workers_returns_the_sequential_traces(rtm_fmu, session, references):
    heavy = ParameterSet(model=MODEL, scalars={"chassis.sprungBodies": 3000.0})
    jobs = [(None, "step_steer"), (heavy, "step_steer"), (None, "braking"), (heavy, "acceleration"),
            (None, "four_post_heave")]
    with ScenarioRunner(rtm_fmu, workers=2) as runner:
        results = runner.run(jobs, resolve=references)
    assert len(results) == len(jobs)
    for (params, scenario), result in zip(jobs[:-1], results):
        pd.testing.assert_frame_equal(result, run_scenario(session, scenario, params, references), check_exact=True)
    assert isinstance(results[-1], ScenarioError) and "full-vehicle RTM only" in str(results[-1])


def test_unknown_channels_inputs_and_steps_are_refused_by_name(session):
    scenario = load_scenario("slalom")
    with pytest.raises(ScenarioError, match=r"slalom.yaml: outputs: unknown channel 'lateral_g'"):
        run_scenario(session, dataclasses.replace(scenario, outputs=("time", "lateral_g")))
    clutch = {**scenario.inputs, "clutch": scenario.inputs["steering_wheel_angle"]}
    with pytest.raises(ScenarioError, match=r"slalom.yaml: inputs.clutch: unknown input"):
        run_scenario(session, dataclasses.replace(scenario, inputs=clutch))
    with pytest.raises(ManoeuvreError, match=r"communication step 0.003 s must divide its period 0.01 s"):
        run_scenario(session, scenario, step=0.003)
    with pytest.raises(ScenarioError, match=r"corner_force_sweep.yaml: kind: corner_force"):
        run_scenario(session, "corner_force_sweep")


def test_the_simulate_command_writes_the_trace_and_a_plot(rtm_fmu, session, tmp_path, capsys):
    out = tmp_path / "rtm" / "braking.csv"
    assert main(["simulate", "--scenario", "braking", "--fmu", str(rtm_fmu), "-o", str(out),
                 "--plot", str(tmp_path / "braking.png")]) == 0
    trace, metadata = read_trace(out)
    assert metadata["manoeuvre"] == "braking" and metadata["params"] == "FMU defaults"
    expected = run_scenario(session, "braking")
    pd.testing.assert_frame_equal(trace, expected, check_exact=False, rtol=1e-9, atol=1e-12)
    assert (tmp_path / "braking.png").stat().st_size > 10_000
    assert main(["simulate", "--scenario", "no_such_test", "-o", str(out)]) == 2
    assert "no_such_test: cannot read" in capsys.readouterr().err
