"""The converted van against its MBM on the step steer, before any identification (issue 31's bar: every
step-steer index <= 10 %). The yaw-rate overshoot was 16.4 % while the RTM's wheel travel stayed road-vertical
in a rolled body and its steering compliance did not feel the front wheels' gyroscopic moment."""
from __future__ import annotations

from conftest import REPO
from pybridge.convert import convert_mbm
from pybridge.evaluate.compare import compare_parameter_sets

SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"


def test_nominal_van_meets_the_mbm_step_steer(rtm_fmu, tmp_path):
    params = convert_mbm(SHIPPED / "mbm", fmu=rtm_fmu)
    result = compare_parameter_sets({"nominal": params}, SHIPPED, rtm_fmu, tmp_path, manoeuvres=["step_steer"],
                                    workers=1, progress=False)
    indices = {name: entry["nominal"] for name, entry in result["manoeuvres"]["step_steer"]["indices"].items()}
    assert max(indices.values()) <= 5.0, indices          # measured: yaw overshoot 4.2 %, all others <= 3.7 %
    old = params.with_values({})
    old.scalars.update(travelAlongBody=0.0, wheelGyroscopicSteer=0.0)   # the RTM as it was
    result = compare_parameter_sets({"old": old}, SHIPPED, rtm_fmu, tmp_path / "old", manoeuvres=["step_steer"],
                                    workers=1, progress=False)
    assert result["manoeuvres"]["step_steer"]["indices"]["yaw_rate_overshoot"]["old"] > 10.0
