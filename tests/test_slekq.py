"""SLEKQ quarter-car, its corner functions, the K&C rig and the four-post model (Hall et al. 2013).

The Python functions at the top are an independent numpy implementation of the corner equations
(Eq. 1 damper with Bezier blends, Eq. 2 spring, kinematic path, strut length) that the Modelica
results are checked against.
"""
from __future__ import annotations

import time

import numpy as np
import pytest
from scipy.optimize import brentq

from fmu_build.modelica import load_model, simulate_example

G = 9.81

# ---------------------------------------------------------------------------------------------
# Reference implementation (numpy) of the corner records and functions
# ---------------------------------------------------------------------------------------------
LINEAR = dict(xPath1=0, xPath2=0, xPath3=0, yPath1=0, yPath2=0, yPath3=0,
              toe0=0, toe1=0, toe2=0, toe3=0, camber0=0, camber1=0, camber2=0, camber3=0,
              rotY0=0, rotY1=0, rotY2=0, rotY3=0, rUpper=(0, 0, 0.5), rLower=(0, 0, 0),
              k0=0, k1=30000, k2=0, k3=0, freeLength=0.64715, d1=1500, d2=0.1, d3=1500, d4=1500,
              d5=0.1, d6=1500, blend=0.01, mUnsprung=45, mSprung=450, cTyre=250000, dTyre=100)
MACPHERSON = dict(LINEAR, xPath1=-0.02, xPath2=-0.3, yPath1=0.04, yPath2=-0.9,
                  toe0=0.0017, toe1=-0.06, toe2=-0.6, camber0=-0.0087, camber1=-0.22, camber2=-0.9,
                  rotY1=0.06, rUpper=(-0.03, -0.17, 0.74), rLower=(0.0, -0.10, 0.19),
                  k1=29000, k3=1.2e5, freeLength=0.7188453,
                  d1=1800, d2=0.10, d3=700, d4=4200, d5=0.13, d6=1600, blend=0.01,
                  mUnsprung=48, mSprung=520, cTyre=240000, dTyre=150)
SEMI_TRAILING_ARM = dict(LINEAR, xPath1=-0.11, xPath2=1.1, yPath1=-0.02, yPath2=-0.5,
                         toe0=0.0026, toe1=0.05, toe2=0.4, camber0=-0.0175, camber1=-0.45,
                         camber2=-1.5, rotY1=2.2, rUpper=(0.24, -0.28, 0.40),
                         rLower=(0.10, -0.12, -0.04), k1=90000, k3=2.0e5, freeLength=0.5732553,
                         d1=3000, d2=0.08, d3=1200, d4=7500, d5=0.10, d6=2800, blend=0.01,
                         mUnsprung=52, mSprung=470, cTyre=250000, dTyre=150)
SUV_FRONT = dict(MACPHERSON, mUnsprung=59.1)
SUV_REAR = dict(SEMI_TRAILING_ARM, mUnsprung=64.1)
SUV_BODY = dict(m=1980.0, Ixx=680.0, Iyy=2900.0, wheelbase=2.80, a=1.329293)


def damper(v, d):
    """Eq. 1 (first branch written continuous) with quadratic Bezier blends of half-width h."""
    d1, d2, d3, d4, d5, d6 = (d[k] for k in ("d1", "d2", "d3", "d4", "d5", "d6"))
    if v < -d2:
        f = d1 * d2 - d3 * (v + d2)
    elif v < 0:
        f = -d1 * v
    elif v < d5:
        f = -d4 * v
    else:
        f = -d4 * d5 - d6 * (v - d5)
    h = min(d["blend"], 0.5 * min(d2, d5))
    if h > 0:
        if abs(v + d2) < h:
            f = d1 * d2 - d3 * (v + d2) + (d3 - d1) * (v + d2 + h) ** 2 / (4 * h)
        elif abs(v) < h:
            f = -d1 * v + (d1 - d4) * (v + h) ** 2 / (4 * h)
        elif abs(v - d5) < h:
            f = -d4 * v + (d4 - d6) * (v - d5 + h) ** 2 / (4 * h)
    return f


