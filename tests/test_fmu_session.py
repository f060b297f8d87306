"""FMUSession on the native RTM14DoF FMU: parameter sets change the physics, reset + refill is exact,
mismatched sets are refused with every difference, values round-trip, and the cost of reset + apply."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from pybridge.simulate.fmu import FMUSession, FMUSessionError, ParameterMismatchError
from pybridge.parameters import ParameterSet

MODEL = "VehicleRTM.Vehicles.RTM14DoF"
TOE = "frontAxleData.kinematics.toe"
MASS = "chassis.sprungBodies"
G = 9.81


@pytest.fixture(scope="module")
def base(session) -> ParameterSet:
    """The FMU's own values of every parameter not bound to another one (as a converter writes a set:
    ``frontAxleData.*``, not ``frontAxle.data.*``, which follows it)."""
    from fmu_build.modelica import load_model

    flat = load_model(MODEL).to_dict("flat")["variables"]
    bound = {name for name, var in flat.items() if "VarRef" in (var.get("binding") or {})}
    full = session.defaults()
    return ParameterSet(model=full.model, scalars={n: v for n, v in full.scalars.items() if n.split("[")[0] not in bound},
                        tables={n: t for n, t in full.tables.items() if n not in bound}, units=full.units)


def static_run(session, params, outputs=("Fz", "wheelTravel", "wheelSteerAngle")) -> pd.Series:
    session.apply(params)
    return session.simulate(None, stop_time=3.0, step=0.01, outputs=list(outputs)).iloc[-1]


def axle_loads(row: pd.Series) -> tuple[float, float]:
    return row["Fz[1]"] + row["Fz[2]"], row["Fz[3]"] + row["Fz[4]"]


def test_more_sprung_mass_gives_the_static_wheel_loads_of_its_position(session, base):
    added = 300.0
    light = static_run(session, base)
    light_mass = session.get("totalMass")["totalMass"]
    heavy = static_run(session, base.with_values({MASS: base.scalars[MASS] + added}))
    heavy_mass = session.get("totalMass")["totalMass"]
    assert heavy_mass == pytest.approx(light_mass + added)
    for row, mass in ((light, light_mass), (heavy, heavy_mass)):
        assert sum(axle_loads(row)) == pytest.approx(mass * G, rel=2e-3)
    # the added mass sits at the sprung CoG: it loads the axles by the lever rule
    rear_share = base.scalars["chassis.cogToFrontAxle"] / base.scalars["chassis.wheelbase"]
    front_gain, rear_gain = np.subtract(axle_loads(heavy), axle_loads(light))
    assert rear_gain == pytest.approx(added * G * rear_share, rel=0.03)
    assert front_gain == pytest.approx(added * G * (1 - rear_share), rel=0.03)
    travel = [f"wheelTravel[{k}]" for k in range(1, 5)]
    assert (heavy[travel] - light[travel] > 0.005).all()       # every wheel goes into bump


def test_a_toe_map_offset_turns_the_front_wheels_by_it(session, base):
    offset = 0.01
    before = static_run(session, base)
    after = static_run(session, base.with_values({TOE: base.tables[TOE] + offset}))
    change = after[[f"wheelSteerAngle[{k}]" for k in range(1, 5)]].to_numpy() - \
        before[[f"wheelSteerAngle[{k}]" for k in range(1, 5)]].to_numpy()
    # left-wheel frame map: the left wheel heads left by the offset, the mirrored right wheel right
    np.testing.assert_allclose(change[:2], [offset, -offset], atol=5e-4)
    np.testing.assert_allclose(change[2:], 0.0, atol=5e-4)


def manoeuvre() -> pd.DataFrame:
    time_points = [0.0, 0.3, 0.5, 1.5]
    return pd.DataFrame({"time": time_points, "steeringWheelAngle": [0.0, 0.0, 1.2, 1.2],
                         "throttle": [0.1] * 4})


def test_reset_and_refill_equals_a_fresh_instance(session, base, rtm_fmu):
    outputs = ["yawRate", "ay", "roll", "Fz", "speed"]
    moving = base.with_values({"initialSpeed": 20.0})
    heavy = moving.with_values({MASS: base.scalars[MASS] + 400.0, TOE: base.tables[TOE] * 1.5})
    session.apply(heavy)
    heavy_run = session.simulate(manoeuvre(), 1.5, 0.005, outputs)
    session.reset()
    session.apply(moving)
    refilled = session.simulate(manoeuvre(), 1.5, 0.005, outputs)
    again = session.simulate(manoeuvre(), 1.5, 0.005, outputs)      # starts over with the same set
    with FMUSession(rtm_fmu, instance_name="fresh") as fresh:
        fresh.apply(moving)
        first = fresh.simulate(manoeuvre(), 1.5, 0.005, outputs)
    assert refilled["yawRate"].abs().max() > 0.05                    # the vehicle turned
    assert not np.allclose(heavy_run["roll"], refilled["roll"])      # and the set mattered
    pd.testing.assert_frame_equal(refilled, first, check_exact=True)
    pd.testing.assert_frame_equal(again, first, check_exact=True)
    frame = manoeuvre()

    def driver(t):
        return {name: float(np.interp(t, frame["time"], frame[name])) for name in ("steeringWheelAngle", "throttle")}

    by_callable = session.simulate(driver, 1.5, 0.005, outputs)
    pd.testing.assert_frame_equal(by_callable, first, check_exact=True)


def test_a_set_that_does_not_fit_is_refused_listing_every_difference(session, base):
    session.apply(base.with_values({MASS: 2000.0}))
    wrong = base.with_values({})
    wrong.model = "VehicleRTM.Vehicles.Other"
    wrong.tables[TOE] = np.zeros((8, 9))
    wrong.tables["chassis.wheelbase"] = np.ones(3)
    wrong.tables["frontAxleData.kinematics.camber"][0, 2] = np.nan
    wrong.scalars.update({"chassis.noSuchMass": 1.0, "ax": 0.0, "totalMass": 3000.0, "roadHeight": 0.0,
                          "chassis.rearTiresPerWheel": 1.5, "chassis.Ixx": np.inf})
    expected = ["model", TOE, "chassis.wheelbase", "chassis.noSuchMass", "ax", "totalMass", "roadHeight",
                "chassis.rearTiresPerWheel", "chassis.Ixx", "frontAxleData.kinematics.camber[1,3]"]
    differences = session.check(wrong)
    assert len(differences) == len(expected)
    for name, difference in zip(sorted(expected), sorted(differences)):
        assert difference.startswith(f"{name}:"), difference
    assert any("(8, 9)" in d and "(9, 9)" in d for d in differences)
    with pytest.raises(ParameterMismatchError) as error:
        session.apply(wrong)
    assert error.value.differences == differences
    assert all(d in str(error.value) for d in differences) and str(session.path) in str(error.value)
    assert session.get(MASS)[MASS] == 2000.0                        # the refused set changed nothing
    assert session.check(base) == []


def test_applied_values_read_back_before_and_after_initialization(session, base):
    toe = np.linspace(-0.02, 0.02, 81).reshape(9, 9)
    params = base.with_values({"chassis.Ixx": 1555.5, TOE: toe, "chassis.rearTiresPerWheel": 2.0,
                               "rearAxleData.kinematics.linearExtrapolation": 0.0})
    session.apply(params)
    for stage in ("instantiated", "initialized"):
        values = session.get(["chassis.Ixx", TOE, "chassis.rearTiresPerWheel",
                              "rearAxleData.kinematics.linearExtrapolation"])
        assert values["chassis.Ixx"] == 1555.5, stage
        np.testing.assert_array_equal(values[TOE], toe)
        assert values["chassis.rearTiresPerWheel"] == 2.0 and values["rearAxleData.kinematics.linearExtrapolation"] == 0.0
        session.simulate(None, 0.02, 0.01, ["Fz"])
    assert session.get("frontAxle.data.kinematics.toe")["frontAxle.data.kinematics.toe"][3, 5] == toe[3, 5]


def test_a_failing_fmu_call_names_the_fmu_and_its_message_and_the_session_recovers(session, base):
    session.apply(base.with_values({"fixedStepSize": -1.0}))
    with pytest.raises(FMUSessionError, match="fixedStepSize must be a positive number") as error:
        session.simulate(None, 0.1, 0.01, ["Fz"])
    assert str(session.path) in str(error.value) and "fmi2ExitInitializationMode" in str(error.value)
    session.apply(base)
    assert len(session.simulate(None, 0.1, 0.01, ["Fz"])) == 11


@pytest.mark.parametrize("inputs, stop, step, outputs, message", [
    (pd.DataFrame({"time": [0, 1], "steer": [0, 1]}), 1.0, 0.01, ["ax"], "steer"),
    (None, 1.0, 0.3, ["ax"], "multiple of step"),
    (None, 1.0, 0.01, ["no.such.output"], "no.such.output"),
    (pd.DataFrame({"time": [0, 1], "throttle": [0, np.nan]}), 1.0, 0.01, ["ax"], "finite"),
    (lambda t: {"throttle": 0.1} if t < 0.5 else {}, 1.0, 0.01, ["ax"], r"inputs\(0.5\) gave no value"),
])
def test_bad_simulation_requests_are_refused(session, inputs, stop, step, outputs, message):
    with pytest.raises(FMUSessionError, match=message):
        session.simulate(inputs, stop, step, outputs)


def test_apply_sets_every_value_in_one_call_per_type_and_reuses_its_plan(session, base, monkeypatch):
    """reset + apply of the full set is one fmi2SetReal call (plus one per other type present), and a
    second apply of a set with the same layout reuses the resolved value references (no new plan).
    Its cost is measured in benchmarks/ (fmu_overhead.py), not timed here."""
    calls = []
    for kind in ("Real", "Integer", "Boolean"):
        original = getattr(session._slave, f"fmi2Set{kind}")

        def counting(*args, _kind=kind, _original=original):
            calls.append((_kind, args[2]))
            return _original(*args)
        monkeypatch.setattr(session._slave, f"fmi2Set{kind}", counting)
    for params in (base, session.defaults()):
        session.apply(params)
        plans = len(session._plans)
        calls.clear()
        session.reset()
        session.apply(params)
        kinds = [kind for kind, _ in calls]
        assert kinds.count("Real") == 1 and len(kinds) == len(set(kinds)), kinds
        values = len(params.scalars) + sum(t.size for t in params.tables.values())
        assert sum(count for _, count in calls) == values
        assert len(session._plans) == plans


def test_a_second_session_of_an_fmu_file_reuses_its_description(rtm_fmu, tmp_path, monkeypatch):
    """An identification opens one FMU for its scalar and lane sessions: modelDescription.xml is parsed once per
    file, and again when the file changed."""
    import os
    import shutil

    from pybridge.simulate import fmu as fmu_module

    parsed = []
    read = fmu_module.read_model_description
    monkeypatch.setattr(fmu_module, "read_model_description", lambda *a, **k: parsed.append(a) or read(*a, **k))
    copy = tmp_path / rtm_fmu.name
    shutil.copy(rtm_fmu, copy)
    with FMUSession(copy) as first, FMUSession(copy, instance_name="second") as second:
        assert second.variables is first.variables and second.arrays is first.arrays
    os.utime(copy, ns=(copy.stat().st_atime_ns, copy.stat().st_mtime_ns + 10 ** 9))
    with FMUSession(copy):
        pass
    assert len(parsed) == 2
