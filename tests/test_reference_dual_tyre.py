"""Dual rear tyres of the reference MBM (pybridge.reference.dual_tyre): load split of the two patches.

Test vehicle: ``tests/data/lcv35_multileaf.yaml`` (dual rear tyres 0.25 m apart). The whole vehicle
stands on its tyre pads (static equilibrium); the road is flat or crowned (z = -c |y|).
"""
from __future__ import annotations

from pathlib import Path

import exudyn as exu
import numpy as np
import pytest

pytest.importorskip("exudyn", reason="the reference vehicle runs on Exudyn, an optional extra: pip install '.[reference]'")

from pybridge.reference.dual_tyre import DualTyre, corner_tyre, dual_spacing
from pybridge.reference.model import ReferenceVehicle
from pybridge.reference.statics import leaf_offsets, solve_static, static_equilibrium
from pybridge.reference.tyre import ContactPatchTyre
from pybridge.reference.vehicle_data import load_vehicle

VEHICLE = Path(__file__).parent / "data" / "lcv35_multileaf.yaml"
CROWN = 0.02  # road cross slope either side of the crown


@pytest.fixture(scope="module")
def data():
    return load_vehicle(VEHICLE)


@pytest.fixture(scope="module")
def offsets(data):
    return leaf_offsets(data)


def patch_loads(vehicle, corner: str) -> list[float]:
    """Vertical load (N) of each pad of a corner, the one at + y (left) first."""
    return [-float(np.asarray(vehicle.mbs.GetObjectOutput(p, exu.OutputVariableType.Force))[2])
            for p in vehicle.corners[corner].elements["pads"]]


def crowned(vehicle) -> None:
    """Every pad's road height set to the crown profile -c |y| under it (the pad offset is the road height)."""
    mbs = vehicle.mbs
    for corner in vehicle.corners.values():
        for pad in corner.elements["pads"]:
            ground_marker = mbs.GetObject(pad)["markerNumbers"][0]
            y = mbs.GetMarker(ground_marker)["localPosition"][1]
            mbs.SetObjectParameter(pad, "offset", [0.0, 0.0, -CROWN * abs(y)])


def test_flat_road_splits_each_rear_station_equally(data, offsets):
    static = static_equilibrium(data, offsets)
    for corner in ("RL", "RR"):
        outer_or_inner = patch_loads(static.vehicle, corner)
        assert len(outer_or_inner) == 2
        assert outer_or_inner[0] == pytest.approx(outer_or_inner[1], rel=1e-6)
        assert sum(outer_or_inner) == pytest.approx(static.corner_loads[corner], rel=1e-12)
    assert len(patch_loads(static.vehicle, "FL")) == 1   # single tyres in front


def test_crowned_road_split_follows_slope_and_spacing(data, offsets):
    """Symmetric vehicle on a crown: the rigid axle stays level, so the inner patch is deflected
    c * spacing more than the outer one and carries k_z c spacing more load; the station's total is
    the flat-road one (the vehicle only sinks)."""
    flat = static_equilibrium(data, offsets).corner_loads
    vehicle = ReferenceVehicle(data, "pads", leaf_offsets=offsets)
    crowned(vehicle)
    solve_static(vehicle)
    k_z, spacing = float(vehicle.tir["VERTICAL_STIFFNESS"]), dual_spacing(data)
    left_outer, left_inner = patch_loads(vehicle, "RL")
    right_inner, right_outer = patch_loads(vehicle, "RR")
    for inner, outer, corner in ((left_inner, left_outer, "RL"), (right_inner, right_outer, "RR")):
        assert inner - outer == pytest.approx(k_z * CROWN * spacing, rel=0.01)
        assert inner + outer == pytest.approx(flat[corner], rel=0.01)
    # the road model's dual tyre sees the same patch deflections in that pose
    wheel = vehicle.corners["RL"].wheel
    tyre = DualTyre(data.tyre_file, spacing)
    tyre.evaluate(vehicle.position(wheel), vehicle.rotation(wheel), np.zeros(3), np.zeros(3),
                  road_height=lambda x, y: -CROWN * abs(y))
    fz = [p.Fz for p in tyre.patches]
    assert fz[0] == pytest.approx(left_outer, rel=0.01) and fz[1] == pytest.approx(left_inner, rel=0.01)


def test_dual_tyre_forces_and_moment_are_the_sum_of_its_patches(data):
    """A hub 0.1 m above a patch's ground: forces sum, the offset patch loads give a roll moment."""
    spacing = dual_spacing(data)
    dual, single = DualTyre(data.tyre_file, spacing), ContactPatchTyre(data.tyre_file)
    centre = np.array([0.0, 0.0, dual.unloaded_radius - 0.01])
    args = (centre, np.eye(3), np.array([10.0, 0.3, 0.0]), np.array([0.0, 10.0 / centre[2], 0.0]))
    road = lambda x, y: 0.002 * y  # noqa: E731  cross slope: the + y patch is deflected more
    f = dual.evaluate(*args, road_height=road)
    a, b = dual.patches
    assert f.Fz == pytest.approx(a.Fz + b.Fz) and a.Fz > b.Fz
    assert f.torque[0] == pytest.approx(a.torque[0] + b.torque[0] + 0.5 * spacing * (a.force[2] - b.force[2]), rel=1e-9)
    one = single.evaluate(centre + [0.0, 0.5 * spacing, 0.0], *args[1:], road_height=road(0.0, 0.5 * spacing))
    assert a.Fz == pytest.approx(one.Fz, rel=1e-12)


def test_rear_corners_of_a_dual_tyre_vehicle_get_dual_tyres(data):
    assert isinstance(corner_tyre(data, "RL"), DualTyre) and isinstance(corner_tyre(data, "FL"), ContactPatchTyre)
    assert dual_spacing(load_vehicle("lcv35")) is None and not isinstance(corner_tyre(load_vehicle("lcv35"), "RL"), DualTyre)