def spring(dl, d):
    return ((d["k3"] * dl + d["k2"]) * dl + d["k1"]) * dl + d["k0"]


def _poly(c, z):
    return sum(ci * z ** i for i, ci in enumerate(c))


def _rotation(z, d, side):
    toe = _poly([d[f"toe{i}"] for i in range(4)], z)
    camber = _poly([d[f"camber{i}"] for i in range(4)], z)
    psi, phi, theta = -side * toe, -side * camber, _poly([d[f"rotY{i}"] for i in range(4)], z)
    c, s = np.cos, np.sin
    rz = np.array([[c(psi), -s(psi), 0], [s(psi), c(psi), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, c(phi), -s(phi)], [0, s(phi), c(phi)]])
    ry = np.array([[c(theta), 0, s(theta)], [0, 1, 0], [-s(theta), 0, c(theta)]])
    return rz @ rx @ ry


def strut_length(z, d, side=1):
    mirror = np.array([1.0, side, 1.0])
    w = np.array([_poly((0, d["xPath1"], d["xPath2"], d["xPath3"]), z),
                  side * _poly((0, d["yPath1"], d["yPath2"], d["yPath3"]), z), z])
    lower = w + _rotation(z, d, side) @ _rotation(0, d, side).T @ (np.array(d["rLower"]) * mirror)
    return float(np.linalg.norm(lower - np.array(d["rUpper"]) * mirror))


def strut_ratio(z, d, side=1, h=1e-6):
    return (strut_length(z + h, d, side) - strut_length(z - h, d, side)) / (2 * h)


def free_length(d, f_sprung, side=1):
    fs = -f_sprung / strut_ratio(0, d, side) - damper(0.0, d)
    return strut_length(0, d, side) + brentq(lambda x: spring(x, d) - fs, -1, 1)


def static_travel(d, f_sprung, l_free, side=1):
    """Travel at rest: f_sprung + (F_spring + F_damper(0)) dL/dz = 0 along the nonlinear path."""
    def residual(z):
        return f_sprung + (spring(l_free - strut_length(z, d, side), d) + damper(0.0, d)) * strut_ratio(z, d, side)
    return brentq(residual, -0.15, 0.15)


def zero_crossing_frequency(t, x):
    """Mean frequency from the upward zero crossings of x (linear interpolation between samples)."""
    x = np.asarray(x)
    idx = np.where((x[:-1] < 0) & (x[1:] >= 0))[0]
    tc = t[idx] - x[idx] * (t[idx + 1] - t[idx]) / (x[idx + 1] - x[idx])
    return (len(tc) - 1) / (tc[-1] - tc[0]), len(tc)


def _rms(x):
    return float(np.sqrt(np.mean(np.square(x))))


def _simulate(model, t_end, dt, **kw):
    start = time.perf_counter()
    result = model.simulate(t=(0.0, t_end), dt=dt, **kw)
    print(f"  simulate {model.name} 0..{t_end}s: {time.perf_counter() - start:.2f} s")
    return result


NO_HOMOTOPY = "{c}.lambda = 0; {c}.GI = 0; {c}.GP = 0; {c}.GD = 0; {c}.zRef = 0; {c}.vRef = 0; {c}.aRef = 0;"

# ---------------------------------------------------------------------------------------------
# Structure
# ---------------------------------------------------------------------------------------------
MODELS = [
    "VehicleRTM.QuarterCars.SLEKQ",
    "VehicleRTM.QuarterCars.KCRig",
    "VehicleRTM.Vehicles.FourPost10DoF",
    "VehicleRTM.Examples.KCSweptSine",
    "VehicleRTM.Examples.QuarterCarFreeVibration",
    "VehicleRTM.Examples.FourPostHeave",
    "VehicleRTM.Examples.FourPostPitch",
]


@pytest.mark.parametrize("name", MODELS)
def test_models_balanced_and_explicit(name):
    start = time.perf_counter()
    structure = load_model(name).structure()
    print(f"  {name}: {structure.n_states} states, compiled in {time.perf_counter() - start:.2f} s")
    assert structure.is_balanced
    # the homotopy acceleration term and the body/corner coupling are solved analytically
    assert structure.n_algebraic_loops == 0


