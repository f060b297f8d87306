"""The lookup-table functions of VehicleRTM.Tables and the axle functions that read several maps in one
located cell (Suspensions.axleKinematics, axleCompliance), evaluated by rumoca on a small grid:

- interp2, its slopes and interp1 against a NumPy bilinear/linear reference, inside and outside the
  grid, clamped and extrapolated;
- the one-search axle functions give exactly what the per-map functions give (interp2, travelDerivative,
  interp1 with linear extrapolation), so moving the RTM onto them changed no result.
"""
from __future__ import annotations

import numpy as np
import pytest

U1 = [-0.1, -0.03, 0.02, 0.1]          # non-uniform on purpose: the cell search must not assume a spacing
U2 = [-0.05, 0.0, 0.04]
RNG = np.random.default_rng(7)
MAPS = {name: RNG.normal(size=(len(U1), len(U2))) for name in
        ("tx", "ty", "toe", "camber", "caster", "springLength", "damperLength", "bumpStopLength",
         "reboundStopLength", "antiRollBarLength")}
FORCE = [-4000.0, -1000.0, 0.0, 1500.0, 5000.0]
MOMENT = [-300.0, 0.0, 200.0]
ROWS = [f"{o}{load}{whose}" for o in ("tx", "ty", "toe", "camber") for load in ("Fx", "Fy", "Mz")
        for whose in ("Own", "Opposite")]
COMPLIANCE = {row: RNG.normal(size=len(MOMENT if "Mz" in row else FORCE)) for row in ROWS}
STOP = 40.0                             # one output per second: 41 points per signal


def _array(values) -> str:
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        return "{" + ", ".join(repr(float(v)) for v in values) + "}"
    return "{" + ", ".join(_array(row) for row in values) + "}"


def _c1(t):
    return -0.15 + 0.0075 * t          # from below the first breakpoint to above the last


def _c2(t):
    return 0.07 - 0.0035 * t


def harness() -> str:
    maps = "\n".join(f"  parameter Real {k}Map[{len(U1)}, {len(U2)}] = {_array(v)};" for k, v in MAPS.items())
    rows = "\n".join(f"  parameter Real {k}[{len(COMPLIANCE[k])}] = {_array(v)};" for k, v in COMPLIANCE.items())
    kin_args = ", ".join(["gridU1", "gridU2", *(f"{k}Map" for k in MAPS)])
    comp_args = ", ".join(["forceGrid", "momentGrid", *ROWS])
    return f"""
model TablesHarness
  parameter Real gridU1[{len(U1)}] = {_array(U1)};
  parameter Real gridU2[{len(U2)}] = {_array(U2)};
{maps}
  parameter Real forceGrid[{len(FORCE)}] = {_array(FORCE)};
  parameter Real momentGrid[{len(MOMENT)}] = {_array(MOMENT)};
{rows}
  parameter Real dc1ds[2, 2] = {{{{0.5, 0.5}}, {{0.5, 0.5}}}};
  parameter Real dc2ds[2, 2] = {{{{0.5, -0.5}}, {{-0.5, 0.5}}}};
  Real clock(start = 0, fixed = true);
  Real c1[2] = {{-0.15 + 0.0075*time, 0.02 - 0.001*time}};
  Real c2[2] = {{0.07 - 0.0035*time, -0.01 + 0.0005*time}};
  Real fx[2] = {{-6000 + 300*time, 800 - 20*time}};
  Real fy[2] = {{3000 - 200*time, -100*time}};
  Real mz[2] = {{-400 + 25*time, 10*time - 150}};
  Real value, valueClamped, slope1, slope2, slope1Clamped, linear, linearClamped, perMapDerivative[2];
  Real tx[2], ty[2], toe[2], camber[2], caster[2], springLength[2], damperLength[2], bumpLength[2],
    reboundLength[2], antiRollBarLength[2], dtxds[2, 2], dtyds[2, 2], ddamperds[2, 2], dbumpds[2, 2],
    dreboundds[2, 2];
  Real complianceTx[2], complianceTy[2], complianceToe[2], complianceCamber[2], perMapToe;
equation
  der(clock) = 1;
  value = VehicleRTM.Tables.interp2(gridU1, gridU2, toeMap, c1[1], c2[1], true);
  valueClamped = VehicleRTM.Tables.interp2(gridU1, gridU2, toeMap, c1[1], c2[1], false);
  slope1 = VehicleRTM.Tables.interp2SlopeX(gridU1, gridU2, toeMap, c1[1], c2[1], true);
  slope2 = VehicleRTM.Tables.interp2SlopeY(gridU1, gridU2, toeMap, c1[1], c2[1], true);
  slope1Clamped = VehicleRTM.Tables.interp2SlopeX(gridU1, gridU2, toeMap, c1[1], c2[1], false);
  linear = VehicleRTM.Tables.interp1(forceGrid, txFxOwn, fx[1], true);
  linearClamped = VehicleRTM.Tables.interp1(forceGrid, txFxOwn, fx[1], false);
  for j in 1:2 loop
    perMapDerivative[j] = VehicleRTM.Suspensions.travelDerivative(gridU1, gridU2, damperLengthMap, c1[1], c2[1],
      dc1ds[1, j], dc2ds[1, j], true);
  end for;
  (tx, ty, toe, camber, caster, springLength, damperLength, bumpLength, reboundLength, antiRollBarLength,
    dtxds, dtyds, ddamperds, dbumpds, dreboundds) = VehicleRTM.Suspensions.axleKinematics({kin_args}, true,
    c1, c2, dc1ds, dc2ds);
  (complianceTx, complianceTy, complianceToe, complianceCamber) = VehicleRTM.Suspensions.axleCompliance(
    {comp_args}, fx, fy, mz);
  perMapToe = VehicleRTM.Tables.interp1(forceGrid, toeFxOwn, fx[2], true)
    + VehicleRTM.Tables.interp1(forceGrid, toeFyOwn, -fy[2], true)
    + VehicleRTM.Tables.interp1(momentGrid, toeMzOwn, -mz[2], true)
    + VehicleRTM.Tables.interp1(forceGrid, toeFxOpposite, fx[1], true)
    + VehicleRTM.Tables.interp1(forceGrid, toeFyOpposite, -fy[1], true)
    + VehicleRTM.Tables.interp1(momentGrid, toeMzOpposite, -mz[1], true);
end TablesHarness;
"""


