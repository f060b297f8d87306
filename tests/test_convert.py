"""pybridge.convert: the 3.5 t van's MBM data set converted into an RTM parameter set, checked against
the MBM (mass sum, static ride height, ramp- and step-steer responses), plus every error path."""
from __future__ import annotations

import copy
import re
import shutil

import numpy as np
import pytest
import yaml

from conftest import REPO
from fmu_helpers import nrmse
from pybridge.cli import main
from pybridge.convert import ConversionError, convert_mbm
from pybridge.mbm.dataset import read_mbm
from pybridge.simulate.fmu import FMUSession
from pybridge.mbm.driveline_data import read_driveline
from pybridge.mbm.errors import MBMDataError
from pybridge.mbm.kc_results import read_kc_results, write_kc_results
from pybridge.mbm.mass_table import read_mass_table, write_mass_table
from pybridge.mbm.property_files import read_property_file
from pybridge.parameters import read_parameter_set
from pybridge.simulate.scenarios import SpeedController
from pybridge.traces import read_trace

MBM_DIR = REPO / "scenarios" / "mbm" / "lcv35" / "mbm"
TRACES = REPO / "scenarios" / "mbm" / "lcv35" / "traces"
# Bound on the RMSE / range of each channel of the un-optimized RTM against the MBM. The LCV paper's
# nominal conversion "already allows a good level of conversion accuracy" and its optimization then
# targets errors of a few per cent; 10 % is about three times what this conversion reaches (<= 3.5 %),
# so regenerating the MBM does not trip it, while real conversion faults do: a flipped toe sign gives
# > 100 %, tx/ty of the wheel centre instead of the contact patch 11-17 %, no rear ty map 11-14 %.
RMSE_BOUND = 0.10


@pytest.fixture(scope="module")
def params(rtm_fmu):
    return convert_mbm(MBM_DIR, fmu=rtm_fmu)


@pytest.fixture(scope="module")
def session(rtm_fmu):
    with FMUSession(rtm_fmu) as fmu_session:
        yield fmu_session


def _summary() -> dict:
    return yaml.safe_load((MBM_DIR / "mbm_summary.yaml").read_text())


# ---------------------------------------------------------------------------------------------
# What the converted RTM reproduces
# ---------------------------------------------------------------------------------------------

def test_masses_sum_to_the_mbm_total(params, session):
    table = read_mass_table(MBM_DIR / "masses.csv")
    s = params.scalars
    corner = sum(s[f"chassis.{item}"] for item in ("frontWheel", "frontBrakeDisk", "frontSpindle", "frontUpright",
                                                   "frontLinks", "rearWheel", "rearBrakeDisk", "rearSpindle",
                                                   "rearFixed", "rearLinks"))
    total = s["chassis.sprungBodies"] + 2 * corner + s["chassis.rearDriveline"]
    session.apply(params)
    session.simulate(None, stop_time=0.01, step=0.01)
    fmu = session.get(["totalMass", "sprungMass"])
    classes = table.by_class()["mass"]
    sprung = classes["sprung"] + (1 - s["chassis.frontLinkSplit"]) * classes["linkage"]   # Eq. 7, K = 0.5 both axles
    print(f"\nmass: MBM {table.total_mass:.3f} kg, converted {total:.3f} kg, FMU totalMass {fmu['totalMass']:.3f} kg "
          f"(error {abs(fmu['totalMass'] - table.total_mass) / table.total_mass:.2e}); "
          f"sprung {fmu['sprungMass']:.1f} kg (Eq. 7: {sprung:.1f} kg)")
    assert s["chassis.frontLinkSplit"] == s["chassis.rearLinkSplit"]
    assert abs(total - table.total_mass) <= 1e-3 * table.total_mass
    assert abs(fmu["totalMass"] - table.total_mass) <= 1e-3 * table.total_mass
    assert fmu["sprungMass"] == pytest.approx(sprung, rel=1e-9)