def test_slekq_interface():
    model = load_model("VehicleRTM.QuarterCars.SLEKQ")
    assert set(model.inputs.names) == {"FZ", "aBody", "lambda", "GI", "GP", "GD", "zRef", "vRef", "aRef"}
    assert {"Fspring", "Fdamper", "L", "dLdz", "camber", "toe", "FBody"} <= set(model.outputs.names)
    units = {v.name: v.unit for v in list(model.inputs) + list(model.outputs)}
    assert units["FZ"] == "N" and units["zRef"] == "m" and units["lambda"] == "1" and units["camber"] == "rad"
    four_post = load_model("VehicleRTM.Vehicles.FourPost10DoF")
    assert set(four_post.inputs.names) == {"zPost", "vPost"}
    assert four_post.structure().n_states == 18  # 3 body DoF + 4 travels, two states each; 4 friction states


# ---------------------------------------------------------------------------------------------
# Corner functions, evaluated by rumoca (time is the sweep variable)
# ---------------------------------------------------------------------------------------------
FUNCTION_SWEEP = """
model FunctionSweep
  parameter VehicleRTM.Data.SUV.Front front;
  parameter VehicleRTM.Data.SUV.Rear rear;
  parameter Real LfreeFront(unit = "m") = VehicleRTM.Suspensions.Corners.freeLength(front, front.mSprung*9.81, 1);
  parameter Real LfreeRear(unit = "m") = VehicleRTM.Suspensions.Corners.freeLength(rear, rear.mSprung*9.81, -1);
  Real clock(start = 0, fixed = true) "a state: rumoca evaluates stateless models point by point, slowly";
  Real v(unit = "m/s") = -0.3 + 0.6*time;
  Real z(unit = "m") = -0.1 + 0.2*time;
  Real Fd(unit = "N") = VehicleRTM.Suspensions.Corners.damperForce(v, front.d1, front.d2, front.d3, front.d4, front.d5, front.d6, front.blend);
  Real FdSharp(unit = "N") = VehicleRTM.Suspensions.Corners.damperForce(v, front.d1, front.d2, front.d3, front.d4, front.d5, front.d6, 0);
  Real Fd2(unit = "N") = VehicleRTM.Suspensions.Corners.damperForce(v, 1000, 0.05, 4000, 6000, 0.08, 500, 0.02);
  Real Fk(unit = "N") = VehicleRTM.Suspensions.Corners.springForce(z, 100, 29000, -5000, 1.2e5);
  Real LfF(unit = "m") = LfreeFront;
  Real LfR(unit = "m") = LfreeRear;
  Real LF(unit = "m");
  Real dLF(unit = "1");
  Real LR(unit = "m");
  Real dLR(unit = "1");
equation
  der(clock) = 1;
  (LF, dLF) = VehicleRTM.Suspensions.Corners.strutGeometry(z, front, 1);
  (LR, dLR) = VehicleRTM.Suspensions.Corners.strutGeometry(z, rear, -1);
end FunctionSweep;
"""


@pytest.fixture(scope="module")
def function_sweep(compile_source):
    return _simulate(compile_source(FUNCTION_SWEEP, "FunctionSweep"), 1.0, 1e-5)


def _c1_check(v, f, transitions, slope_jumps, blend):
    """Value and slope continuity of a sampled curve f(v) at the transition speeds."""
    dv = v[1] - v[0]
    slope = np.diff(f) / dv
    results = []
    for vk, jump in zip(transitions, slope_jumps):
        window = np.abs(v[:-1] - vk) < 1.25 * blend  # the blend and a margin, clear of the neighbours
        value_step = np.max(np.abs(np.diff(f)[window]))
        slope_step = np.max(np.abs(np.diff(slope[window])))
        results.append((vk, value_step, slope_step, jump))
    return results


