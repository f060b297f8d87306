"""Multi-leaf rear pack of the reference MBM on the K&C rig (pybridge.reference.multileaf).

Test vehicle: ``tests/data/lcv35_multileaf.yaml`` (the 3.5 t van with a pack of four leaves).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("exudyn", reason="the reference vehicle runs on Exudyn, an optional extra: pip install '.[reference]'")

from pybridge.reference import kc_rig, multileaf
from pybridge.reference.vehicle_data import VehicleDataError, load_vehicle

VEHICLE = Path(__file__).parent / "data" / "lcv35_multileaf.yaml"
STEP = 0.002  # m of wheel travel for the rates


def vehicle(**pack):
    data = load_vehicle(VEHICLE)
    data.raw["rear"]["leaf_pack"].update(pack)
    return data


def parallel(rig, z: float) -> float:
    """Both rear wheel centres at travel z; the left wheel load (N)."""
    for corner in ("RL", "RR"):
        rig.set_travel(corner, z)
    rig.solve()
    return rig.measure("rear")["wheel_load_left"]


def rate_and_contacts(data):
    """Wheel rate at design (N/m) and, per left tip contact, normal load (N) and sliding per wheel travel."""
    rig = kc_rig.KCRig(data)
    pack = rig.vehicle.leaf_pack
    left = [c for c in pack.contacts if "_L_" in c.name]
    loads, sliding = [], []
    for z in (-STEP, STEP):
        loads.append(parallel(rig, z))
        sliding.append(np.array([pack.displacement(c)[0] for c in left]))
    parallel(rig, 0.0)
    normal = np.array([pack.forces()[c.name][0] for c in left])
    return (loads[1] - loads[0]) / (2 * STEP), normal, (sliding[1] - sliding[0]) / (2 * STEP)


def loop_width(data, amplitude: float = 0.01, steps: int = 4) -> float:
    """Width (N) of the wheel-load hysteresis loop at design travel: a cycle 0 -> +a -> -a -> +a,
    load passing design on the way up minus on the way down."""
    rig = kc_rig.KCRig(data)
    up = np.linspace(0.0, amplitude, steps + 1)
    for z in up:
        parallel(rig, z)
    down = [parallel(rig, z) for z in np.linspace(amplitude, -amplitude, 2 * steps + 1)]
    rising = [parallel(rig, z) for z in np.linspace(-amplitude, amplitude, 2 * steps + 1)]
    return rising[steps] - down[steps]


def test_single_leaf_pack_rate_is_the_beam_rate():
    """One leaf: the lumped leaf (joint stiffness EI over half its segments) against the simply
    supported beam with a rigid clamp, in series with the eye bushing: within 5 %."""
    data = vehicle(friction=0.0, leaves=[{"thickness": 0.013}])
    rate, _, _ = rate_and_contacts(data)
    assert rate == pytest.approx(multileaf.beam_theory_rate(data), rel=0.05)


def test_pack_rate_against_stacked_leaves_beam_theory():
    """Four leaves, no friction: k = 1 / integral(m^2 / (E b sum t_i^3 / 12)) over the span less the
    clamp (leaves sharing curvature). The pack's leaves touch only at their tips, so they share less
    than the curvature and the rate is lower: within 85-100 % of the estimate (measured 86.7 %; the
    main leaf alone gives 28 %)."""
    data = vehicle(friction=0.0)
    rate, normal, _ = rate_and_contacts(data)
    beam = multileaf.beam_theory_rate(data)
    assert 0.85 * beam < rate < beam
    assert np.all(normal > 0)   # every tip bears on the leaf above at design


def test_hysteresis_loop_width_is_friction_times_normal_load():
    """Loop width at design = 2 mu sum_k N_k |ds_k/dz| (virtual work of the sliding tips: N_k their
    normal loads, ds_k/dz their sliding per wheel travel, both from the pack without friction),
    within 5 % (measured 0.05 %); without friction there is no loop."""
    _, normal, sliding = rate_and_contacts(vehicle(friction=0.0))
    mu = 0.2
    expected = 2 * mu * float(np.sum(normal * np.abs(sliding)))
    assert expected > 50.0
    assert loop_width(vehicle(friction=mu)) == pytest.approx(expected, rel=0.05)
    assert abs(loop_width(vehicle(friction=0.0))) < 1e-3 * expected


def test_bad_pack_names_the_file_and_key():
    data = vehicle(leaves=[{"thickness": 0.01}, {"thickness": 0.01, "front_x": -2.0, "rear_x": -4.0}])
    with pytest.raises(VehicleDataError, match=r"lcv35_multileaf\.yaml: rear\.leaf_pack\.leaves\[1\]"):
        multileaf.leaves(data)
    del data.raw["rear"]["leaf_pack"]["friction"]
    with pytest.raises(VehicleDataError, match=r"rear\.leaf_pack: missing keys \['friction'\]"):
        multileaf.pack_spec(data)
