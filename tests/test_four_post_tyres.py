"""The four-post model's tyre springs are the MBM's: one tyre per front wheel, and at the rear as many in
parallel as the reference vehicle carries per wheel station (the 7 t van's dual tyres)."""
from __future__ import annotations

from pathlib import Path

import pytest

from pybridge.cli import REPO_DIR

pytest.importorskip("exudyn")


@pytest.mark.parametrize("vehicle", ["lcv35", "lcv70"])
def test_four_post_tyre_rates_are_the_reference_vehicles(vehicle):
    from pybridge.four_post import four_post_parameters
    from pybridge.identify.corner import CornerProblem
    from pybridge.reference.dual_tyre import corner_tyre
    from pybridge.reference.vehicle_data import load_vehicle

    reference = REPO_DIR / "scenarios" / "mbm" / vehicle
    corners = [CornerProblem(reference, c, Path("unused.fmu")).base for c in ("FL", "RL")]
    params, body = four_post_parameters(*corners, reference / "mbm")
    data = load_vehicle(vehicle)
    for corner in ("FL", "RL", "RR"):
        tyre = corner_tyre(data, corner)
        tyres = getattr(tyre, "tyres", [tyre])
        rate = sum(t.vertical_stiffness for t in tyres)
        damping = sum(t.vertical_damping for t in tyres)
        assert params.scalars[f"corner{corner}.data.cTyre"] == pytest.approx(rate, rel=1e-9)
        assert params.scalars[f"corner{corner}.data.dTyre"] == pytest.approx(damping, rel=1e-9)
        axle = "dataFront" if corner.startswith("F") else "dataRear"
        assert params.scalars[f"{axle}.cTyre"] == pytest.approx(rate, rel=1e-9)
    assert body["rear_tyres_per_wheel"] == len(getattr(corner_tyre(data, "RL"), "tyres", [None]))