def test_damper_matches_reference_and_is_c1(function_sweep):
    r = function_sweep
    v = np.asarray(r["v"])
    d2set = dict(d1=1000, d2=0.05, d3=4000, d4=6000, d5=0.08, d6=500, blend=0.02)
    for name, data in (("Fd", SUV_FRONT), ("FdSharp", dict(SUV_FRONT, blend=0.0)), ("Fd2", d2set)):
        expected = np.array([damper(x, data) for x in v])
        assert np.max(np.abs(np.asarray(r[name]) - expected)) < 1e-8, name
    dv = v[1] - v[0]
    for name, data in (("Fd", SUV_FRONT), ("Fd2", d2set)):
        d1, d2, d3, d4, d5, d6, h = (data[k] for k in ("d1", "d2", "d3", "d4", "d5", "d6", "blend"))
        h = min(h, 0.5 * min(d2, d5))
        jumps = [abs(d3 - d1), abs(d1 - d4), abs(d4 - d6)]
        for vk, value_step, slope_step, jump in _c1_check(v, np.asarray(r[name]), (-d2, 0.0, d5), jumps, h):
            max_slope = max(d1, d3, d4, d6)
            print(f"  {name} at v={vk:+.3f}: max value step {value_step:.3e} N (<= {max_slope * dv:.3e}),"
                  f" max slope step {slope_step:.3e} N.s/m vs {jump:.0f} without blend")
            assert value_step <= 1.0001 * max_slope * dv  # continuous: no jump beyond slope*dv
            # C1: the slope changes by at most jump*dv/(2h) per sample (parabola), never by the jump
            assert slope_step <= 1.01 * jump * dv / (2 * h) + 1e-6
            assert slope_step < 1e-2 * jump
    # the sharp curve is continuous (paper's first branch corrected) but has slope jumps
    sharp = np.asarray(r["FdSharp"])
    assert np.max(np.abs(np.diff(sharp))) <= 1.0001 * 4200 * dv  # steepest segment: d4
    assert np.max(np.abs(np.diff(np.diff(sharp) / dv))) > 0.99 * (4200 - 1800)
    # Bezier blend at v = 0 leaves F(0) = (d1 - d4) h / 4
    assert damper(0.0, SUV_FRONT) == pytest.approx((1800 - 4200) * 0.01 / 4)


def test_spring_and_strut_geometry(function_sweep):
    r = function_sweep
    z = np.asarray(r["z"])
    expected = 1.2e5 * z ** 3 - 5000 * z ** 2 + 29000 * z + 100
    assert np.max(np.abs(np.asarray(r["Fk"]) - expected)) < 1e-8
    for length, ratio, data, side in (("LF", "dLF", SUV_FRONT, 1), ("LR", "dLR", SUV_REAR, -1)):
        sample = slice(0, len(z), 5000)
        ref = np.array([strut_length(x, data, side) for x in z[sample]])
        assert np.max(np.abs(np.asarray(r[length])[sample] - ref)) < 1e-12
        # analytic dL/dz against the numerical derivative of the analytic length
        numeric = np.gradient(np.asarray(r[length]), z)
        assert np.max(np.abs(np.asarray(r[ratio])[1:-1] - numeric[1:-1])) < 1e-6
        print(f"  {length}: L(0) = {strut_length(0, data, side):.5f} m, dL/dz(0) = {strut_ratio(0, data, side):.4f}")
    # mirror symmetry: a right corner (side = -1) has the strut length of the left one
    lr = np.asarray(r["LR"])[::5000]
    assert np.max(np.abs(lr - np.array([strut_length(x, SUV_REAR, 1) for x in z[::5000]]))) < 1e-12
    # front strut nearly vertical (ratio ~ -0.97), rear inclined (~ -0.6)
    assert -1.0 < strut_ratio(0, SUV_FRONT) < -0.95
    assert -0.65 < strut_ratio(0, SUV_REAR, -1) < -0.55


