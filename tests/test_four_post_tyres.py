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


def test_four_post_body_motion_is_compared_from_the_static_state():
    """The MBM writes pitch as an absolute angle from its design attitude (0.42 mrad at rest on the 7 t); the
    comparison takes the body motion from the static state the trace starts at, so a model that moves as
    the MBM scores 0 %, and one that does not still scores what it misses."""
    import numpy as np
    import pandas as pd

    from pybridge.four_post import compare_four_post

    t = np.arange(0.0, 40.0 + 1e-9, 0.005)
    post = 0.03 / (2 * np.pi * 1.5) * np.sin(2 * np.pi * (0.1 * t + 0.0625 * t ** 2))   # 0.1 -> 5.1 Hz
    model = pd.DataFrame({"time": t, "heave": 0.9 * post, "pitch": 0.05 * post, "post_fl": post, "post_fr": post,
                          "fz_fl": 11637.0 + 2e5 * post})
    static = model.assign(pitch=model["pitch"] + 4.175e-4)             # the MBM's pitch at rest on the posts
    result = compare_four_post(model, static, "four_post_pitch")["indices"]
    assert result["pitch"]["rmse_percent"] == 0.0 and result["heave"]["rmse_percent"] == 0.0
    assert result["fz_fl"]["rmse_percent"] == 0.0
    slow = static.assign(pitch=static["pitch"] + 0.1 * model["pitch"])  # the MBM pitches 10 % more
    assert compare_four_post(model, slow, "four_post_pitch")["indices"]["pitch"]["rmse_percent"] > 2.0