def test_static_ride_height_within_2_mm_of_the_mbm(params, session):
    """Standing still for 4 s. The ride height at a corner is wheel-centre height - wheel travel +
    a constant of the body, so RTM - MBM = (wheel-centre height - its MBM static value) - (travel -
    the MBM's static travel, where its K&C wheel load equals the static corner load)."""
    summary = _summary()
    session.apply(params)
    result = session.simulate(None, stop_time=4.0, step=0.01,
                              outputs=["wheelTravel", "wheelHeight", "bodyVerticalVelocity"])
    last = result.iloc[-1]
    assert abs(last["bodyVerticalVelocity"]) < 1e-3
    for axle, corners, wheels in (("front", ("FL", "FR"), (1, 2)), ("rear", ("RL", "RR"), (3, 4))):
        kc = read_kc_results(MBM_DIR / "kc" / f"{axle}_parallel_travel.csv").data
        load = np.mean([summary["static_corner_load"][c] for c in corners])
        mbm_travel = np.interp(load, kc.wheel_load_left, kc.wheel_travel_left)
        wheel_height = np.mean([last[f"wheelHeight[{i}]"] - summary["static_wheel_centre_height"][c]
                                for i, c in zip(wheels, corners)])
        travel = np.mean([last[f"wheelTravel[{i}]"] for i in wheels])
        mbm_height = summary["static_ride_height"][axle]
        rtm_height = mbm_height + wheel_height - (travel - mbm_travel)
        print(f"\n{axle} ride height: MBM {mbm_height * 1e3:.2f} mm, RTM {rtm_height * 1e3:.2f} mm "
              f"(error {(rtm_height - mbm_height) * 1e3:+.3f} mm; RTM travel {travel * 1e3:+.3f} mm, "
              f"MBM {mbm_travel * 1e3:+.3f} mm)")
        assert abs(rtm_height - mbm_height) < 2e-3


def _drive(session, params, trace, step):
    """The RTM at the trace's initial speed, steered as the MBM was, speed held by a PI driver
    (the MBM's throttle as feed-forward)."""
    t = trace.time.to_numpy()
    speed0 = float(trace.speed.iloc[0])
    run = copy.deepcopy(params)
    run.scalars["initialSpeed"] = speed0
    driver = SpeedController(speed0, feedforward=lambda time, target: float(np.interp(time, t, trace.throttle)))
    session.apply(run)

    def inputs(time):
        speed = session.get("speed")["speed"] if time > 0 else speed0
        throttle, brake = driver.update(time, speed, step)
        return {"steeringWheelAngle": float(np.interp(time, t, trace.steering_wheel_angle)),
                "throttle": throttle, "brakePedal": brake}

    stop = np.floor(t[-1] / step) * step
    return session.simulate(inputs, stop_time=stop, step=step, outputs=["ay", "yawRate", "roll", "sideslip"])


@pytest.mark.parametrize("manoeuvre, step", [("ramp_steer", 0.01), ("step_steer", 0.005)])
def test_unoptimized_rtm_reproduces_the_mbm_steering_responses(params, session, manoeuvre, step):
    trace, _ = read_trace(TRACES / f"{manoeuvre}.csv")
    result = _drive(session, params, trace, step)
    errors = {}
    for channel, column in (("ay", "ay"), ("yaw rate", "yawRate"), ("roll", "roll"), ("sideslip", "sideslip")):
        reference = np.interp(result.time, trace.time, trace[column if column != "yawRate" else "yaw_rate"])
        errors[channel] = nrmse(reference, result[column].to_numpy())
    print(f"\n{manoeuvre}: RMSE / reference range " + ", ".join(f"{k} {v:.1%}" for k, v in errors.items()))
    assert max(errors.values()) < RMSE_BOUND, errors


# ---------------------------------------------------------------------------------------------
# Conversion rules, origins, uncertain set, writing, command line
# ---------------------------------------------------------------------------------------------