def test_free_length_function_matches_records(function_sweep):
    r = function_sweep
    for name, data, side in (("LfF", SUV_FRONT, 1), ("LfR", SUV_REAR, -1)):
        computed = float(np.asarray(r[name])[0])
        assert computed == pytest.approx(free_length(data, data["mSprung"] * G, side), abs=1e-9)
        assert computed == pytest.approx(data["freeLength"], abs=1e-6)  # record value consistent


# ---------------------------------------------------------------------------------------------
# K&C rig: static equilibrium and natural frequency
# ---------------------------------------------------------------------------------------------
KC_CHECKS = """
model KCChecks
  parameter Real extra(unit = "N") = 1500 "load above the design corner weight";
  VehicleRTM.QuarterCars.KCRig front(redeclare VehicleRTM.Data.SUV.Front data, freeLengthFromLoad = false);
  VehicleRTM.QuarterCars.KCRig rear(redeclare VehicleRTM.Data.SUV.Rear data, freeLengthFromLoad = false);
  VehicleRTM.QuarterCars.KCRig linear(redeclare VehicleRTM.Suspensions.Corners.CornerData data(d1 = 30, d3 = 30, d4 = 30, d6 = 30), z0 = 0.01);
equation
  front.FZ = (front.data.mSprung + front.data.mUnsprung)*9.81 + extra;
  rear.FZ = (rear.data.mSprung + rear.data.mUnsprung)*9.81 + extra;
  linear.FZ = (linear.data.mSprung + linear.data.mUnsprung)*9.81;
  %s
  %s
  %s
end KCChecks;
""" % (NO_HOMOTOPY.format(c="front"), NO_HOMOTOPY.format(c="rear"), NO_HOMOTOPY.format(c="linear"))


@pytest.fixture(scope="module")
def kc_checks(compile_source):
    return _simulate(compile_source(KC_CHECKS, "KCChecks"), 6.0, 1e-3)


def test_static_equilibrium_on_kc_rig(kc_checks):
    r = kc_checks
    for rig, data, side in (("front", SUV_FRONT, 1), ("rear", SUV_REAR, 1)):
        f_sprung = data["mSprung"] * G + 1500.0
        expected = static_travel(data, f_sprung, data["freeLength"], side)
        settled = float(np.asarray(r[f"{rig}.z"])[-1])
        err = abs(settled - expected) / abs(expected)
        print(f"  {rig}: static travel numpy {expected * 1000:.4f} mm, rumoca {settled * 1000:.4f} mm, error {err:.2e}")
        assert err < 0.01
        # force balance along the strut: (F_spring + F_damper) dL/dz balances the sprung corner load
        q = float(np.asarray(r[f"{rig}.corner.Q"])[-1])
        assert q == pytest.approx(-f_sprung, rel=1e-4)
        assert abs(float(np.asarray(r[f"{rig}.v"])[-1])) < 1e-5


def test_natural_frequency_single_mass(kc_checks):
    r = kc_checks
    t = np.asarray(r.time)
    f, n = zero_crossing_frequency(t, np.asarray(r["linear.z"]))
    k, m, c = 30000.0, 45.0, 30.0
    f_undamped = np.sqrt(k / m) / (2 * np.pi)
    f_damped = f_undamped * np.sqrt(1 - (c / (2 * np.sqrt(k * m))) ** 2)
    err = abs(f - f_undamped) / f_undamped
    print(f"  single mass: {f:.4f} Hz from {n} crossings, sqrt(k/m)/2pi = {f_undamped:.4f} Hz"
          f" (damped {f_damped:.4f} Hz), error {err:.2e}")
    assert err < 0.02
    assert f == pytest.approx(f_damped, rel=1e-3)


# ---------------------------------------------------------------------------------------------
# Two-mass quarter car (Examples.QuarterCarFreeVibration) against the linear 2x2 eigenvalues
# ---------------------------------------------------------------------------------------------
def _two_mass_modes(ms=450.0, mu=45.0, k=30000.0, kt=250000.0):
    mass = np.diag([ms, mu])
    stiffness = np.array([[k, -k], [-k, k + kt]])
    w2, vec = np.linalg.eig(np.linalg.solve(mass, stiffness))
    order = np.argsort(w2)
    return np.sqrt(w2[order]) / (2 * np.pi), vec[:, order]


