"""pybridge.convert on the vehicles users have: a mass table with Ixz = 0, 4- and 8-speed gearboxes, no
driveline data, roll-centre heights from the K&C (the shipped van and sweeps with a known answer)."""
from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import REPO
from pybridge.convert import convert_mbm, roll_centre_height
from pybridge.simulate.manoeuvres import ManifestReferences, ManoeuvreError, run_scenario
from pybridge.mbm.kc_results import KCResults, read_kc_results
from pybridge.mbm.mass_table import read_mass_table, write_mass_table
from pybridge.parameters import ZERO_NOMINAL_HALF_WIDTH
from pybridge.simulate.scenarios import load_scenario

DATA_SET = REPO / "scenarios" / "mbm" / "lcv35"
MBM_DIR = DATA_SET / "mbm"
RPM = np.pi / 30
MIN_GEAR_TIME = 0.5   # s, VehicleRTM.Powertrain.Driveline default


def _copy(tmp_path):
    target = tmp_path / "mbm"
    shutil.copytree(MBM_DIR, target)
    return target


def test_a_mass_table_with_ixz_zero_converts_and_ixz_gets_the_absolute_range(rtm_fmu, tmp_path):
    data = _copy(tmp_path)
    table = read_mass_table(data / "masses.csv")
    body = table.data["class"].isin(["sprung", "linkage"])
    table.data["ixz"] = 0.0
    table.data.loc[body, "z"] = 1.0          # one height for the sprung part: no x-z product of inertia
    write_mass_table(table, data / "masses.csv")
    params = convert_mbm(data, fmu=rtm_fmu, extra_uncertain=("chassis.Ixz",))
    assert params.scalars["chassis.Ixz"] == 0.0 and params.units["chassis.Ixz"] == "kg.m2"
    half = ZERO_NOMINAL_HALF_WIDTH["kg.m2"]
    assert params.uncertain["chassis.Ixz"] == (0.0, -half, half)
    assert "asked for by the user" in params.reasons["chassis.Ixz"]
    params.write(tmp_path / "set")
    assert "reason: asked for by the user" in (tmp_path / "set" / "params.yaml").read_text()


def _gearbox(tmp_path, ratios, final_drive):
    data = _copy(tmp_path)
    path = data / "driveline.yaml"
    document = yaml.safe_load(path.read_text())
    document["gearbox"].update(ratios=ratios, final_drive=final_drive)
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return data, document["gearbox"]["upshift_speed"]["value"] * RPM


# Short boxes (final drive 8) so a few seconds of full throttle from 10 km/h reach the top gear and run
# its engine speed past the upshift speed: an upshift into the first inactive slot would happen there.
@pytest.mark.parametrize("ratios", [[3.0, 2.0, 1.4, 1.0], [3.0, 2.4, 1.95, 1.6, 1.35, 1.15, 1.0, 0.87]],
                         ids=["4-speed", "8-speed"])
def test_a_gearbox_of_any_size_shifts_through_its_gears_and_no_further(ratios, rtm_fmu, session, tmp_path):
    data, upshift = _gearbox(tmp_path, ratios, 8.0)
    params = convert_mbm(data, fmu=rtm_fmu)
    n = len(ratios)
    assert params.scalars["driveline.nGears"] == n
    assert params.tables["driveline.gearRatios"].tolist() == ratios + [ratios[-1]] * (12 - n)
    scenario = dataclasses.replace(load_scenario("acceleration"), initial_speed=10 / 3.6, duration=12.0)
    trace = run_scenario(session, scenario, params)
    gear = trace["gear"].to_numpy()
    changes = np.nonzero(np.diff(gear))[0]
    assert gear[0] == 1 and gear.max() == n
    assert [(gear[i], gear[i + 1]) for i in changes] == [(k, k + 1) for k in range(1, n)]   # each gear once, up
    time, engine = trace["time"].to_numpy(), trace["engine_speed"].to_numpy()
    last = -np.inf
    for i in changes:   # each upshift at the converted upshift speed, or later when held by the minimum time in gear
        assert engine[i] > 0.97 * upshift
        assert engine[i] < 1.03 * upshift or time[i] - last < MIN_GEAR_TIME + 0.02
        last = time[i + 1]
    top = trace["engine_speed"][gear == n]
    assert top.max() > 1.05 * upshift      # past the top gear's upshift speed, and still in the top gear