def test_maps_follow_the_rtm_sign_conventions(params):
    """Toe = -toe-in of the left wheel, ty = contact patch outward, stiffness = load - unsprung weight."""
    t = params.tables
    rack = read_kc_results(MBM_DIR / "kc" / "front_rack_travel.csv").data
    parallel = read_kc_results(MBM_DIR / "kc" / "front_parallel_travel.csv").data
    u1, u2 = t["frontAxleData.kinematics.u1"], t["frontAxleData.kinematics.u2"]
    design = int(np.argmin(np.abs(u1)))
    assert u1[design] == pytest.approx(0, abs=1e-9)
    assert np.allclose(t["frontAxleData.kinematics.toe"][design], -np.interp(u2, rack.rack_travel, rack.toe_left))
    assert t["frontAxleData.kinematics.toe"][design, -1] > 0.1          # rack to the left: wheel heads left
    y = parallel.contact_patch_y_left
    assert np.allclose(t["frontAxleData.kinematics.ty"][:, int(np.argmin(np.abs(u2)))],
                       np.interp(u1, parallel.wheel_travel_left, y) - np.interp(0, parallel.wheel_travel_left, y))
    weight = params.scalars["g"] * (sum(params.scalars[f"chassis.front{i}"] for i in
                                        ("Wheel", "BrakeDisk", "Spindle", "Upright"))
                                    + params.scalars["chassis.frontLinkSplit"] * params.scalars["chassis.frontLinks"])
    at_design = np.interp(0, t["frontAxleData.stiffness.travel"], t["frontAxleData.stiffness.parallelForce"])
    assert at_design == pytest.approx(np.interp(0, parallel.wheel_travel_left, parallel.wheel_load_left) - weight)
    damper = read_property_file(MBM_DIR / "rear_damper.dpr")
    assert np.array_equal(t["rearAxleData.damper.velocity"], damper.x)
    assert np.array_equal(t["rearAxleData.damper.force"], damper.force)


def test_engine_map_keeps_every_point_of_the_driveline_data(params):
    engine = read_driveline(MBM_DIR / "driveline.yaml").engine
    speed, throttle, torque = (params.tables[f"engine.{k}"] for k in ("speed", "throttle", "torque"))
    assert set(engine.speed) <= set(speed) and set(engine.throttle) <= set(throttle)
    for j, w in enumerate(engine.throttle):
        column = torque[:, list(throttle).index(w)]
        assert np.allclose(np.interp(engine.speed, speed, column), engine.torque[j])
    assert np.all(torque[speed > engine.max_speed] == torque[speed > engine.max_speed][:, :1])   # fuel cut-off


def test_every_value_has_an_origin_and_only_what_the_data_do_not_state_is_uncertain(params, tmp_path):
    names = params.names()
    assert names and all(params.origins.get(n) for n in names)
    # the van's axle has no driveline bodies (chassis.rearDriveline = 0), so no drivelineSplit; masses,
    # inertias and geometry of the mass table are certain
    assert params.scalars["chassis.rearDriveline"] == 0
    assert params.uncertain.keys() == {"chassis.frontLinkSplit", "chassis.rearLinkSplit", "chassis.cogHeight",
                                       "driveline.torqueGain"}
    for name, (nominal, low, high) in params.uncertain.items():
        assert nominal == params.scalars[name]
        assert (low, high) == pytest.approx(sorted((0.8 * nominal, 1.2 * nominal)))
        assert len(params.reasons[name]) > 20, name
    params.write(tmp_path / "set")
    assert read_parameter_set(tmp_path / "set") == params


