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
    than the curvature and the rate is lower: within 85-100 % of the estimate (measured 87.2 %; the
    main leaf alone gives 28 %)."""
    data = vehicle(friction=0.0)
    rate, normal, _ = rate_and_contacts(data)
    beam = multileaf.beam_theory_rate(data)
    assert 0.85 * beam < rate < beam
    assert np.all(normal > 0)   # every tip bears on the leaf above at design


def test_hysteresis_loop_width_is_friction_times_normal_load():
    """Loop width at design = 2 mu sum_k N_k |ds_k/dz| (virtual work of the sliding tips: N_k their
    normal loads, ds_k/dz their sliding per wheel travel, both from the pack without friction),
    within 5 % (measured 0.03 %); without friction there is no loop."""
    _, normal, sliding = rate_and_contacts(vehicle(friction=0.0))
    mu = 0.2
    expected = 2 * mu * float(np.sum(normal * np.abs(sliding)))
    assert expected > 50.0
    assert loop_width(vehicle(friction=mu)) == pytest.approx(expected, rel=0.05)
    assert abs(loop_width(vehicle(friction=0.0))) < 1e-3 * expected


def test_7t_pack_sweeps_converge_and_carry_the_design_load_at_design():
    """The shipped 7 t pack on the K&C rig's own grids (+-80 mm in 5 mm steps, from design outwards
    both ways): every static solution converges, and design carries the target corner load in
    parallel and in opposite travel (no friction locked in at design, none picked up on the way back)."""
    data = load_vehicle("lcv70")
    target = data["targets"]["corner_load_rear"]
    for sweep in (kc_rig.parallel_travel, kc_rig.opposite_travel):
        frame = sweep(data, "rear").data
        centre = len(frame) // 2
        assert frame["wheel_load_left"][centre] == pytest.approx(target, rel=1e-4), sweep.__name__
        assert frame["wheel_load_right"][centre] == pytest.approx(target, rel=1e-4), sweep.__name__


def test_bad_pack_names_the_file_and_key():
    data = vehicle(leaves=[{"thickness": 0.01}, {"thickness": 0.01, "front_x": -2.0, "rear_x": -4.0}])
    with pytest.raises(VehicleDataError, match=r"lcv35_multileaf\.yaml: rear\.leaf_pack\.leaves\[1\]"):
        multileaf.leaves(data)
    del data.raw["rear"]["leaf_pack"]["friction"]
    with pytest.raises(VehicleDataError, match=r"rear\.leaf_pack: missing keys \['friction'\]"):
        multileaf.pack_spec(data)


def free_oscillation(data, duration: float):
    """Vehicle on vertical tyre springs (no dampers or bushing damping), pushed down at the rear axle
    by 6 kN, released: the history (time, total mechanical energy in J) and the energy at rest."""
    from pybridge.reference.model import ReferenceVehicle
    from pybridge.reference.road import dynamic_settings, run_dynamic
    from pybridge.reference.statics import leaf_offsets, solve_static
    v = ReferenceVehicle(data, "kc", dissipation=False, leaf_offsets=leaf_offsets(data), hold_chassis=False)
    kz, r0 = float(v.tir["VERTICAL_STIFFNESS"]), float(v.tir["UNLOADED_RADIUS"])
    for corner in v.corners.values():
        v.mbs.SetObjectParameter(corner.elements["pad"], "stiffness", [1e5, 1e5, kz])
        v.mbs.SetObjectParameter(corner.elements["pad"], "offset", [0.0, 0.0, r0 - corner.centre[2]])
    chassis = v.bodies["chassis"].index
    push = v.mbs.CreateForce(itemNumber=chassis, localPosition=[-1.7, 0.0, 0.0], loadVector=[0.0, 0.0, 0.0])
    v.mbs.Assemble()
    solve_static(v)
    resting = v.mechanical_energy()["total"]
    v.mbs.SetLoadParameter(push, "loadVector", [0.0, 0.0, -6000.0])
    v.set_initial_state(v.state())
    solve_static(v)
    v.commit_friction()
    v.mbs.SetLoadParameter(push, "loadVector", [0.0, 0.0, 0.0])
    v.set_initial_state(v.state())
    history = []

    def step(mbs, t):
        v.commit_friction()
        history.append((t, v.mechanical_energy()["total"]))
        return True
    v.mbs.SetPreStepUserFunction(step)
    run_dynamic(v, dynamic_settings(duration, 1e-3, spectral_radius=1.0))
    return np.array(history), resting


@pytest.mark.slow
def test_pack_energy_is_conserved_without_friction_and_only_lost_with_it():
    """Free heave-pitch oscillation with every damper off (2 s, about 20 s CPU): the frictionless
    pack conserves the mechanical energy (contact penalties and stick springs counted as elastic
    energy) within 1 % of the oscillation's (measured 0.65 %: the contacts act in the upper leaf's
    turning axes); with friction the energy goes down from one 0.5 s window to the next (measured
    147.8, 140.2, 131.8, 125.5 J above rest) and the pack takes out at least 10 % of the
    oscillation's energy (measured 19.6 %)."""
    history, resting = free_oscillation(vehicle(friction=0.0), 2.0)
    t, energy = history.T
    oscillation = energy[0] - resting
    assert oscillation > 50.0
    assert abs(energy[t > 1.5].mean() - energy[t < 0.5].mean()) < 0.01 * oscillation
    history, resting = free_oscillation(vehicle(friction=0.2), 2.0)
    t, lossy = history.T
    windows = [lossy[(t >= a) & (t < a + 0.5)].mean() for a in (0.0, 0.5, 1.0, 1.5)]
    assert np.all(np.diff(windows) < 0)
    assert lossy[0] - lossy[-1] > 0.10 * (lossy[0] - resting)
