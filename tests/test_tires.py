"""VehicleRTM.Tires against an independent Python Magic Formula, plus physics checks.

The reference (tests/mf_reference.py) is written from the PAC2002 / MF 5.2 and MF 6.1 equations (Pacejka, Tire and
Vehicle Dynamics; the list in VehicleRTM.Tires.combinedSlip's documentation), reads the real .tir
through pybridge.mbm.tir, and is compared with the Modelica functions evaluated by rumoca. Each
rumoca compile costs about a second, so every harness batches many points into one model.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mf_reference import coefficients, reference, relaxation, rolling_radius

TIRE_RECORD = "VehicleRTM.Data.Tires.UAZBUS_225_75R16"

# MF 6.1 variant of the UAZ data, exercising every MF 6.1 branch (values are made up but sane)
MF61_MODS = dict(
    mfVersion=61, INFLPRES=2.6e5, NOMPRES=2.4e5, PPX1=-0.3, PPX2=0.1, PPX3=-0.05, PPX4=0.02,
    PPY1=-0.4, PPY2=0.5, PPY3=-0.1, PPY4=0.05, PPY5=0.2, PKY4=2.1, PKY5=0.3, PKY6=-0.9, PKY7=-0.2,
    PEY5=0.5, RBX3=1.5, RBY4=2.0, QDZ10=0.1, QDZ11=0.05, PPZ1=0.3, PPZ2=0.2, LKYC=0.9, LKZC=1.1,
    QSY5=0.001, QSY6=0.002, QSY7=0.85, QSY8=-0.4, LONGITUDINAL_STIFFNESS=3.0e5,
    LATERAL_STIFFNESS=1.5e5, PCFX1=0.1, PCFX2=0.01, PCFX3=0.2, PCFY1=0.15, PCFY2=0.02, PCFY3=0.25,
)


# ------------------------------------------------------------------------------------------
# Harness helpers
# ------------------------------------------------------------------------------------------

GRID = list(itertools.product([2000.0, 4000.0, 7000.0], [-0.1, 0.02, 0.15], [-0.1, 0.03, 0.2], [0.0, 0.05]))
EDGE = [(0.0, 0.1, 0.1, 0.05, 0.0), (4000.0, 0.0, 0.0, 0.0, 0.0), (12000.0, 2.0, -2.0, 0.4, -5.0),
        (4000.0, -1.0, 0.0, -0.05, 0.3), (300.0, 0.3, -0.3, -0.05, 30.0)]
OUTPUTS = ("Fx", "Fy", "Mz", "My", "Mx")
NAMES = ("Fz", "kappa", "alpha", "gamma", "vx")


def _modifiers(mods: dict) -> str:
    return "(" + ", ".join(f"{k} = {v!r}" for k, v in mods.items()) + ")" if mods else ""


def grid_harness(name: str, points, mods: dict | None = None) -> str:
    """A model that evaluates combinedSlip and the helper functions at point ``i`` at time ``i``.

    The points enter as tables interpolated at integer times (exact there), so one small model
    covers every point: rumoca's simulation cost grows with the number of algebraic variables,
    not with the number of output points. A clock state keeps rumoca on its fast ODE path.
    """
    rows = list(points) + [points[-1]]          # sentinel: the last real point is not an end point
    n = len(rows)

    def table(j):
        return "{" + ", ".join(repr(float(r[j])) for r in rows) + "}"

    lines = [f"model {name}", f"  parameter {TIRE_RECORD} c{_modifiers(mods or {})};",
             "  parameter Real idx[" + str(n) + "] = {" + ", ".join(f"{i}.0" for i in range(n)) + "};"]
    for j, var in enumerate(NAMES):
        lines.append(f"  parameter Real {var}P[{n}] = {table(j)};")
        lines.append(f"  Real {var} = VehicleRTM.Tables.interp1(idx, {var}P, time);")
    lines.append("  Real " + ", ".join(OUTPUTS + ("Re", "sk", "sa", "Kxk", "Kya")) + ";")
    lines.append("  Real clock(start = 0, fixed = true);")
    eqs = ["  der(clock) = 1;",
           f"  ({', '.join(OUTPUTS)}) = VehicleRTM.Tires.combinedSlip(Fz, kappa, alpha, gamma, vx, c);",
           "  Re = VehicleRTM.Tires.effectiveRollingRadius(Fz, c);",
           "  (sk, sa) = VehicleRTM.Tires.relaxationLengths(Fz, gamma, c);",
           "  (Kxk, Kya) = VehicleRTM.Tires.slipStiffnesses(Fz, gamma, c);"]
    return "\n".join(lines + ["equation"] + eqs + [f"end {name};", ""])


def final(result, name: str) -> float:
    return float(np.asarray(result[name])[-1])


def run_grid(model, points):
    result = model.simulate(t=(0.0, float(len(points) - 1)), dt=1.0)
    assert np.array_equal(np.asarray(result.time), np.arange(len(points), dtype=float))
    for j, var in enumerate(NAMES):           # the interpolated inputs are the points, exactly
        assert np.array_equal(np.asarray(result[var]), np.array([pt[j] for pt in points], dtype=float))
    return result


def assert_matches(result, points, p):
    worst = 0.0
    for i, (Fz, k, a, g, vx) in enumerate(points):
        ref = reference(p, Fz, k, a, g, vx)
        sk, sa = relaxation(p, Fz, g)
        stiff = reference(p, Fz, 0.0, 0.0, g, vx)
        expected = {**{o: ref[o] for o in OUTPUTS}, "Re": rolling_radius(p, Fz), "sk": sk, "sa": sa,
                    "Kxk": stiff["Kxk"], "Kya": stiff["Kya"]}
        for key, want in expected.items():
            got = float(np.asarray(result[key])[i])
            assert math.isfinite(got), f"{key} at point {i} {points[i]} is not finite"
            err = abs(got - want) / max(abs(want), 1e-3)
            worst = max(worst, err)
            assert err <= 1e-6, f"{key} at {points[i]}: Modelica {got!r} vs reference {want!r}"
    return worst


# ------------------------------------------------------------------------------------------
# Agreement with the reference
# ------------------------------------------------------------------------------------------

def test_reference_reads_the_tir_values():
    p = coefficients()
    assert p["PKY1"] == -19.797 and p["LFZO"] == 1.449275362 and p["LCZ"] == 1.0
    # zero load and zero speed give exact zeros, no NaN
    r = reference(p, 0.0, 0.1, 0.1, 0.05, 0.0)
    assert all(r[o] == 0.0 for o in OUTPUTS)


def test_combined_slip_matches_reference_mf52(compile_source):
    points = [(Fz, k, a, g, 16.6) for Fz, k, a, g in GRID] + EDGE
    result = run_grid(compile_source(grid_harness("GridMF52", points), "GridMF52"), points)
    worst = assert_matches(result, points, coefficients())
    print(f"MF 5.2: {len(points)} points, worst relative deviation {worst:.2e}")


def test_combined_slip_matches_reference_mf61(compile_source):
    points = [(Fz, k, a, g, 16.6) for Fz, k, a, g in GRID[::3]] + EDGE
    result = run_grid(compile_source(grid_harness("GridMF61", points, MF61_MODS), "GridMF61"), points)
    p = coefficients(**MF61_MODS)
    worst = assert_matches(result, points, p)
    print(f"MF 6.1: {len(points)} points, worst relative deviation {worst:.2e}")
    # the MF 6.1 branches matter: the 5.2 equations give other forces at the same points
    p52 = coefficients()
    assert abs(reference(p, 4000, 0.02, 0.03, 0.05, 16.6)["Fy"] - reference(p52, 4000, 0.02, 0.03, 0.05, 16.6)["Fy"]) > 50


# ------------------------------------------------------------------------------------------
# Physics checks on the Modelica functions
# ------------------------------------------------------------------------------------------

SWEEP = """
model Sweep
  parameter VehicleRTM.Data.Tires.UAZBUS_225_75R16 c;
  parameter VehicleRTM.Data.Tires.LCV7t_225_75R16C lcv;
  Real k = -0.6 + 1.2*time "kappa sweep";
  Real a = -0.3 + 0.6*time "alpha sweep";
  Real Fx_k, Fy_k, Mz_k, My_k, Mx_k "kappa sweep at alpha = 0, gamma = 0";
  Real Fx_a, Fy_a, Mz_a, My_a, Mx_a "alpha sweep at kappa = 0, gamma = 0";
  Real Fx_ka, Fy_ka, Mz_ka, My_ka, Mx_ka "kappa sweep at alpha = 0.05";
  Real Fx_ak, Fy_ak, Mz_ak, My_ak, Mx_ak "alpha sweep at kappa = 0.1";
  Real Fx_p, Fy_p, Mz_p, My_p, Mx_p "alpha = +1e-4";
  Real Fx_m, Fy_m, Mz_m, My_m, Mx_m "alpha = -1e-4";
  Real Fx_l, Fy_l, Mz_l, My_l, Mx_l "LCV tyre at 5755/4000 times the load, kappa sweep";
  Real Fx_u, Fy_u, Mz_u, My_u, Mx_u "UAZ tyre, kappa sweep";
  Real clock(start = 0, fixed = true) "keeps rumoca on its fast ODE path";