@pytest.fixture(scope="module")
def result(compile_source):
    model = compile_source(harness(), "TablesHarness")
    return model.simulate(t=(0.0, STOP), dt=1.0)


def _series(result, name):
    return np.asarray(result[name], dtype=float)


def _locate(x, u):
    return np.clip(np.searchsorted(x, u, side="right") - 1, 0, len(x) - 2)


def bilinear(x1, x2, y, u1, u2, clamp):
    """Value and both slopes of the bilinear interpolant (NumPy reference)."""
    x1, x2 = np.asarray(x1), np.asarray(x2)
    c1 = np.clip(u1, x1[0], x1[-1]) if clamp else u1
    c2 = np.clip(u2, x2[0], x2[-1]) if clamp else u2
    i, j = _locate(x1, c1), _locate(x2, c2)
    h1, h2 = x1[i + 1] - x1[i], x2[j + 1] - x2[j]
    a, b = (c1 - x1[i]) / h1, (c2 - x2[j]) / h2
    y00, y10, y01, y11 = y[i, j], y[i + 1, j], y[i, j + 1], y[i + 1, j + 1]
    value = (1 - a) * (1 - b) * y00 + a * (1 - b) * y10 + (1 - a) * b * y01 + a * b * y11
    s1 = ((1 - b) * (y10 - y00) + b * (y11 - y01)) / h1
    s2 = ((1 - a) * (y01 - y00) + a * (y11 - y10)) / h2
    if clamp:
        s1 = np.where((u1 < x1[0]) | (u1 > x1[-1]), 0.0, s1)
        s2 = np.where((u2 < x2[0]) | (u2 > x2[-1]), 0.0, s2)
    return value, s1, s2


def linear(x, y, u, clamp):
    x, y = np.asarray(x), np.asarray(y)
    c = np.clip(u, x[0], x[-1]) if clamp else u
    i = _locate(x, c)
    return y[i] + (y[i + 1] - y[i]) * (c - x[i]) / (x[i + 1] - x[i])