def test_two_mass_quarter_car_eigenfrequencies(compile_source):
    freqs, shapes = _two_mass_modes()
    linear = ("redeclare VehicleRTM.Suspensions.Corners.CornerData data(d1 = 0, d3 = 0, d4 = 0, d6 = 0,"
              " dTyre = 0)")
    parts = []
    for i, amplitude in ((0, 0.02), (1, 0.002)):
        shape = shapes[:, i] / np.max(np.abs(shapes[:, i])) * amplitude
        parts.append(f"  VehicleRTM.Examples.QuarterCarFreeVibration mode{i + 1}({linear},"
                     f" zBody0 = {shape[0]:.12g}, zWheel0 = {shape[1]:.12g});")
    source = "model TwoMass\n" + "\n".join(parts) + "\nend TwoMass;\n"
    model = compile_source(source, "TwoMass")
    r = _simulate(model, 8.0, 2e-4)
    t = np.asarray(r.time)
    f1, n1 = zero_crossing_frequency(t, np.asarray(r["mode1.zBody"]))
    f2, n2 = zero_crossing_frequency(t, np.asarray(r["mode2.zWheel"]))
    for f, expected, n in ((f1, freqs[0], n1), (f2, freqs[1], n2)):
        err = abs(f - expected) / expected
        print(f"  mode: {f:.4f} Hz from {n} crossings, eigenvalue {expected:.4f} Hz, error {err:.2e}")
        assert err < 0.02
    # the example itself runs and shows both modes decaying towards the static state
    example = simulate_example("VehicleRTM.Examples.QuarterCarFreeVibration")
    z_body = np.asarray(example["zBody"])
    assert z_body[0] == pytest.approx(0.05)
    assert abs(z_body[-1]) < 1e-3


# ---------------------------------------------------------------------------------------------
# Homotopy coupling (Eq. 3, 5)
# ---------------------------------------------------------------------------------------------
HOMOTOPY = """
model HomotopyTracking
  constant Real pi(unit = "1") = 3.14159265358979;
  parameter Real lam(unit = "1") = 1;
  parameter Real gI(unit = "1") = 10;
  parameter Real gP(unit = "1") = 10;
  parameter Real gD(unit = "1") = 1;
  parameter Real T(unit = "s") = 10;
  VehicleRTM.QuarterCars.KCRig ref(redeclare VehicleRTM.Data.SUV.Front data) "plays the experiment";
  VehicleRTM.QuarterCars.KCRig fit(redeclare VehicleRTM.Data.SUV.Front data(mUnsprung = 75, k1 = 22000, d1 = 900, d3 = 400, d4 = 2500, d6 = 900)) "wrong parameters, coupled";
  VehicleRTM.QuarterCars.KCRig plain(redeclare VehicleRTM.Data.SUV.Front data(mUnsprung = 75, k1 = 22000, d1 = 900, d3 = 400, d4 = 2500, d6 = 900)) "wrong parameters, no coupling inputs";
  Real FZ(unit = "N");
equation
  FZ = (ref.data.mSprung + ref.data.mUnsprung)*9.81 + 1000*sin(2*pi*6*time^2/(2*T));
  ref.FZ = FZ;
  fit.FZ = FZ;
  plain.FZ = FZ;
  %s
  %s
  fit.lambda = lam;
  fit.GI = gI;
  fit.GP = gP;
  fit.GD = gD;
  fit.zRef = ref.z;
  fit.vRef = ref.v;
  fit.aRef = ref.a;
end HomotopyTracking;
""" % (NO_HOMOTOPY.format(c="ref"), NO_HOMOTOPY.format(c="plain"))


