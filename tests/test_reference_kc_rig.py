"""Virtual K&C rig and MBM export of the reference vehicle (pybridge.reference.kc_rig, .export)."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

pytest.importorskip("exudyn", reason="the reference vehicle runs on Exudyn, an optional extra: pip install '.[reference]'")

from pybridge.mbm.driveline_data import driveline_from_dict, read_driveline
from pybridge.mbm.kc_results import kc_channel_names, read_kc_results
from pybridge.mbm.mass_table import read_mass_table
from pybridge.mbm.property_files import read_property_file
from pybridge.reference import kc_rig
from pybridge.reference.export import export_mbm, kc_file_name, leaf_spring_curve
from pybridge.reference.model import ReferenceVehicle
from pybridge.reference.statics import target_corner_loads
from pybridge.reference.vehicle_data import load_vehicle

TRAVEL = np.linspace(-0.01, 0.01, 5)  # design in the middle
RACK = np.linspace(-0.02, 0.02, 5)
LOADS = {"fx": np.array([-5000.0, 0.0, 5000.0]), "fy": np.array([-5000.0, 0.0, 5000.0]),
         "mz": np.array([-500.0, 0.0, 500.0])}
MIRROR_NEGATES = ("fy", "mz", "rack_travel")  # lateral force, yaw moment, rack: sign flips in the mirror
AXLES = ("front", "rear")


@pytest.fixture(scope="module")
def data():
    return load_vehicle("lcv35")


@pytest.fixture(scope="module")
def sweeps(data):
    """Travel and rack sweeps, compliance cases of both sides (right side with mirrored loads)."""
    out = {}
    for axle in AXLES:
        out[axle, "parallel_travel"] = kc_rig.parallel_travel(data, axle, TRAVEL)
        out[axle, "opposite_travel"] = kc_rig.opposite_travel(data, axle, TRAVEL)
        for load, values in LOADS.items():
            out[axle, load, "left"] = kc_rig.compliance(data, axle, load, "left", values)
            mirrored = values if load == "fx" else -values
            out[axle, load, "right"] = kc_rig.compliance(data, axle, load, "right", mirrored)
    out["front", "rack_travel"] = kc_rig.rack_travel(data, RACK)
    return out


def slope_at_design(frame, y, x):
    """Central difference of column y over column x around the middle row (the design position)."""
    i = len(frame) // 2
    return (frame[y][i + 1] - frame[y][i - 1]) / (frame[x][i + 1] - frame[x][i - 1])


def wheel_rate(results):
    return slope_at_design(results.data, "wheel_load_left", "wheel_travel_left")


def mirrored(frame):
    """The frame seen in the mirror (x-z plane): left and right swapped, mirror-odd channels negated."""
    swapped = {c: c.replace("_left", "_@").replace("_right", "_left").replace("_@", "_right") for c in frame.columns}
    out = frame.rename(columns=swapped)
    for column in out.columns:
        if column.rsplit("_", 1)[0] in MIRROR_NEGATES or column in MIRROR_NEGATES:
            out[column] = -out[column]
    return out[sorted(out.columns, key=kc_channel_names().index)]


def series(*rates):
    return 1.0 / sum(1.0 / k for k in rates)


def test_front_wheel_rate_is_leaf_end_rate_times_installation_ratio_squared(data, sweeps):
    results = sweeps["front", "parallel_travel"]
    ratio = -slope_at_design(results.data, "spring_length_left", "wheel_travel_left")  # leaf-end travel per wheel travel
    bush = data["front"]["bushings"]
    leaf = series(data["front"]["transverse_leaf"]["end_rate"], bush["leaf_end"]["stiffness"][2],
                  bush["leaf_mount"]["stiffness"][2])
    assert 0.5 < ratio < 1.0
    assert wheel_rate(results) == pytest.approx(leaf * ratio ** 2, rel=0.05)


def test_rear_wheel_rate_is_seat_rate(data, sweeps):
    results = sweeps["rear", "parallel_travel"]
    ratio = -slope_at_design(results.data, "spring_length_left", "wheel_travel_left")
    assert ratio == pytest.approx(1.0, abs=0.01)
    assert wheel_rate(results) == pytest.approx(data["rear"]["leaf"]["seat_rate"], rel=0.05)


def test_transverse_leaf_is_stiffer_in_opposite_travel(sweeps):
    """The front leaf is the anti-roll bar too: pinned at two mounts, its centre section bends in
    opposite travel with a third of the parallel-travel compliance (1.7-2.2x the wheel rate here)."""
    ratio = wheel_rate(sweeps["front", "opposite_travel"]) / wheel_rate(sweeps["front", "parallel_travel"])
    assert 1.5 < ratio < 2.5


@pytest.mark.parametrize("axle", AXLES)
def test_wheel_load_at_design_is_the_target_corner_load(data, sweeps, axle):
    frame = sweeps[axle, "parallel_travel"].data
    targets = target_corner_loads(data)
    for side, corner in kc_rig.AXLE_CORNERS[axle].items():
        load = np.interp(0.0, frame[f"wheel_travel_{side}"], frame[f"wheel_load_{side}"])
        assert load == pytest.approx(targets[corner], rel=0.005)


@pytest.mark.parametrize("axle", AXLES)
def test_sweeps_are_left_right_symmetric(sweeps, axle):
    parallel = sweeps[axle, "parallel_travel"].data
    np.testing.assert_allclose(mirrored(parallel), parallel, rtol=1e-6, atol=1e-7)
    for angle in ("toe", "camber"):  # identical to round-off
        np.testing.assert_allclose(parallel[f"{angle}_left"], parallel[f"{angle}_right"], rtol=1e-9, atol=1e-12)
    opposite = sweeps[axle, "opposite_travel"].data  # travel grid symmetric about design
    np.testing.assert_allclose(mirrored(opposite)[::-1].to_numpy(), opposite.to_numpy(), rtol=1e-6, atol=1e-7)
    for load in LOADS:
        left, right = sweeps[axle, load, "left"], sweeps[axle, load, "right"]
        assert list(mirrored(left.data).columns) == list(right.data.columns)
        np.testing.assert_allclose(mirrored(left.data), right.data, rtol=1e-6, atol=1e-7, err_msg=load)


def test_rack_sweep_is_symmetric_and_steers_left(sweeps):
    rack = sweeps["front", "rack_travel"].data
    np.testing.assert_allclose(mirrored(rack)[::-1].to_numpy(), rack.to_numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(rack["rack_travel"], RACK, rtol=0.01, atol=1e-9)  # column spring: target almost reached
    assert slope_at_design(rack, "toe_left", "rack_travel") < 0 < slope_at_design(rack, "toe_right", "rack_travel")
    np.testing.assert_allclose(rack[["wheel_travel_left", "wheel_travel_right"]], 0.0, atol=1e-9)


def test_travel_sweeps_reach_the_prescribed_wheel_travel(sweeps):
    for axle in AXLES:
        np.testing.assert_allclose(sweeps[axle, "parallel_travel"].data["wheel_travel_right"], TRAVEL, atol=1e-9)
        np.testing.assert_allclose(sweeps[axle, "opposite_travel"].data["wheel_travel_right"], -TRAVEL, atol=1e-9)


def test_export_round_trip(data, sweeps, tmp_path):
    results = list(sweeps.values())
    written = export_mbm(data, tmp_path, kc_results=results)
    assert all(path.is_file() for path in written.values())
    for original in results:
        back = read_kc_results(written[kc_file_name(original)])
        assert (back.test, back.axle, back.loaded_side) == (original.test, original.axle, original.loaded_side)
        np.testing.assert_allclose(back.data, original.data, rtol=1e-12, atol=1e-15)

    model_mass = ReferenceVehicle(data, "kc").total_mass()
    masses = read_mass_table(written["masses.csv"])
    assert masses.total_mass == pytest.approx(model_mass, rel=1e-9)
    assert len(masses.data) == sum(1 if b.cg[1] == 0 else 2 for b in data.bodies.values())
    leaf = masses.data.set_index("body").loc["rear_leaf_left"]
    assert leaf["mass"] == pytest.approx(data.bodies["rear_leaf"].mass, rel=1e-12)
    assert leaf["x"] == pytest.approx(data.hardpoint("rear", "leaf_seat")[0], abs=1e-9)

    driveline, expected = read_driveline(written["driveline.yaml"]), driveline_from_dict(data["driveline"])
    np.testing.assert_allclose(driveline.engine.torque, expected.engine.torque, rtol=1e-12)
    np.testing.assert_allclose(driveline.gearbox.ratios, expected.gearbox.ratios, rtol=1e-12)
    assert driveline.brakes.front_torque_per_pedal == pytest.approx(expected.brakes.front_torque_per_pedal)

    for axle in AXLES:
        curve = read_property_file(written[f"{axle}_damper.dpr"])
        for got, want in zip((curve.x, curve.force), data.curve(axle, "damper", "velocity", "force")):
            np.testing.assert_array_equal(got, want)
        for element, ext in (("bump_stop", "bum"), ("rebound_stop", "reb")):
            curve = read_property_file(written[f"{axle}_{element}.{ext}"])
            for got, want in zip((curve.x, curve.force), data.curve(axle, element, "deflection", "force")):
                np.testing.assert_array_equal(got, want)
            assert curve.clearance == data[axle][element]["clearance"]
        spring, want = read_property_file(written[f"{axle}_leaf.spr"]), leaf_spring_curve(sweeps[axle, "parallel_travel"])
        np.testing.assert_array_equal(spring.x, want.x)
        np.testing.assert_array_equal(spring.force, want.force)
        assert spring.free_length == want.free_length
        middle = len(TRAVEL) // 2  # disp rises with the travel: the design row stays in the middle
        assert spring.free_length - spring.x[middle] == pytest.approx(
            sweeps[axle, "parallel_travel"].data["spring_length_left"][middle], abs=1e-12)
        assert spring.force[middle] > 0 and np.all(np.diff(spring.force) > 0)  # loaded, rising with compression

    assert written[data.tyre_file.name].read_bytes() == data.tyre_file.read_bytes()
    summary = yaml.safe_load(written["mbm_summary.yaml"].read_text())
    assert summary["total_mass"] == pytest.approx(model_mass, rel=1e-12)
    assert summary["wheelbase"] == pytest.approx(3.45)
    assert sum(summary["static_corner_load"].values()) == pytest.approx(model_mass * data.gravity, rel=1e-6)