equation
  der(clock) = 1;
  (Fx_k, Fy_k, Mz_k, My_k, Mx_k) = VehicleRTM.Tires.combinedSlip(4000, k, 0, 0, 16.6, c);
  (Fx_a, Fy_a, Mz_a, My_a, Mx_a) = VehicleRTM.Tires.combinedSlip(4000, 0, a, 0, 16.6, c);
  (Fx_ka, Fy_ka, Mz_ka, My_ka, Mx_ka) = VehicleRTM.Tires.combinedSlip(4000, k, 0.05, 0, 16.6, c);
  (Fx_ak, Fy_ak, Mz_ak, My_ak, Mx_ak) = VehicleRTM.Tires.combinedSlip(4000, 0.1, a, 0, 16.6, c);
  (Fx_p, Fy_p, Mz_p, My_p, Mx_p) = VehicleRTM.Tires.combinedSlip(4000, 0, 1e-4 + SHy, 0, 16.6, c);
  (Fx_m, Fy_m, Mz_m, My_m, Mx_m) = VehicleRTM.Tires.combinedSlip(4000, 0, -1e-4 + SHy, 0, 16.6, c);
  (Fx_l, Fy_l, Mz_l, My_l, Mx_l) = VehicleRTM.Tires.combinedSlip(5755, k, 0.03, 0.02, 16.6, lcv);
  (Fx_u, Fy_u, Mz_u, My_u, Mx_u) = VehicleRTM.Tires.combinedSlip(4000, k, 0.03, 0.02, 16.6, c);
