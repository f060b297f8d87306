"""The reference multibody vehicle (Exudyn): statics, energy, data-file errors, shipped traces."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

pytest.importorskip("exudyn", reason="the reference vehicle runs on Exudyn, an optional extra: pip install '.[reference]'")

from conftest import REPO
from pybridge.reference.generate import sha256
from pybridge.reference.model import ReferenceVehicle
from pybridge.reference.road import dynamic_settings, run_dynamic, run_manoeuvre
from pybridge.reference.statics import leaf_offsets, solve_static, static_equilibrium
from pybridge.reference.vehicle_data import VehicleDataError, load_vehicle
from pybridge.simulate.scenarios import load_scenario
from pybridge.traces import find_trace, read_trace

SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"


@pytest.fixture(scope="module")
def data():
    return load_vehicle("lcv35")


@pytest.fixture(scope="module")
def offsets(data):
    return leaf_offsets(data)


def test_static_equilibrium_meets_the_data_file_targets(data, offsets):
    result = static_equilibrium(data, offsets)
    targets = data["targets"]
    loads = result.corner_loads
    weight = result.vehicle.total_mass() * data.gravity
    assert sum(loads.values()) == pytest.approx(weight, rel=1e-6)
    for corner, load in loads.items():
        target = targets["corner_load_front" if corner.startswith("F") else "corner_load_rear"]
        assert load == pytest.approx(target, rel=0.01), corner
    for axle in ("front", "rear"):
        assert result.ride_heights[axle] == pytest.approx(targets[f"ride_height_{axle}"], rel=0.01), axle
    # tighter than the 1 % bar: the preload pass puts the design position within a millimetre
    assert abs(result.ride_heights["front"] - targets["ride_height_front"]) < 1e-3
    assert abs(result.ride_heights["rear"] - targets["ride_height_rear"]) < 1e-3


def _free_oscillation(data, offsets, dissipation: bool, duration: float = 5.0):
    """Vehicle on vertical tyre springs, pushed down off-centre by 6 kN, released; energy history."""
    v = ReferenceVehicle(data, "kc", dissipation=dissipation, leaf_offsets=offsets, hold_chassis=False)
    kz, r0 = float(v.tir["VERTICAL_STIFFNESS"]), float(v.tir["UNLOADED_RADIUS"])
    for corner in v.corners.values():
        v.mbs.SetObjectParameter(corner.elements["pad"], "stiffness", [1e5, 1e5, kz])
        v.mbs.SetObjectParameter(corner.elements["pad"], "offset", [0.0, 0.0, r0 - corner.centre[2]])
    chassis = v.bodies["chassis"].index
    push = v.mbs.CreateForce(itemNumber=chassis, localPosition=[0.5, 0.3, 0.0], loadVector=[0.0, 0.0, 0.0])
    v.mbs.Assemble()
    solve_static(v)
    resting = v.mechanical_energy()["total"]
    v.mbs.SetLoadParameter(push, "loadVector", [0.0, 0.0, -6000.0])
    v.set_initial_state(v.state())
    solve_static(v)
    v.mbs.SetLoadParameter(push, "loadVector", [0.0, 0.0, 0.0])
    v.set_initial_state(v.state())
    history = []

    def record(mbs, t):
        history.append((t, v.mechanical_energy()["total"], float(v.position(chassis)[2])))
        return True
    v.mbs.SetPreStepUserFunction(record)
    run_dynamic(v, dynamic_settings(duration, 1e-3, spectral_radius=1.0))
    return np.array(history), resting


def test_free_oscillation_conserves_energy_without_dissipation(data, offsets):
    history, resting = _free_oscillation(data, offsets, dissipation=False)
    t, energy, heave = history.T
    oscillation = energy[t < 1].mean() - resting
    assert oscillation > 50.0  # J: a real oscillation (about +-36 mm of body heave)
    assert np.ptp(heave[t > 4]) > 0.03  # still oscillating after 4 s: nothing dissipates
    drift = energy[t > 4].mean() - energy[t < 1].mean()
    assert abs(drift) < 0.01 * oscillation, (drift, oscillation)


def test_free_oscillation_dissipates_with_dampers(data, offsets):
    history, resting = _free_oscillation(data, offsets, dissipation=True, duration=3.0)
    t, energy, heave = history.T
    assert energy[t > 2].mean() - resting < 0.1 * (energy[t < 0.2].mean() - resting)
    assert np.ptp(heave[t > 2]) < 0.3 * np.ptp(heave[t < 1])


def _write(tmp_path, text: str):
    path = tmp_path / "vehicle.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace("format: vehiclertm-mbm-vehicle 1", "format: other 2"), "format"),
    (lambda s: s.replace("\naerodynamics:", "\naero_unused:"), "missing sections ['aerodynamics']"),
    (lambda s: s.replace("front_upright:  {class: unsprung", "front_upright:  {class: wheel"), "bodies.front_upright.class"),
    (lambda s: s.replace("mass: 9.0,", "mass: -9.0,"), "bodies.front_lower_arm.mass"),
    (lambda s: s.replace("tyre:\n  file: UAZBUS_Pac02Tire.tir", "tyre:\n  file: missing.tir"), "tyre.file"),
])
def test_bad_vehicle_data_files_name_file_and_key(tmp_path, edit, message):
    text = (REPO / "pybridge" / "reference" / "lcv35.yaml").read_text()
    path = _write(tmp_path, edit(text))
    with pytest.raises(VehicleDataError) as err:
        load_vehicle(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_missing_hardpoint_is_named(tmp_path, data):
    """Named when the file is loaded (the variant's hardpoints are checked), before any model is built."""
    text = (REPO / "pybridge" / "reference" / "lcv35.yaml").read_text()
    with pytest.raises(VehicleDataError, match=r"front.hardpoints: missing hardpoints \['tie_rod_outer'\]"):
        load_vehicle(_write(tmp_path, text.replace("    tie_rod_outer:", "    tie_rod_outer_typo:")))


# --- the shipped data set ------------------------------------------------------------------
@pytest.fixture(scope="module")
def manifest():
    path = SHIPPED / "manifest.yaml"
    if not path.is_file():
        pytest.fail(f"{path} missing: run `pybridge mbm generate --vehicle lcv35 -o {SHIPPED}`")
    return yaml.safe_load(path.read_text())


def test_shipped_data_set_was_made_from_the_current_inputs(manifest):
    for name, digest in manifest["inputs"].items():
        assert sha256(REPO / name) == digest, (
            f"{name} changed since the shipped data set was generated: "
            f"run `pybridge mbm generate --vehicle lcv35 -o {SHIPPED.relative_to(REPO)}`")
    for test, entry in manifest["traces"].items():
        assert sha256(SHIPPED / entry["file"]) == entry["sha256"], test


def test_regenerated_step_steer_matches_the_shipped_trace(data, offsets, manifest):
    """The first 1.5 s of the step steer (straight running, then the steering step) recomputed."""
    shipped, _ = read_trace(find_trace(SHIPPED, "step_steer"))
    angle = manifest["references"]["ramp_steer_at_ay"]["steering_wheel_angle [rad]"]
    trace, _ = run_manoeuvre(data, load_scenario("step_steer"), offsets=offsets, duration=1.5,
                             resolve=lambda name, value: angle)
    n = len(trace)
    assert n >= 299
    for channel in ("speed", "ay", "yaw_rate", "roll", "sideslip", "steering_wheel_angle", "fz_fl", "fz_rr"):
        scale = max(np.ptp(shipped[channel].iloc[:n]), 1e-6)
        np.testing.assert_allclose(trace[channel], shipped[channel].iloc[:n], atol=1e-6 * scale + 1e-9,
                                   err_msg=channel)


def test_shipped_step_steer_reaches_the_ramp_steer_target(manifest):
    step, _ = read_trace(find_trace(SHIPPED, "step_steer"))
    target = manifest["references"]["ramp_steer_at_ay"]
    assert target["speed [m/s]"] == pytest.approx(step["speed"].iloc[0], rel=1e-3)
    steady = step[step["time"] > 4.5]
    # the ramp is quasi-steady at 5 deg/s, so the held step settles at about the same ay
    assert steady["ay"].mean() == pytest.approx(target["ay [m/s^2]"], rel=0.05)
    assert steady["yaw_rate"].mean() > 0 and steady["roll"].mean() > 0 and steady["sideslip"].mean() < 0


def test_shipped_longitudinal_manoeuvres_have_the_right_signs():
    braking, _ = read_trace(find_trace(SHIPPED, "braking"))
    hard = braking[braking["brake"] > 0.19]
    assert hard["ax"].mean() < -4.0 and hard["pitch"].mean() > 0  # decelerates, dives
    assert (hard["fz_fl"] > hard["fz_rl"]).all()
    acceleration, _ = read_trace(find_trace(SHIPPED, "acceleration"))
    full = acceleration[acceleration["throttle"] > 0.99]
    assert full["ax"].iloc[:50].mean() > 1.0 and full["pitch"].iloc[:50].mean() < 0  # squats
    assert np.all(np.diff(acceleration["gear"]) >= 0) and acceleration["gear"].iloc[-1] > acceleration["gear"].iloc[0]


def test_shipped_four_post_heave_is_symmetric():
    heave, _ = read_trace(find_trace(SHIPPED, "four_post_heave"))
    assert np.abs(heave["roll"]).max() < 1e-3  # rad; what remains is the tyres' conicity at standstill
    np.testing.assert_allclose(heave["fz_fl"], heave["fz_fr"], rtol=0.01)
