"""Manoeuvre scenarios: shipped files, driver-input signals, speed controller, errors (pybridge.simulate.scenarios)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import yaml

from pybridge.simulate.scenarios import (
    OUTPUT_CHANNELS,
    ScenarioError,
    SpeedController,
    list_scenarios,
    load_scenario,
)

G = 9.80665
KMH = 1 / 3.6
DEG = math.pi / 180
SHIPPED = {
    "ramp_steer": 80, "step_steer": 100, "sine_sweep": 80, "acceleration": 25, "braking": 100,
    "slalom": 60, "double_lane_change": 80, "random_steer": 80,
    "four_post_heave": None, "four_post_pitch": None, "corner_force_sweep": None,
}


def resolve_any(name, argument):
    return {"ramp_steer_at_ay": 50 * DEG, "corner_weight": 7200.0}[name]


def write_variant(tmp_path, name, change):
    """Copy a shipped scenario to tmp_path after change(raw dict); return its path."""
    raw = yaml.safe_load(load_scenario(name).path.read_text())
    change(raw)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def zero_crossings(t, x):
    i = np.nonzero(np.signbit(x[1:]) != np.signbit(x[:-1]))[0]
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def half_cycle_peaks(t, x):
    """(time of the peak, max |x|) between consecutive zero crossings of x."""
    i = np.nonzero(np.signbit(x[1:]) != np.signbit(x[:-1]))[0]
    peaks = [a + 1 + np.argmax(np.abs(x[a + 1:b + 1])) for a, b in zip(i[:-1], i[1:])]
    return np.column_stack([t[peaks], np.abs(x[peaks])])


# ---------------------------------------------------------------- shipped files

def test_every_shipped_scenario_loads_and_evaluates():
    assert {p.stem for p in list_scenarios()} == set(SHIPPED)
    for path in list_scenarios():
        s = load_scenario(path)
        assert s.name == path.stem and len(s.description) > 80
        assert s.sample_rate >= 100 and s.duration > 0
        assert set(s.outputs) <= set(OUTPUT_CHANNELS)
        speed = SHIPPED[s.name]
        assert (s.initial_speed is None) if speed is None else s.initial_speed == pytest.approx(speed * KMH)
        t = s.time()
        assert t[0] == 0 and t[-1] == pytest.approx(s.duration)
        for name in s.inputs:
            values = s.signal(name, resolve_any)(t)
            assert values.shape == t.shape and np.all(np.isfinite(values)), (s.name, name)


def test_load_by_name_and_speed_control_blocks():
    assert load_scenario("ramp_steer").path.name == "ramp_steer.yaml"
    held = [s for s in map(load_scenario, list_scenarios()) if s.speed_control]
    assert {s.name for s in held} == {"ramp_steer", "step_steer", "sine_sweep", "slalom",
                                      "double_lane_change", "random_steer"}
    for s in held:
        assert s.speed_control.target == s.initial_speed and "throttle" not in s.inputs
    with pytest.raises(ScenarioError, match="braking.yaml: speed_control: not given"):
        load_scenario("braking").speed_controller()


def test_ramp_steer_rate_and_limit():
    s = load_scenario("ramp_steer")
    steer = s.signal("steering_wheel_angle")
    t = np.array([0.0, 1.0, 2.0, 11.0, 54.0, 55.0, 60.0])
    assert steer(t) == pytest.approx(np.array([0, 0, 5, 50, 265, 270, 270]) * DEG)
    assert s.end == {"ay_above": pytest.approx(0.6 * G)}
    assert not s.end_reached(30.0, {"ay": 0.59 * G})
    assert s.end_reached(30.0, {"ay": -0.61 * G}) and s.end_reached(55.0, {"ay": 0.0})


def test_step_steer_iso_rise_rate_and_amplitude_from_callback():
    s = load_scenario("step_steer")
    calls = []

    def resolve(name, argument):
        calls.append((name, argument))
        return 42 * DEG
    steer = s.signal("steering_wheel_angle", resolve)
    assert calls == [("ramp_steer_at_ay", pytest.approx(0.4 * G))]
    t = np.arange(0, 6, 1e-4)
    delta = steer(t)
    assert delta[t < 1].max() == 0 and delta[-1] == pytest.approx(42 * DEG)
    assert np.gradient(delta, t).max() == pytest.approx(500 * DEG, rel=1e-3)
    rise = t[delta >= 42 * DEG * 0.999][0] - 1.0
    assert rise == pytest.approx(42 / 500, abs=2e-4)
    assert s.initial_speed == pytest.approx(100 * KMH)
    with pytest.raises(ScenarioError, match=r"step_steer.yaml: inputs.steering_wheel_angle.amplitude: "
                                            r"needs the reference 'ramp_steer_at_ay'"):
        s.signal("steering_wheel_angle")


def test_sine_sweep_frequency_at_start_and_end():
    s = load_scenario("sine_sweep")
    t = np.arange(0, s.duration, 1e-3)
    crossings = zero_crossings(t, s.signal("steering_wheel_angle")(t))
    crossings = crossings[(crossings > 1.0 + 1e-6) & (crossings < 41.0 - 1e-6)]
    f_first = 0.5 / (crossings[0] - 1.0)  # the sweep starts at phase 0 at t = 1 s
    f_last = 0.5 / (crossings[-1] - crossings[-2])
    law = lambda tau: 0.1 * 30 ** (tau / 40)  # noqa: E731  (log sweep 0.1 -> 3 Hz in 40 s)
    assert law(0) <= f_first <= law(crossings[0] - 1.0)
    assert law(crossings[-2] - 1.0) <= f_last <= law(40)
    assert f_first == pytest.approx(0.1, rel=0.25) and f_last == pytest.approx(3.0, rel=0.03)
    # phase law: the n-th zero crossing of a log sweep at 2 pi f0 T (r^(tau/T) - 1)/ln r = n pi
    n = np.arange(1, crossings.size + 1)
    expected = 1.0 + 40 / math.log(30) * np.log1p(n * math.log(30) / (2 * 0.1 * 40))
    assert crossings == pytest.approx(expected, abs=2e-3)
    amplitude = np.abs(s.signal("steering_wheel_angle")(t[(t > 2) & (t < 40)])).max()
    assert amplitude == pytest.approx(25 * DEG, rel=1e-3)


def test_linear_chirp_phase_law(tmp_path):
    def change(raw):
        raw["inputs"]["steering_wheel_angle"].update(law="linear", fade={"value": 0, "unit": "s"})
    s = load_scenario(write_variant(tmp_path, "sine_sweep", change))
    t = np.arange(0, s.duration, 1e-3)
    crossings = zero_crossings(t, s.signal("steering_wheel_angle")(t))
    crossings = crossings[(crossings > 1.0 + 1e-6) & (crossings < 41.0 - 1e-6)]
    rate = (3 - 0.1) / 40  # n-th crossing: 2 pi (f0 tau + rate tau^2 / 2) = n pi
    n = np.arange(1, crossings.size + 1)
    expected = 1.0 + (-0.1 + np.sqrt(0.01 + rate * n)) / rate
    assert crossings == pytest.approx(expected, abs=2e-3)
    assert 0.5 / (crossings[1] - crossings[0]) == pytest.approx(0.1 + rate * (crossings[0] + crossings[1] - 2) / 2,
                                                                rel=0.02)


@pytest.mark.parametrize("name", ["four_post_heave", "four_post_pitch"])
def test_four_post_constant_velocity_amplitude(name):
    s = load_scenario(name)
    t = np.arange(0, s.duration, 1e-4)
    posts = {p: s.signal(p)(t) for p in ("post_fl", "post_fr", "post_rl", "post_rr")}
    sign = -1 if name == "four_post_pitch" else 1
    assert np.array_equal(posts["post_fr"], posts["post_fl"]) and np.array_equal(posts["post_rr"], posts["post_rl"])
    assert posts["post_rl"] == pytest.approx(sign * posts["post_fl"], abs=1e-12)
    z = posts["post_fl"]
    v = np.gradient(z, t)
    peaks = half_cycle_peaks(t, v)
    sweep = peaks[(peaks[:, 0] > 4.0) & (peaks[:, 0] < 36.0)]
    assert len(sweep) > 100
    assert np.all(np.abs(sweep[:, 1] / 0.030 - 1) < 0.02)
    assert np.abs(v).max() < 0.030 * 1.02 and np.abs(z).max() < 0.012
    assert z[0] == 0 and abs(v[0]) < 1e-6  # smooth start from rest
    displacement = half_cycle_peaks(t, z)
    displacement = displacement[(displacement[:, 0] > 4.0) & (displacement[:, 0] < 36.0)]
    omega = 2 * math.pi * 6 / 40 * displacement[:, 0]  # linear sweep 0 -> 6 Hz in 40 s
    assert displacement[:, 1] == pytest.approx(0.030 / omega, rel=0.02)  # displacement amplitude v/omega


def test_random_steer_reproducible_band_limited_rms(tmp_path):
    s = load_scenario("random_steer")
    t = s.time()
    first = s.signal("steering_wheel_angle")(t)
    assert np.array_equal(first, load_scenario("random_steer").signal("steering_wheel_angle")(t))
    interior = (t > 2.0) & (t < 28.0)
    assert np.sqrt(np.mean(first[interior] ** 2)) == pytest.approx(15 * DEG, rel=0.05)
    assert first[t <= 1.0].max() == 0 and first[t >= 29.0].max() == 0
    window = (t >= 1.0) & (t < 29.0)
    spectrum = np.abs(np.fft.rfft(first[window])) ** 2
    frequencies = np.fft.rfftfreq(window.sum(), 1 / s.sample_rate)
    assert spectrum[frequencies > 2.2].sum() < 0.01 * spectrum.sum()

    def reseed(raw):
        raw["inputs"]["steering_wheel_angle"]["seed"] = 7
    other = load_scenario(write_variant(tmp_path, "random_steer", reseed)).signal("steering_wheel_angle")(t)
    assert not np.allclose(other, first)
    assert np.sqrt(np.mean(other[interior] ** 2)) == pytest.approx(15 * DEG, rel=0.05)


def test_other_shipped_inputs():
    slalom = load_scenario("slalom").signal("steering_wheel_angle")
    assert slalom(np.array([0.5, 1.5, 2.5, 10.5, 11.5])) == pytest.approx(np.array([0, 60, -60, -60, 0]) * DEG)
    braking = load_scenario("braking")
    pedal = braking.signal("brake")(np.array([0.5, 1.1, 2.0, 7.0]))
    assert pedal == pytest.approx([0.0, 0.15, 0.2, 0.2])  # 150 %/s from 1 s, limited to 20 %
    assert braking.end_reached(3.0, {"speed": 9.9 * KMH}) and not braking.end_reached(3.0, {"speed": 11 * KMH})
    throttle = load_scenario("acceleration").signal("throttle")(np.array([0.4, 0.6, 0.7, 15.0]))
    assert throttle == pytest.approx([0.0, 0.5, 1.0, 1.0])
    lane = load_scenario("double_lane_change").signal("steering_wheel_angle")
    t = np.arange(0, 10, 0.01)
    assert lane(t).max() == pytest.approx(65 * DEG) and lane(t).min() == pytest.approx(-65 * DEG)
    assert lane(np.array([2.55, 3.0, 5.85])) == pytest.approx(np.array([65, 46 * 0.1 / 0.275, -65]) * DEG)
    force = load_scenario("corner_force_sweep").signal("corner_force", lambda name, arg: 7200.0)(t)
    assert force[0] == 7200.0 and force.max() <= 8200.0 + 1e-9 and force.min() >= 6200.0 - 1e-9


# ---------------------------------------------------------------- speed controller

def simulate_van(controller, grade, duration=80.0, h=0.01):
    """m dv/dt = F(throttle) - brake force - drag - grade force for a 3 t van; returns (t, v)."""
    mass, speed = 3000.0, controller.target
    times = np.arange(0, duration, h)
    speeds = np.empty_like(times)
    for k, t in enumerate(times):
        throttle, brake = controller.update(t, speed, h)
        assert 0 <= throttle <= 1 and 0 <= brake <= 1 and throttle * brake == 0
        force = 3300 * throttle - 42000 * brake - 300 - 0.9 * speed ** 2 - mass * G * grade(t)
        speed += h * force / mass
        speeds[k] = speed
    return times, speeds


def test_speed_controller_holds_speed_against_grades():
    controller = load_scenario("ramp_steer").speed_controller()
    assert controller.target == pytest.approx(80 * KMH)
    grade = lambda t: 0.0 if t < 30 else 0.03 if t < 55 else -0.08  # noqa: E731
    t, v = simulate_van(controller, grade)
    for start, end in ((20, 30), (45, 55), (70, 80)):
        window = (t >= start) & (t < end)
        assert np.abs(v[window] - 80 * KMH).max() < 0.5 * KMH, (start, end)
    assert abs(v - 80 * KMH).max() < 5 * KMH


def test_speed_control_gains_and_target_from_file(tmp_path):
    def change(raw):
        raw["speed_control"] = {"target": {"value": 50, "unit": "km/h"}, "kp": {"value": 0.1, "unit": "h/km"},
                                "ki": {"value": 0.05, "unit": "1/m"}, "brake_gain": {"value": 50, "unit": "%"}}
    controller = load_scenario(write_variant(tmp_path, "slalom", change)).speed_controller()
    assert (controller.target, controller.kp, controller.ki, controller.brake_gain) == pytest.approx(
        (50 * KMH, 0.36, 0.05, 0.5))


def test_speed_controller_anti_windup_and_feedforward():
    controller = SpeedController(target=20.0)
    for k in range(10000):  # 100 s far below the target: saturated
        assert controller.update(0.01 * k, 15.0, 0.01) == (1.0, 0.0)
    assert controller.ki * controller.integral <= 1.0
    throttle, _ = controller.update(100.0, 20.1, 0.01)
    assert throttle < 1.0
    feedforward = SpeedController(target=20.0, ki=0.0, feedforward=lambda t, target: 0.25)
    assert feedforward.update(0.0, 20.0, 0.01) == (0.25, 0.0)
    assert feedforward.update(0.0, 21.0, 0.01) == (0.0, pytest.approx(0.3 * 0.25))


# ---------------------------------------------------------------- errors

def test_unknown_key_names_file_and_path(tmp_path):
    path = write_variant(tmp_path, "ramp_steer", lambda raw: raw["inputs"]["steering_wheel_angle"].update(slope=1))
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert str(error.value).startswith(f"{path}: inputs.steering_wheel_angle.slope: unknown key (expected one of")


def test_missing_key_names_file_and_path(tmp_path):
    path = write_variant(tmp_path, "step_steer", lambda raw: raw["inputs"]["steering_wheel_angle"].pop("rate"))
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert str(error.value) == f"{path}: inputs.steering_wheel_angle.rate: missing key"
    path = write_variant(tmp_path, "braking", lambda raw: raw.pop("initial_speed"))
    with pytest.raises(ScenarioError, match=r"braking.yaml: initial_speed: missing key"):
        load_scenario(path)


def test_wrong_unit_names_file_and_path(tmp_path):
    def change(raw):
        raw["inputs"]["steering_wheel_angle"]["rate"]["unit"] = "deg/m"
    path = write_variant(tmp_path, "ramp_steer", change)
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert str(error.value) == (f"{path}: inputs.steering_wheel_angle.rate: unknown unit 'deg/m' "
                                "(expected one of deg/s, rad/s)")

    def velocity_in_deg(raw):
        raw["inputs"]["post_rl"]["velocity_amplitude"]["unit"] = "deg"
    path = write_variant(tmp_path, "four_post_pitch", velocity_in_deg)
    with pytest.raises(ScenarioError, match=r"four_post_pitch.yaml: inputs.post_rl.velocity_amplitude: unknown unit"):
        load_scenario(path)


def test_bad_signal_type_names_file_and_path(tmp_path):
    def change(raw):
        raw["inputs"]["corner_force"]["terms"][1]["type"] = "square"
    path = write_variant(tmp_path, "corner_force_sweep", change)
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert str(error.value).startswith(f"{path}: inputs.corner_force.terms[1].type: unknown signal type 'square'")


@pytest.mark.parametrize("name, change, message", [
    ("slalom", lambda raw: raw.update(sample_rate={"value": 50, "unit": "Hz"}), "sample_rate: must be at least 100 Hz"),
    ("slalom", lambda raw: raw["inputs"].update(throttle={"type": "constant", "value": {"value": 0, "unit": "%"}}),
     "inputs.throttle: not allowed with speed_control"),
    ("slalom", lambda raw: raw["outputs"].append("post_fl"), "outputs[7]: unknown channel 'post_fl'"),
    ("slalom", lambda raw: raw["inputs"]["steering_wheel_angle"].update(periods=2.3),
     "inputs.steering_wheel_angle.periods: must be a positive multiple of 0.5"),
    ("slalom", lambda raw: raw.update(format="vehiclertm-scenario 2"), "format: expected 'vehiclertm-scenario 1'"),
    ("four_post_heave", lambda raw: raw.update(initial_speed={"value": 0, "unit": "km/h"}),
     "initial_speed: unknown key"),
    ("step_steer", lambda raw: raw["inputs"]["steering_wheel_angle"]["amplitude"].update({"from": "ramp_steer"}),
     "inputs.steering_wheel_angle.amplitude.from: unknown reference 'ramp_steer'"),
    ("braking", lambda raw: raw["inputs"]["brake"]["limit"].update(value=-40), "inputs.brake.limit: must be non-zero"),
    ("double_lane_change", lambda raw: raw["inputs"]["steering_wheel_angle"]["time"]["values"].reverse(),
     "inputs.steering_wheel_angle.time: must increase strictly"),
    ("sine_sweep", lambda raw: raw["inputs"]["steering_wheel_angle"].update(f0={"value": 0, "unit": "Hz"}),
     "inputs.steering_wheel_angle.law: log needs f0, f1 > 0"),
])
def test_other_errors_name_file_and_path(tmp_path, name, change, message):
    path = write_variant(tmp_path, name, change)
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert str(error.value).startswith(f"{path}: {message}")


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(ScenarioError, match="missing.yaml: cannot read"):
        load_scenario(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: vehiclertm-scenario 1\ninputs: [unclosed\n")
    with pytest.raises(ScenarioError, match=r"bad.yaml:\d+:\d+: not valid YAML"):
        load_scenario(bad)
