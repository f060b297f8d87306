"""The spring friction the conversion reports (pybridge.convert_friction): the jump of the K&C wheel load at
design between the bump and the rebound branch of a parallel-travel sweep."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import REPO
from pybridge.convert_friction import spring_friction
from pybridge.mbm.dataset import ConversionError
from pybridge.mbm.kc_results import read_kc_results

KC = REPO / "scenarios" / "mbm" / "lcv35" / "mbm" / "kc"


@pytest.mark.parametrize("axle", ["front", "rear"])
def test_a_spring_without_friction_shows_none(axle):
    assert abs(spring_friction(read_kc_results(KC / f"{axle}_parallel_travel.csv"))) < 5.0   # N, of 7 kN


def test_a_friction_force_on_the_branches_is_found():
    test = read_kc_results(KC / "rear_parallel_travel.csv")
    data = test.data.copy()
    z = data["wheel_travel_left"].to_numpy()
    data["wheel_load_left"] += 224.0 * np.sign(z)     # loading above, unloading below design
    assert spring_friction(dataclasses.replace(test, data=data)) == pytest.approx(224.0, abs=2.0)


def test_a_sweep_without_points_on_one_side_is_named():
    test = read_kc_results(KC / "rear_parallel_travel.csv")
    data = test.data[test.data["wheel_travel_left"] >= 0]
    with pytest.raises(ConversionError, match=r"rear_parallel_travel.csv: 0 points within 25 mm on one side"):
        spring_friction(dataclasses.replace(test, data=data))
