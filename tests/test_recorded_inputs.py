"""Scenarios driven by the recorded inputs of a reference trace (``{from_reference: true}``)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import REPO
from pybridge.convert import convert_mbm
from pybridge.identify.problem import VehicleProblem
from pybridge.simulate.manoeuvres import run_scenario
from pybridge.simulate.recorded import input_differences, recorded_inputs
from pybridge.report.inputs import recorded_input_figures
from pybridge.simulate.scenarios import ScenarioError, load_scenario
from pybridge.traces import read_trace

SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"


def _scenario(tmp_path, steering={"from_reference": True}, target="initial"):
    raw = {"format": "vehiclertm-scenario 1", "name": "replay", "description": "recorded steering, 3 s",
           "kind": "full_vehicle", "initial_speed": {"value": 80, "unit": "km/h"},
           "duration": {"value": 3, "unit": "s"}, "sample_rate": {"value": 100, "unit": "Hz"},
           "inputs": {"steering_wheel_angle": steering}, "speed_control": {"target": target},
           "outputs": ["time", "speed", "ay", "yaw_rate", "steering_wheel_angle"]}
    path = tmp_path / "replay.yaml"
    path.write_text(yaml.safe_dump(raw))
    return load_scenario(path)


def _recording(amplitude=0.6):
    """What a driver applied: a growing 0.7 Hz weave, and a speed falling from 80 to 70 km/h."""
    t = 0.01 * np.arange(301)  # the RTM's sample times (k times the 10 ms period)
    return pd.DataFrame({"time": t, "steering_wheel_angle": amplitude * np.minimum(t, 1) * np.sin(4.4 * t),
                         "speed": np.interp(t, [0, 0.5, 2.5, 3], [80 / 3.6, 80 / 3.6, 70 / 3.6, 70 / 3.6])})


def test_recorded_steering_is_replayed_exactly(tmp_path, session):
    scenario, recording = _scenario(tmp_path), _recording()
    replayed = recorded_inputs(scenario, recording)
    assert replayed.recorded == ("steering_wheel_angle",)
    native = run_scenario(session, replayed, runner="native")
    assert np.array_equal(native["time"], recording["time"])
    assert np.array_equal(native["steering_wheel_angle"], recording["steering_wheel_angle"])
    fmpy = run_scenario(session, replayed, runner="fmpy")  # the same table through the Python loop
    np.testing.assert_allclose(native["yaw_rate"], fmpy["yaw_rate"], rtol=0, atol=1e-12)
    half = run_scenario(session, recorded_inputs(scenario, _recording(0.3)), runner="native")
    assert np.max(np.abs(native["yaw_rate"])) > 1.8 * np.max(np.abs(half["yaw_rate"])) > 0.02


def test_recorded_speed_profile(tmp_path, session):
    scenario = _scenario(tmp_path, target={"from_reference": True})
    replayed = recorded_inputs(scenario, _recording(0.0))
    assert replayed.recorded == ("steering_wheel_angle", "speed")
    native = run_scenario(session, replayed, runner="native")
    assert abs(native["speed"].iloc[-1] - 70 / 3.6) < 0.4          # follows the recorded profile
    fmpy = run_scenario(session, replayed, runner="fmpy")
    np.testing.assert_allclose(native["speed"], fmpy["speed"], rtol=0, atol=1e-12)
    held = run_scenario(session, recorded_inputs(_scenario(tmp_path), _recording(0.0)), runner="native")
    assert abs(held["speed"].iloc[-1] - 80 / 3.6) < 0.2            # the nominal target holds 80 km/h


def test_without_the_recording(tmp_path, session):
    with pytest.raises(ScenarioError, match=r"replay.yaml: inputs.steering_wheel_angle: from_reference: .*not given"):
        run_scenario(session, _scenario(tmp_path))
    with pytest.raises(ScenarioError, match=r"speed_control.target: from_reference: .*not given"):
        _scenario(tmp_path, target={"from_reference": True}).speed_controller()
    with pytest.raises(ScenarioError, match=r"inputs.steering_wheel_angle: from the reference, but the reference "
                                            r"trace has no channel 'steering_wheel_angle' \(it has speed\)"):
        recorded_inputs(_scenario(tmp_path), _recording().drop(columns="steering_wheel_angle"))


@pytest.mark.parametrize("steering, message", [
    ({"from_reference": "yes"}, r"inputs.steering_wheel_angle.from_reference: expected true, got 'yes'"),
    ({"from_reference": True, "gain": 2}, r"inputs.steering_wheel_angle.gain: unknown key"),
])
def test_bad_from_reference(tmp_path, steering, message):
    with pytest.raises(ScenarioError, match=message):
        _scenario(tmp_path, steering=steering)


def test_nominal_inputs_replaced_where_the_reference_carries_them(tmp_path):
    nominal = _scenario(tmp_path, steering={"type": "constant", "value": {"value": 10, "unit": "deg"}})
    assert recorded_inputs(nominal, _recording(), carried=False) is nominal
    replayed = recorded_inputs(nominal, _recording())
    assert replayed.recorded == ("steering_wheel_angle",) and replayed.duration == 3.0
    difference = input_differences(nominal, replayed)["steering_wheel_angle"]
    assert difference["max"] == pytest.approx(0.6 + np.radians(10), abs=0.01)
    short = recorded_inputs(nominal, _recording().iloc[:151])
    assert short.duration == 1.5                                  # no recorded input beyond the recording


def test_identification_runs_on_the_recorded_inputs(rtm_fmu):
    params = convert_mbm(SHIPPED / "mbm", fmu=rtm_fmu)
    recorded = VehicleProblem(params, SHIPPED, rtm_fmu)
    nominal = VehicleProblem(params, SHIPPED, rtm_fmu, inputs="nominal")
    assert recorded._scenario("step_steer", recorded.objective).recorded == ("steering_wheel_angle",)
    assert nominal._scenario("step_steer", nominal.objective).recorded == ()
    assert recorded._scenario("braking", recorded.objective).recorded == ("steering_wheel_angle", "throttle", "brake")


def test_report_figure_where_the_inputs_differ(tmp_path):
    reference = read_trace(SHIPPED / "traces" / "step_steer.csv")[0]
    comparison = {"reference": str(SHIPPED), "manoeuvres": {
        "step_steer": {"inputs": {"steering_wheel_angle": {"source": "recorded", "max_difference": 0.0107}}},
        "slalom": {"inputs": {"steering_wheel_angle": {"source": "recorded", "max_difference": 4.7e-10}}},
        "braking": {}}}
    figures = recorded_input_figures(comparison, {"step_steer": reference}, tmp_path)
    assert [f.path.name for f in figures] == ["recorded_inputs.png"]
    assert figures[0].path.stat().st_size > 10_000 and "step_steer steering_wheel_angle 0.0107" in figures[0].caption
    assert "slalom" not in figures[0].caption
    del comparison["manoeuvres"]["step_steer"]
    assert recorded_input_figures(comparison, {}, tmp_path) == []


def test_cli_simulate_replays_a_trace(tmp_path, rtm_fmu, capsys):
    from pybridge.cli import main
    from pybridge.traces import write_trace

    scenario = _scenario(tmp_path).path
    out = tmp_path / "rtm.csv"
    assert main(["simulate", "--scenario", str(scenario), "--fmu", str(rtm_fmu), "-o", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "inputs.steering_wheel_angle: from_reference" in error
    recording = write_trace(_recording(), tmp_path / "recording.csv", {"manoeuvre": "replay", "source": "test"})
    assert main(["simulate", "--scenario", str(scenario), "--fmu", str(rtm_fmu), "-o", str(out),
                 "--replay", str(recording)]) == 0
    trace = read_trace(out)[0]
    np.testing.assert_allclose(trace["steering_wheel_angle"], _recording()["steering_wheel_angle"], rtol=0, atol=1e-10)