def test_interpolation_matches_a_numpy_reference_inside_and_outside_the_grid(result):
    t = _series(result, "time")
    c1, c2 = _c1(t), _c2(t)
    assert c1.min() < U1[0] and c1.max() > U1[-1] and c2.min() < U2[0] and c2.max() > U2[-1]
    value, s1, s2 = bilinear(U1, U2, MAPS["toe"], c1, c2, clamp=False)
    clamped, s1_clamped, _ = bilinear(U1, U2, MAPS["toe"], c1, c2, clamp=True)
    for name, want in (("value", value), ("slope1", s1), ("slope2", s2), ("valueClamped", clamped),
                       ("slope1Clamped", s1_clamped)):
        np.testing.assert_allclose(_series(result, name), want, rtol=1e-12, atol=1e-12, err_msg=name)
    assert np.any(_series(result, "slope1Clamped") == 0) and np.any(_series(result, "slope1Clamped") != 0)
    fx = -6000 + 300 * t
    np.testing.assert_allclose(_series(result, "linear"), linear(FORCE, COMPLIANCE["txFxOwn"], fx, False),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_series(result, "linearClamped"), linear(FORCE, COMPLIANCE["txFxOwn"], fx, True),
                               rtol=1e-12, atol=1e-12)


def test_axle_kinematics_reads_every_map_as_the_per_map_functions_do(result):
    """One search per wheel, the same numbers: each map's value and travel derivatives, both wheels."""
    t = _series(result, "time")
    c1 = np.stack([_c1(t), 0.02 - 0.001 * t])
    c2 = np.stack([_c2(t), -0.01 + 0.0005 * t])
    dc1ds = np.array([[0.5, 0.5], [0.5, 0.5]])
    dc2ds = np.array([[0.5, -0.5], [-0.5, 0.5]])
    outputs = {"tx": "tx", "ty": "ty", "toe": "toe", "camber": "camber", "caster": "caster",
               "springLength": "springLength", "damperLength": "damperLength", "bumpStopLength": "bumpLength",
               "reboundStopLength": "reboundLength", "antiRollBarLength": "antiRollBarLength"}
    derivatives = {"tx": "dtxds", "ty": "dtyds", "damperLength": "ddamperds", "bumpStopLength": "dbumpds",
                   "reboundStopLength": "dreboundds"}
    for w in range(2):
        for table, name in outputs.items():
            want, s1, s2 = bilinear(U1, U2, MAPS[table], c1[w], c2[w], clamp=False)
            np.testing.assert_allclose(_series(result, f"{name}[{w + 1}]"), want, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name}[{w + 1}]")
            if table in derivatives:
                for j in range(2):
                    np.testing.assert_allclose(_series(result, f"{derivatives[table]}[{w + 1},{j + 1}]"),
                                               s1 * dc1ds[w, j] + s2 * dc2ds[w, j], rtol=1e-12, atol=1e-12)
    for j in range(2):   # and exactly the per-map function's result
        assert np.array_equal(_series(result, f"ddamperds[1,{j + 1}]"), _series(result, f"perMapDerivative[{j + 1}]"))


def test_axle_compliance_superposes_the_six_loads_in_each_wheels_mirrored_frame(result):
    """The right wheel (2) sees Fy and Mz mirrored; its opposite wheel is the left one."""
    t = _series(result, "time")
    assert np.array_equal(_series(result, "complianceToe[2]"), _series(result, "perMapToe"))
    fx = np.stack([-6000 + 300 * t, 800 - 20 * t])
    fy = np.stack([3000 - 200 * t, -100 * t])
    mz = np.stack([-400 + 25 * t, 10 * t - 150])
    side = (1.0, -1.0)
    for w in range(2):
        own = (fx[w], side[w] * fy[w], side[w] * mz[w])
        opposite = (fx[1 - w], side[w] * fy[1 - w], side[w] * mz[1 - w])
        for out in ("tx", "ty", "toe", "camber"):
            want = sum(linear(MOMENT if load == "Mz" else FORCE, COMPLIANCE[f"{out}{load}{whose}"], loads[k], False)
                       for whose, loads in (("Own", own), ("Opposite", opposite))
                       for k, load in enumerate(("Fx", "Fy", "Mz")))
            name = f"compliance{out[0].upper()}{out[1:]}[{w + 1}]"
            np.testing.assert_allclose(_series(result, name), want, rtol=1e-12, atol=1e-12, err_msg=name)