def test_homotopy_coupling_tracks_reference(compile_source):
    model = compile_source(HOMOTOPY, "HomotopyTracking")
    errors = {}
    for lam in (0.0, 1.0):
        r = _simulate(model, 10.0, 2e-3, params={"lam": lam})
        errors[lam] = (_rms(np.asarray(r["fit.z"]) - np.asarray(r["ref.z"])),
                       _rms(np.asarray(r["fit.v"]) - np.asarray(r["ref.v"])))
        if lam == 0.0:
            # lambda = 0 is the plain model exactly, whatever the gains and references
            assert np.max(np.abs(np.asarray(r["fit.z"]) - np.asarray(r["plain.z"]))) == 0.0
            reference_rms = _rms(np.asarray(r["ref.z"]))
    ratio_z = errors[1.0][0] / errors[0.0][0]
    ratio_v = errors[1.0][1] / errors[0.0][1]
    print(f"  reference travel rms {reference_rms * 1000:.2f} mm; tracking error rms lambda=0:"
          f" {errors[0.0][0] * 1000:.3f} mm / {errors[0.0][1]:.4f} m/s, lambda=1: {errors[1.0][0] * 1000:.3f} mm /"
          f" {errors[1.0][1]:.4f} m/s (ratios {ratio_z:.4f}, {ratio_v:.4f})")
    assert errors[0.0][0] > 0.3 * reference_rms  # the wrong parameters really are wrong
    assert ratio_z < 0.05 and ratio_v < 0.05


# ---------------------------------------------------------------------------------------------
# Four-post model
# ---------------------------------------------------------------------------------------------
FOUR_POST = """
model FourPostChecks
  constant Real pi(unit = "1") = 3.14159265358979;
  VehicleRTM.Vehicles.FourPost10DoF sym(redeclare VehicleRTM.Data.SUV.Front dataRear, body(a = 1.4, trackRear = 1.6)) "front/rear and left/right symmetric";
  VehicleRTM.Vehicles.FourPost10DoF heavy(freeLengthFromLoad = false, body(m = 2180)) "200 kg more than the springs were set for";
  Real zP(unit = "m") = 0.01*sin(2*pi*(0.5*time + 0.25*time^2));
  Real vP(unit = "m/s") = 0.01*2*pi*(0.5 + 0.5*time)*cos(2*pi*(0.5*time + 0.25*time^2));
equation
  sym.zPost = {zP, zP, zP, zP};
  sym.vPost = {vP, vP, vP, vP};
  heavy.zPost = zeros(4);
  heavy.vPost = zeros(4);
end FourPostChecks;
"""


@pytest.fixture(scope="module")
def four_post_checks(compile_source):
    return _simulate(compile_source(FOUR_POST, "FourPostChecks"), 8.0, 2e-3)


def test_four_post_symmetric_heave_has_no_pitch_or_roll(four_post_checks):
    r = four_post_checks
    heave = np.asarray(r["sym.heave"])
    pitch, roll = np.asarray(r["sym.pitch"]), np.asarray(r["sym.roll"])
    print(f"  symmetric car, heave sweep: heave amplitude {np.max(np.abs(heave)) * 1000:.2f} mm,"
          f" max |pitch| {np.max(np.abs(pitch)):.2e} rad, max |roll| {np.max(np.abs(roll)):.2e} rad")
    assert np.max(np.abs(heave)) > 5e-3
    assert np.max(np.abs(pitch)) < 1e-9
    assert np.max(np.abs(roll)) < 1e-12
    # the rear corners of the symmetric car really carry the front data (mirrored on the right)
    assert float(np.asarray(r["sym.cornerRR.L"])[0]) == pytest.approx(strut_length(0, SUV_FRONT, -1), abs=1e-12)


