"""Reference manoeuvres start from the vehicle's equilibrium: no settling in the first 0.5 s.

Before the fix the four-post traces of the 3.5 t van settled by -3.8 mm heave and -2.0 mrad pitch in
the first 0.5 s (the integrator's initial accelerations saw no tyre loads, the holding brake chattered
as an explicit torque), and a straight run at 100 km/h by +1.5 mm and -2.7 mrad (started from the
standing equilibrium, without the drag, rolling resistance and drive torque of running).
"""
import dataclasses

import numpy as np
import pytest

pytest.importorskip("exudyn", reason="the reference vehicle needs Exudyn (pip install '.[reference]')")

from pybridge.reference.rig_dynamics import run_four_post  # noqa: E402
from pybridge.reference.road import run_manoeuvre  # noqa: E402
from pybridge.reference.statics import leaf_offsets  # noqa: E402
from pybridge.reference.vehicle_data import load_vehicle  # noqa: E402
from pybridge.simulate.scenarios import load_scenario  # noqa: E402

SETTLING = 0.5          # s
HEAVE_BOUND = 0.3e-3    # m, largest heave drift over SETTLING
PITCH_BOUND = 0.3e-3    # rad, largest pitch drift over SETTLING


@pytest.fixture(scope="module")
def data():
    return load_vehicle("lcv35")


@pytest.fixture(scope="module")
def offsets(data):
    return leaf_offsets(data)


def _drift(trace, channel):
    values = trace[channel].to_numpy()
    return float(np.max(np.abs(values - values[0])))


def test_four_post_at_rest_stays_at_equilibrium(data, offsets):
    scenario = load_scenario("four_post_heave")
    still = {"type": "constant", "value": 0.0}
    scenario = dataclasses.replace(scenario, inputs={name: still for name in scenario.inputs})
    trace, _ = run_four_post(data, scenario, offsets=offsets, duration=SETTLING)
    assert abs(trace["heave"].iloc[0]) < 1e-9
    assert _drift(trace, "heave") < HEAVE_BOUND
    assert _drift(trace, "pitch") < PITCH_BOUND


def test_straight_run_at_held_speed_starts_at_equilibrium(data, offsets):
    """The step steer before its step: 100 km/h, steering wheel straight, speed held."""
    trace, _ = run_manoeuvre(data, load_scenario("step_steer"), offsets=offsets, duration=SETTLING,
                             resolve=lambda name, value: 0.0)
    assert _drift(trace, "heave") < HEAVE_BOUND
    assert _drift(trace, "pitch") < PITCH_BOUND