end Sweep;
"""


@pytest.fixture(scope="module")
def sweep(compile_source):
    """The Sweep harness, compiled once for the physics checks."""
    shy = reference(coefficients(), 4000.0, 0.0, 0.0, 0.0, 16.6)["SHy"]
    model = compile_source(SWEEP.replace("SHy", f"({-shy!r})"), "Sweep")
    result = model.simulate(t=(0.0, 1.0), dt=1e-3)
    return {name: np.asarray(result[name]) for name in result.names}


def test_fy_opposes_sliding(sweep):
    """ISO: alpha > 0 means the contact point slides left (vy > 0), so Fy must push right (< 0)."""
    a, fy = sweep["a"], sweep["Fy_a"]
    away = np.abs(a) > 0.01
    assert np.all(fy[away] * a[away] < 0)
    assert np.all(sweep["Fy_ak"][away] * a[away] < 0)


def test_fx_positive_in_traction(sweep):
    k, fx = sweep["k"], sweep["Fx_k"]
    away = np.abs(k) > 0.005
    assert np.all(fx[away] * k[away] > 0)
    assert np.all(sweep["Fx_ka"][away] * k[away] > 0)


def test_cornering_stiffness_matches_analytic_kya(sweep):
    p = coefficients()
    Fz, Fz0 = 4000.0, p["FNOMIN"]
    kya = (p["PKY1"] * Fz0 * math.sin(2 * math.atan(Fz / (p["PKY2"] * Fz0 * p["LFZO"])))
           * (1 - p["PKY3"] * 0.0) * p["LFZO"] * p["LKY"])
    slope = (final(sweep, "Fy_p") - final(sweep, "Fy_m")) / 2e-4
    assert slope == pytest.approx(kya, rel=1e-5)
    assert kya == pytest.approx(-76717.14, rel=1e-6)


def test_peak_forces_are_the_d_factors(sweep):
    r = reference(coefficients(), 4000.0, 0.0, 0.0, 0.0, 16.6)
    assert sweep["Fx_k"].max() == pytest.approx(r["Dx"] + r["SVx"], rel=1e-4)
    assert sweep["Fx_k"].min() == pytest.approx(-r["Dx"] + r["SVx"], rel=1e-4)
    assert sweep["Fy_a"].min() == pytest.approx(-r["Dy"] + r["SVy"], rel=1e-4)
    assert sweep["Fy_a"].max() == pytest.approx(r["Dy"] + r["SVy"], rel=1e-4)


def test_combined_slip_reduces_the_forces(sweep):
    k, fy = sweep["k"], np.abs(sweep["Fy_ka"])
    fy_pure = abs(reference(coefficients(), 4000.0, 0.0, 0.05, 0.0, 16.6)["Fy"])
    for side in (k > 0, k < 0):
        mask = side & (np.abs(k) >= 0.05)
        assert np.all(fy[mask] < 0.97 * fy_pure)
        ordered = fy[mask][np.argsort(np.abs(k[mask]))]
        assert np.all(np.diff(ordered) < 0), "|Fy| must fall as |kappa| grows"
    a, fx = sweep["a"], sweep["Fx_ak"]
    fx_pure = reference(coefficients(), 4000.0, 0.1, 0.0, 0.0, 16.6)["Fx"]
    assert np.all(fx[np.abs(a) >= 0.1] < 0.95 * fx_pure)
    for side in (a > 0.02, a < -0.02):             # beyond the shift RHX1 = 0.0088 rad
        ordered = fx[side][np.argsort(np.abs(a[side]))]
        assert np.all(np.diff(ordered) < 0), "Fx must fall as |alpha| grows"


def test_aligning_moment_restores(sweep):
    """At small slip angles the aligning moment turns the wheel towards its velocity: Mz*alpha > 0."""
    a, mz = sweep["a"], sweep["Mz_a"]
    small = (np.abs(a) > 0.01) & (np.abs(a) < 0.08)
    assert np.all(mz[small] * a[small] > 0)


def test_lcv_tyre_is_the_uaz_tyre_scaled_by_its_load_class(sweep):
    """The derived 7 t record is the UAZ tyre by similarity (FNOMIN 4000 -> 5755 N, same size): its forces
    and moments at 5755/4000 times the load are 5755/4000 times the UAZ ones at the same slips."""
    s = 5755 / 4000
    np.testing.assert_allclose(sweep["Fx_l"], s * sweep["Fx_u"], rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(sweep["Fy_l"], s * sweep["Fy_u"], rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(sweep["Mz_l"], s * sweep["Mz_u"], rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(sweep["My_l"], s * sweep["My_u"], rtol=1e-9)


# ------------------------------------------------------------------------------------------
# Tire model
# ------------------------------------------------------------------------------------------

# (Fz, vx, vy, omega_factor, gamma): omega = omega_factor*vx/Re, or omega_factor itself when vx = 0
TIRE_CASES = [(4000.0, 20.0, -0.5, 1.05, 0.02), (6500.0, 15.0, 0.8, 0.9, -0.03),
              (2500.0, -5.0, 0.2, 0.95, 0.0), (3000.0, 30.0, 0.05, 1.0, 0.0)]


def tire_harness() -> str:
    lines = ["model TireSteady"]
    eqs = []
    for i, (Fz, vx, vy, f, g) in enumerate(TIRE_CASES):
        lines.append(f"  VehicleRTM.Tires.Tire t{i}(redeclare {TIRE_RECORD} c, roadFriction = 1);")
        eqs += [f"  t{i}.Fz = {Fz!r};", f"  t{i}.vx = {vx!r};", f"  t{i}.vy = {vy!r};",
                f"  t{i}.omega = {f!r}*({vx!r})/t{i}.Re;", f"  t{i}.gamma = {g!r};"]
    lines += [f"  VehicleRTM.Tires.Tire still(redeclare {TIRE_RECORD} c, roadFriction = 1);",
              f"  VehicleRTM.Tires.Tire lifted(redeclare {TIRE_RECORD} c, roadFriction = 1);",
              f"  VehicleRTM.Tires.Tire spin(redeclare {TIRE_RECORD} c, roadFriction = 1);"]
    eqs += ["  still.Fz = 4000;", "  still.vx = 0;", "  still.vy = 0;", "  still.omega = 0;", "  still.gamma = 0;",
            "  lifted.Fz = 0;", "  lifted.vx = 10;", "  lifted.vy = 1;", "  lifted.omega = 20;", "  lifted.gamma = 0;",
            "  spin.Fz = 4000;", "  spin.vx = 0;", "  spin.vy = 0;", "  spin.omega = 0.01;", "  spin.gamma = 0;"]
    return "\n".join(lines + ["equation"] + eqs + ["end TireSteady;", ""])


def test_tire_model_balanced_and_steady_state(compile_source):
    m = compile_source(tire_harness(), "TireSteady")
    assert m.structure().is_balanced
    result = m.simulate(t=(0.0, 3.0), dt=0.01)
    p = coefficients()
    for i, (Fz, vx, vy, f, g) in enumerate(TIRE_CASES):
        re = rolling_radius(p, Fz)
        kappa = (f * vx - vx) / abs(vx)            # (omega*Re - vx)/|vx|
        alpha = math.atan(vy / abs(vx))
        assert final(result, f"t{i}.Re") == pytest.approx(re, rel=1e-12)
        assert final(result, f"t{i}.kappa") == pytest.approx(kappa, rel=1e-6, abs=1e-9)
        assert final(result, f"t{i}.alpha") == pytest.approx(alpha, rel=1e-6, abs=1e-9)
        # linear range: alpha is the small-angle vy/|vx| (|vy/vx| < 0.055 here, so within 0.1 %)
        assert final(result, f"t{i}.alpha") == pytest.approx(vy / abs(vx), rel=1e-3)
        ref = reference(p, Fz, kappa, alpha, g, vx)
        for o in OUTPUTS:
            assert final(result, f"t{i}.{o}") == pytest.approx(ref[o], rel=1e-5, abs=1e-3), (i, o)
        assert np.sign(final(result, f"t{i}.Fy")) == -np.sign(vy)
        if kappa != 0:
            assert np.sign(final(result, f"t{i}.Fx")) == np.sign(kappa)
    # standstill: the slips stay 0 and the forces are the offsets of the shifts; no NaN
    ref = reference(p, 4000.0, 0.0, 0.0, 0.0, 0.0)
    assert final(result, "still.kappa") == 0.0 and final(result, "still.alpha") == 0.0
    for o in OUTPUTS:
        assert final(result, f"still.{o}") == pytest.approx(ref[o], rel=1e-9, abs=1e-9)
    assert final(result, "still.My") == 0.0
    # lifted wheel: no load, no force, the slips stay finite
    for o in OUTPUTS:
        assert final(result, f"lifted.{o}") == pytest.approx(0.0, abs=1e-9)
    assert math.isfinite(final(result, "lifted.kappa")) and math.isfinite(final(result, "lifted.alpha"))
    # a slowly turning wheel at standstill winds up the tread: Fx grows like a spring
    fx = np.asarray(result["spin.Fx"])
    assert np.all(np.isfinite(fx)) and fx[-1] > 0 and np.all(np.diff(fx) >= 0)


def test_example_slip_sweep_is_quasi_static():
    from fmu_build.modelica import simulate_example

    result = simulate_example("VehicleRTM.Examples.TireSlipSweep")
    p = coefficients()
    t = np.asarray(result.time)
    for name in ("tireAlpha", "tireKappa", "tireCombined"):
        for o in ("Fx", "Fy"):
            assert np.all(np.isfinite(np.asarray(result[f"{name}.{o}"])))
    late = t > 0.5
    # the relaxed slips follow the slow ramps closely ...
    alpha, kappa = np.asarray(result["tireAlpha.alpha"]), np.asarray(result["tireKappa.kappa"])
    assert np.max(np.abs(alpha - np.asarray(result["alphaCmd"]))[late]) < 2e-3
    # first-order lag of a ramp: tau*rate with tau = sigmaKappa/v
    lag = np.asarray(result["kappaCmd"]) - kappa
    expected_lag = relaxation(p, 4000.0, 0.0)[0] / 20.0 * (2 * 0.3 / 10.0)
    np.testing.assert_allclose(lag[late], expected_lag, rtol=1e-3)
    # ... and the forces are the steady-state characteristic at the relaxed slips
    fy = np.asarray(result["tireAlpha.Fy"])
    ref = np.array([reference(p, 4000.0, 0.0, a, 0.0, 20.0)["Fy"] for a in alpha])
    np.testing.assert_allclose(fy, ref, rtol=1e-6, atol=1e-6)
    fx = np.asarray(result["tireKappa.Fx"])
    ref = np.array([reference(p, 4000.0, k, 0.0, 0.0, 20.0)["Fx"] for k in kappa])
    np.testing.assert_allclose(fx, ref, rtol=1e-6, atol=1e-6)
    # combined slip: |Fy| at alpha = 0.05 is largest near kappa = 0
    fyc = np.abs(np.asarray(result["tireCombined.Fy"]))
    kc = np.asarray(result["tireCombined.kappa"])
    assert fyc[late][np.argmax(fyc[late])] > fyc[late][np.argmax(np.abs(kc[late]))]
    assert abs(kc[late][np.argmax(fyc[late])]) < 0.05