def test_four_post_static_height_matches_corner_equilibria(four_post_checks):
    r = four_post_checks
    body = dict(SUV_BODY, m=2180.0)
    b = body["wheelbase"] - body["a"]
    z_front = static_travel(SUV_FRONT, body["m"] * G * b / (2 * body["wheelbase"]), SUV_FRONT["freeLength"])
    z_rear = static_travel(SUV_REAR, body["m"] * G * body["a"] / (2 * body["wheelbase"]), SUV_REAR["freeLength"])
    # the tyres carry the static load at their static deflection, so the body sits -z above each axle
    pitch = (z_front - z_rear) / body["wheelbase"]
    heave = -z_front + body["a"] * pitch
    got_heave, got_pitch = float(np.asarray(r["heavy.heave"])[-1]), float(np.asarray(r["heavy.pitch"])[-1])
    print(f"  +200 kg: heave numpy {heave * 1000:.4f} mm rumoca {got_heave * 1000:.4f} mm;"
          f" pitch numpy {pitch:.4e} rumoca {got_pitch:.4e} rad")
    assert got_heave == pytest.approx(heave, rel=0.01)
    assert got_pitch == pytest.approx(pitch, rel=0.01)
    assert float(np.asarray(r["heavy.zWheel[1]"])[-1]) == pytest.approx(z_front, rel=0.01)
    assert float(np.asarray(r["heavy.zWheel[4]"])[-1]) == pytest.approx(z_rear, rel=0.01)


def test_four_post_examples_heave_and_pitch_signs():
    heave = simulate_example("VehicleRTM.Examples.FourPostHeave", stop_time=4.0)
    pitch = simulate_example("VehicleRTM.Examples.FourPostPitch", stop_time=4.0)
    # design ride height is the static state: tyre loads start at the axle loads
    b = SUV_BODY["wheelbase"] - SUV_BODY["a"]
    f_front = SUV_BODY["m"] * G * b / (2 * SUV_BODY["wheelbase"]) + SUV_FRONT["mUnsprung"] * G
    assert float(np.asarray(heave["car.FTyre[1]"])[0]) == pytest.approx(f_front, abs=5.0)  # + dTyre*30 mm/s
    for r in (heave, pitch):
        assert np.max(np.abs(np.asarray(r["car.roll"]))) < 1e-12  # laterally symmetric car
    # heave: body follows the posts in phase at low frequency
    t = np.asarray(heave.time)
    first = t < 2.0
    z_post = np.asarray(heave["zPost"])
    assert np.corrcoef(np.asarray(heave["car.heave"])[first], z_post[first])[0, 1] > 0.9
    # pitch: front posts up -> nose up -> pitch negative (ISO 8855); quasi-static size ~ -2 zPost / l
    tp = np.asarray(pitch.time)
    front_up = np.asarray(pitch["zPost"])
    theta = np.asarray(pitch["car.pitch"])
    first = tp < 2.0
    corr = np.corrcoef(theta[first], front_up[first])[0, 1]
    peak = np.argmax(front_up[first])
    quasi_static = -2 * front_up[peak] / SUV_BODY["wheelbase"]
    print(f"  pitch test: corr(pitch, front post) = {corr:.3f}; at the first front-post peak"
          f" {front_up[peak] * 1000:.2f} mm pitch {theta[peak]:.2e} rad (quasi-static {quasi_static:.2e})")
    assert corr < -0.9
    assert theta[peak] < 0
    assert 0.5 < theta[peak] / quasi_static < 2.0


def test_kc_swept_sine_example():
    r = simulate_example("VehicleRTM.Examples.KCSweptSine")
    t = np.asarray(r.time)
    fz = np.asarray(r["rig.FZ"])
    f0 = (SUV_FRONT["mSprung"] + SUV_FRONT["mUnsprung"]) * G
    assert 0.5 * (np.max(fz) + np.min(fz)) == pytest.approx(f0, abs=1.0)
    assert 0.5 * (np.max(fz) - np.min(fz)) == pytest.approx(1000.0, abs=1.0)
    # linear chirp 0 -> 6 Hz in 30 s: the phase integral gives 90 periods -> 90 upward zero crossings
    x = fz - f0
    crossings = np.count_nonzero((x[:-1] < 0) & (x[1:] >= 0))
    assert abs(crossings - 90) <= 1
    # at rest under the corner weight the corner sits at design ride height (damper blend offset only)
    assert abs(float(np.asarray(r["rig.z"])[0])) < 1e-9
    z = np.asarray(r["rig.z"])
    print(f"  K&C sweep: travel range {z.min() * 1000:.1f} .. {z.max() * 1000:.1f} mm over {t[-1]:.0f} s")
    assert 0.005 < np.max(np.abs(z)) < 0.08