def test_cli_convert_writes_the_set_and_reports_errors(rtm_fmu, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["convert", "--help"])
    assert "Example:" in capsys.readouterr().out
    assert main(["convert", str(MBM_DIR), "-o", str(tmp_path / "set"), "--fmu", str(rtm_fmu)]) == 0
    assert "-> " in capsys.readouterr().out
    assert read_parameter_set(tmp_path / "set").scalars["chassis.wheelbase"] == _summary()["wheelbase"]
    assert main(["convert", str(tmp_path / "nothing"), "-o", str(tmp_path / "bad")]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists()


# ---------------------------------------------------------------------------------------------
# Error paths, each on a malformed copy of the data set
# ---------------------------------------------------------------------------------------------

def _edit_text(path, pattern, replacement):
    text = path.read_text()
    assert re.search(pattern, text, flags=re.M), (path, pattern)
    path.write_text(re.sub(pattern, replacement, text, flags=re.M))


def _edit_yaml(path, change):
    document = yaml.safe_load(path.read_text())
    change(document)
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def _edit_kc(path, change):
    results = read_kc_results(path)
    results.data = change(results.data)
    write_kc_results(results, path)


def _edit_masses(path, change):
    table = read_mass_table(path)
    change(table.data)
    write_mass_table(table, path)


def _drop_positive_travel(data):
    return data[data.wheel_travel_left > 1e-3].reset_index(drop=True)


def _scale_load(data):
    data["wheel_load_left"] *= 1.05
    return data


def _without_unsprung_rear(data):
    data.loc[(data["axle"] == "rear") & (data["class"] == "unsprung"), "class"] = "linkage"


CASES = {
    "missing K&C test": (lambda d: (d / "kc/rear_opposite_travel.csv").unlink(),
                         ["rear_opposite_travel.csv", "missing", "expected the K&C opposite_travel test"]),
    "missing mass table": (lambda d: (d / "masses.csv").unlink(), ["masses.csv", "missing", "expected the mass table"]),
    "missing damper": (lambda d: (d / "front_damper.dpr").unlink(), ["front_damper.dpr", "missing", "expected"]),
    "missing summary": (lambda d: (d / "mbm_summary.yaml").unlink(), ["mbm_summary.yaml", "missing", "expected"]),
    "no tyre file": (lambda d: [p.unlink() for p in d.glob("*.tir")], ["0 .tir files", "expected exactly one"]),
    "two tyre files": (lambda d: shutil.copy(next(d.glob("*.tir")), d / "second.tir"),
                       ["2 .tir files", "expected exactly one"]),
    "missing rack test": (lambda d: (d / "kc/front_rack_travel.csv").unlink(),
                          ["front_rack_travel.csv", "missing", "wheel x rack travel"]),
    "K&C header of another axle": (lambda d: _edit_text(d / "kc/front_parallel_travel.csv", r"^# axle: front",
                                                        "# axle: rear"),
                                   ["front_parallel_travel.csv", "header says axle 'rear'", "expected axle 'front'"]),
    "sweep misses the design position": (lambda d: _edit_kc(d / "kc/rear_parallel_travel.csv", _drop_positive_travel),
                                         ["rear_parallel_travel.csv", "expected a sweep through the design position"]),
    "opposite test at another design load": (lambda d: _edit_kc(d / "kc/front_opposite_travel.csv", _scale_load),
                                             ["front_opposite_travel.csv", "expected the design load"]),
    "track differs from the K&C": (lambda d: _edit_yaml(d / "mbm_summary.yaml",
                                                        lambda s: s["track"].update(front=1.80)),
                                   ["front_parallel_travel.csv", "expected track.front = 1.8 m"]),
    "wheelbase differs from the K&C": (lambda d: _edit_yaml(d / "mbm_summary.yaml", lambda s: s.update(wheelbase=3.6)),
                                       ["rear_parallel_travel.csv", "expected wheelbase 3.6 m"]),
    "masses do not sum to the total": (lambda d: _edit_yaml(d / "mbm_summary.yaml",
                                                            lambda s: s.update(total_mass=3000.0)),
                                       ["masses.csv", "expected total_mass 3000 kg"]),
    "static loads are not the weight": (lambda d: _edit_yaml(d / "mbm_summary.yaml",
                                                             lambda s: s["static_corner_load"].update(FL=10000.0)),
                                        ["mbm_summary.yaml", "static_corner_load", "expected the weight"]),
    "an axle without unsprung bodies": (lambda d: _edit_masses(d / "masses.csv", _without_unsprung_rear),
                                        ["masses.csv", "no unsprung body on the rear axle", "expected"]),
    "summary of another format": (lambda d: _edit_yaml(d / "mbm_summary.yaml", lambda s: s.update(format="x 1")),
                                  ["mbm_summary.yaml", "format: expected 'vehiclertm-mbm-summary 1'"]),
    "summary value not a number": (lambda d: _edit_yaml(d / "mbm_summary.yaml", lambda s: s.update(rack_gain="fast")),
                                   ["mbm_summary.yaml", "rack_gain: 'fast'", "expected a finite number"]),
    "stop without clearance": (lambda d: _edit_text(d / "front_bump_stop.bum", r"^CLEARANCE.*\n", ""),
                               ["front_bump_stop.bum", "no CLEARANCE", "expected"]),
    "K&C without damper length": (lambda d: _edit_kc(d / "kc/rear_opposite_travel.csv",
                                                     lambda x: x.drop(columns=["damper_length_left",
                                                                               "damper_length_right"])),
                                  ["rear_opposite_travel.csv", "no channel damper_length_left", "expected"]),
    "tyre coefficient not a number": (lambda d: _edit_text(next(d.glob("*.tir")), r"^(VERTICAL_STIFFNESS\s*=\s*)\S+",
                                                           r"\1'soft'"),
                                      [".tir:", "VERTICAL_STIFFNESS = 'soft'", "expected a number"]),
    "front-wheel drive": (lambda d: _edit_yaml(d / "driveline.yaml",
                                               lambda s: s["gearbox"].update(driven_axle="front")),
                          ["driveline.yaml", "driven_axle: front", "expected rear"]),
    "more gears than the FMU's slots": (lambda d: _edit_yaml(d / "driveline.yaml", lambda s: s["gearbox"].update(
        ratios=[6.0 - 0.45 * k for k in range(13)])), ["driveline.yaml", "has 13 gears", "expected 1 to 12"]),
    "shift schedule without hysteresis": (lambda d: _edit_yaml(d / "driveline.yaml", lambda s: s["gearbox"].update(
        ratios=[5.0, 1.5, 1.0])), ["driveline.yaml", "between gear 1 and 2", "expected below upshift_speed"]),
}


@pytest.mark.parametrize("case", CASES)
def test_conversion_errors_name_file_place_and_expectation(case, rtm_fmu, tmp_path):
    data = tmp_path / "mbm"
    shutil.copytree(MBM_DIR, data)
    damage, expected = CASES[case]
    damage(data)
    with pytest.raises(ConversionError) as error:
        convert_mbm(data, fmu=rtm_fmu)
    message = str(error.value)
    assert "\n" not in message
    for part in expected:
        assert part in message, message


def test_reader_errors_and_other_fmus_pass_through(rtm_fmu, tmp_path):
    data = tmp_path / "mbm"
    shutil.copytree(MBM_DIR, data)
    with pytest.raises(ConversionError, match="not a directory"):
        read_mbm(tmp_path / "none")
    with pytest.raises(ConversionError, match="the FMU is VehicleRTM.Vehicles.RTM14DoF — expected an FMU of"):
        convert_mbm(data, model="VehicleRTM.Vehicles.FourPost10DoF", fmu=rtm_fmu)
    _edit_text(data / "masses.csv", r"^([^#,][^,]*,[^,]*,[^,]*,[^,]*,)[^,]+", r"\g<1>-1")   # first body: mass -1 kg
    with pytest.raises(MBMDataError, match=r"masses\.csv:\d+"):
        convert_mbm(data, fmu=rtm_fmu)