@pytest.fixture(scope="module")
def lateral_only(rtm_fmu, tmp_path_factory):
    data = tmp_path_factory.mktemp("no-driveline") / "mbm"
    shutil.copytree(MBM_DIR, data)
    (data / "driveline.yaml").unlink()
    return convert_mbm(data, fmu=rtm_fmu)


def test_without_driveline_data_the_set_converts_for_lateral_manoeuvres(lateral_only, session):
    assert "driveline.yaml" in lateral_only.metadata["lateral_only"]
    assert not any(name.startswith(("driveline.", "engine.")) for name in lateral_only.names())
    assert "chassis.brakeTorqueFront" not in lateral_only.scalars
    assert set(lateral_only.uncertain) == {"chassis.frontLinkSplit", "chassis.rearLinkSplit", "chassis.cogHeight"}
    step = dataclasses.replace(load_scenario("step_steer"), duration=2.0)
    trace = run_scenario(session, step, lateral_only, ManifestReferences(DATA_SET / "manifest.yaml"))
    assert trace["speed"].to_numpy() == pytest.approx(100 / 3.6, abs=0.3)
    assert trace["yaw_rate"].iloc[-1] > 0.1


@pytest.mark.parametrize("manoeuvre", ["acceleration", "braking"])
def test_without_driveline_data_a_longitudinal_manoeuvre_is_refused_naming_the_file(manoeuvre, lateral_only,
                                                                                   session):
    with pytest.raises(ManoeuvreError) as error:
        run_scenario(session, manoeuvre, lateral_only)
    message = str(error.value)
    assert manoeuvre in message and "driveline.yaml: missing" in message and "\n" not in message


def test_roll_centre_heights_of_the_van_from_its_opposite_travel_test(rtm_fmu):
    params = convert_mbm(MBM_DIR, fmu=rtm_fmu)
    derived = params.metadata["derived"]
    for axle in ("front", "rear"):
        test = read_kc_results(MBM_DIR / "kc" / f"{axle}_opposite_travel.csv").data
        # independent estimate: central difference at design, left wheel
        z, y = test["wheel_travel_left"].to_numpy(), test["contact_patch_y_left"].to_numpy()
        order = np.argsort(z)
        z, y = z[order], y[order]
        i = int(np.argmin(np.abs(z)))
        expected = y[i] * (y[i + 1] - y[i - 1]) / (z[i + 1] - z[i - 1])
        entry = derived[f"{axle}AxleData.rollCentreHeight"]
        assert entry["unit"] == "m" and f"{axle}_opposite_travel.csv" in entry["origin"]
        assert entry["value"] == pytest.approx(expected, abs=0.003), axle
    assert 0.01 < derived["frontAxleData.rollCentreHeight"]["value"] < 0.05      # double wishbone, low
    assert 0.2 < derived["rearAxleData.rollCentreHeight"]["value"] < 0.35       # leaf-sprung solid axle


def _sweep(y_of_z_left, y_of_z_right=None) -> KCResults:
    z = np.linspace(-0.08, 0.08, 33)
    left, right = y_of_z_left(z), (y_of_z_right or y_of_z_left)(-z)
    data = pd.DataFrame({"wheel_travel_left": z, "wheel_travel_right": -z,
                         "contact_patch_y_left": left, "contact_patch_y_right": right})
    return KCResults("opposite_travel", "front", data)


def test_roll_centre_of_synthetic_sweeps_with_a_known_answer():
    # a contact patch on a circle about the instant centre (0.30 m, 0.25 m) in the wheel plane, 0.80 m out:
    # the line patch-centre meets the vehicle's centre plane at 0.25 * 0.80 / 0.50 = 0.40 m
    radius = np.hypot(0.80 - 0.30, 0.25)

    def circle(z):
        return 0.30 + np.sqrt(radius**2 - (z - 0.25) ** 2)
    assert roll_centre_height(_sweep(circle)) == pytest.approx(0.40, abs=1e-3)   # curvature over +-25 mm
    # a solid axle rolling about a centre 0.31 m high: the patch moves out by 0.31/0.85 per metre of travel
    assert roll_centre_height(_sweep(lambda z: 0.85 + 0.31 / 0.85 * z + 0.4 * z**2)) == pytest.approx(0.31, abs=1e-9)
    # mean of both wheels
    assert roll_centre_height(_sweep(lambda z: 0.85 + 0.2 / 0.85 * z,
                                     lambda z: 0.85 + 0.4 / 0.85 * z)) == pytest.approx(0.3, abs=1e-9)
