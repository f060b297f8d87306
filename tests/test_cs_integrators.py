"""The native Co-Simulation integrators (rk4, heun, ab2, imex2) against the analytic solution of a damped
linear oscillator: the error at a fixed internal step, and the order of convergence when the step halves.
imex2 also on stiff states that every explicit method at these steps loses: a first-order lag with
h*lambda = -2.5 to -10 (analytic solution) and a wheel held by a regularised Coulomb brake, the RTM's
braked wheel at standstill (h*lambda = -7.6 at 1 ms; against scipy's Radau at tight tolerances).

x'' + 2 zeta w x' + w^2 x = 0, x(0) = 1, x'(0) = 0 (w = 2 pi * 1.5 Hz, zeta = 0.2: the body-bounce
range of the RTM), integrated over 2 s in 10 ms communication steps (several internal steps each, the
last one shortened where the internal step does not divide the communication step).
The default integrator is the first of fmu_build.build.INTEGRATORS.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy")

from fmu_build import build_fmu  # noqa: E402
from fmu_helpers import write_package  # noqa: E402

OSCILLATOR = """model Oscillator "damped linear oscillator"
    parameter Real w = 2 * 3.141592653589793 * 1.5 "natural angular frequency (rad/s)";
    parameter Real zeta = 0.2 "damping ratio";
    Real x(start = 1, fixed = true);
    Real v(start = 0, fixed = true);
    output Real position;
  equation
    der(x) = v;
    der(v) = -w^2 * x - 2 * zeta * w * v;
    position = x;
end Oscillator;
"""
LAG = """model Lag "stiff first-order lag following cos(w t)"
    parameter Real k = 5000 "inverse time constant (1/s)";
    parameter Real w = 2 * 3.141592653589793 * 1.5 "angular frequency of the followed signal (rad/s)";
    Real y(start = k^2 / (k^2 + w^2), fixed = true);
    output Real lagged;
  equation
    der(y) = -k * (y - cos(w * time));
    lagged = y;
end Lag;
"""
WHEEL_MODEL = """model BrakedWheel "wheel spin held by a regularised Coulomb brake against a sine torque"
    parameter Real J = 1.2 "spin inertia (kg.m2)";
    parameter Real T = 4560 "brake torque (N.m): T/(J*omegaReg) = 7600 1/s";
    parameter Real omegaReg = 0.5 "regularisation speed (rad/s)";
    parameter Real A = 3000 "amplitude of the driving torque (N.m); above T the wheel slips";
    parameter Real f = 2 "frequency of the driving torque (Hz)";
    Real omega(start = 0, fixed = true);
    output Real speed;
  equation
    J * der(omega) = A * sin(2 * 3.141592653589793 * f * time) - T * tanh(omega / omegaReg);
    speed = omega;
end BrakedWheel;
"""
DRIVEN = """model DrivenOscillator "the damped oscillator driven by an input force (held over a communication step)"
    parameter Real w = 2 * 3.141592653589793 * 1.5;
    parameter Real zeta = 0.2;
    input Real u "force per unit mass (m/s2)";
    Real x(start = 0, fixed = true);
    Real v(start = 0, fixed = true);
    output Real position;
  equation
    der(x) = v;
    der(v) = -w^2 * x - 2 * zeta * w * v + u;
    position = x;
end DrivenOscillator;
"""
W, ZETA, STOP, COMMUNICATION = 2 * math.pi * 1.5, 0.2, 2.0, 0.01
# integrator -> (order, error bound at a 2 ms internal step, relative to the amplitude)
EXPECTED = {"rk4": (4, 5e-9), "heun": (2, 2e-4), "ab2": (2, 5e-4), "imex2": (2, 5e-4)}
LAG_K = 5000.0
WHEEL = dict(J=1.2, T=4560.0, omegaReg=0.5, f=2.0)   # the start values of BrakedWheel


def lag_exact(t: np.ndarray) -> np.ndarray:
    return LAG_K * (LAG_K * np.cos(W * t) + W * np.sin(W * t)) / (LAG_K ** 2 + W ** 2)


def wheel_reference(amplitude: float, t: np.ndarray) -> np.ndarray:
    """BrakedWheel's spin speed by scipy's Radau (implicit, 5th order) at rtol 1e-11."""
    from scipy.integrate import solve_ivp

    J, T, reg, f = WHEEL["J"], WHEEL["T"], WHEEL["omegaReg"], WHEEL["f"]
    solution = solve_ivp(lambda s, y: [(amplitude * math.sin(2 * math.pi * f * s) - T * math.tanh(y[0] / reg)) / J],
                         (0.0, float(t[-1])), [0.0], method="Radau", rtol=1e-11, atol=1e-12, dense_output=True)
    return solution.sol(t)[0]


def exact(t: np.ndarray) -> np.ndarray:
    wd = W * math.sqrt(1 - ZETA ** 2)
    return np.exp(-ZETA * W * t) * (np.cos(wd * t) + ZETA * W / wd * np.sin(wd * t))


@pytest.fixture(scope="module")
def package_dir(tmp_path_factory):
    return write_package(tmp_path_factory.mktemp("modelica"), "IntegratorCheck", {
        "Oscillator": OSCILLATOR, "Lag": LAG, "BrakedWheel": WHEEL_MODEL, "DrivenOscillator": DRIVEN})


def max_error(fmu, step: float) -> float:
    result = fmpy.simulate_fmu(str(fmu), stop_time=STOP, output_interval=COMMUNICATION, output=["position"],
                               start_values={"fixedStepSize": step}, validate=False)
    return float(np.max(np.abs(result["position"] - exact(result["time"]))))


@pytest.mark.parametrize("integrator", sorted(EXPECTED))
def test_integrator_converges_to_the_analytic_oscillation_at_its_order(integrator, package_dir, tmp_path):
    order, bound = EXPECTED[integrator]
    fmu = build_fmu("IntegratorCheck.Oscillator", backend="native", fmi_type="cs", out_dir=tmp_path,
                    integrator=integrator, modelica_path=[package_dir], cache_dir=tmp_path / "cache")
    errors = [max_error(fmu, h) for h in (2e-3, 1e-3, 0.5e-3)]
    assert errors[0] <= bound, f"{integrator}: error {errors[0]:.2e} at 2 ms"
    observed = [math.log2(errors[k] / errors[k + 1]) for k in range(2)]
    assert all(abs(p - order) < 0.25 for p in observed), f"{integrator}: observed orders {observed}, expected {order}"
    # 3 ms does not divide the 10 ms communication step (3 + 3 + 3 + 1 ms): no worse than the 4 ms bound
    assert max_error(fmu, 3e-3) <= 2 ** order * bound, f"{integrator}: shortened substeps lose accuracy"


@pytest.fixture(scope="module")
def stiff_fmus(package_dir, tmp_path_factory):
    """(model, integrator) -> CS FMU of the stiff test models."""
    out = tmp_path_factory.mktemp("stiff")
    return {(model, integrator): build_fmu(f"IntegratorCheck.{model}", backend="native", fmi_type="cs",
                                           out_dir=out / integrator, integrator=integrator,
                                           modelica_path=[package_dir], cache_dir=out / "cache")
            for model in ("Lag", "BrakedWheel") for integrator in ("imex2", "ab2")}


def simulate(fmu, output: str, step: float, stop: float = STOP, interval: float = COMMUNICATION, **start):
    return fmpy.simulate_fmu(str(fmu), stop_time=stop, output_interval=interval, output=[output],
                             start_values={"fixedStepSize": step, **start}, validate=False)


def test_imex2_integrates_a_stiff_lag_at_second_order_where_ab2_diverges(stiff_fmus):
    """h*lambda = -10, -5, -2.5: imex2 stays stable and halves its step error by 4 each time (the stiff
    state is found at the first step and follows BDF2); ab2 diverges at 1 ms."""
    errors = []
    for step in (2e-3, 1e-3, 0.5e-3):
        result = simulate(stiff_fmus["Lag", "imex2"], "lagged", step)
        errors.append(float(np.max(np.abs(result["lagged"] - lag_exact(result["time"])))))
    assert errors[0] < 1e-3, errors
    observed = [math.log2(errors[k] / errors[k + 1]) for k in range(2)]
    assert all(abs(p - 2) < 0.25 for p in observed), f"observed orders {observed}"
    with pytest.raises(Exception):
        simulate(stiff_fmus["Lag", "ab2"], "lagged", 1e-3)


def test_imex2_holds_a_braked_wheel_still_where_ab2_chatters(stiff_fmus):
    """The driving torque stays below the brake's (stick): the wheel creeps at ~0.4 rad/s at most.
    At 1 ms imex2 follows Radau to 0.005 rad/s; ab2 chatters between the brake's saturations."""
    amplitude = 3000.0
    result = simulate(stiff_fmus["BrakedWheel", "imex2"], "speed", 1e-3, interval=1e-3, A=amplitude)
    reference = wheel_reference(amplitude, result["time"])
    assert np.max(np.abs(reference)) == pytest.approx(0.395, abs=0.01)
    assert np.max(np.abs(result["speed"] - reference)) < 5e-3
    chattering = simulate(stiff_fmus["BrakedWheel", "ab2"], "speed", 1e-3, interval=1e-3, A=amplitude)
    assert np.max(np.abs(chattering["speed"] - reference)) > 1.0


def test_imex2_follows_a_wheel_that_slips_and_sticks_again(stiff_fmus):
    """The driving torque exceeds the brake's for part of each half period: the wheel slips up to
    ~90 rad/s and sticks again. The brake's stiffness comes and goes; at 1 ms imex2 keeps the RMS error
    against Radau below 0.5 rad/s and below half of ab2's (each re-entry into sticking costs a few ms
    of chatter before the stiff state is found again; measured: imex2 0.42, ab2 1.86, rk4 0.44)."""
    amplitude = 6000.0
    result = simulate(stiff_fmus["BrakedWheel", "imex2"], "speed", 1e-3, interval=1e-3, A=amplitude)
    reference = wheel_reference(amplitude, result["time"])
    assert np.max(np.abs(reference)) > 80

    def rms(values):
        return float(np.sqrt(np.mean((values - reference) ** 2)))

    explicit = simulate(stiff_fmus["BrakedWheel", "ab2"], "speed", 1e-3, interval=1e-3, A=amplitude)
    assert rms(result["speed"]) < min(0.5, 0.5 * rms(explicit["speed"]))


def test_imex2_history_and_stiff_states_are_part_of_the_fmu_state(stiff_fmus, tmp_path):
    """Mid-run (stiff state active), a saved FMU state restored, also serialized, gives the same
    continuation bit for bit; after fmi2Reset the run repeats bit for bit."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    fmu = stiff_fmus["BrakedWheel", "imex2"]
    md = read_model_description(fmu)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(fmu, unzipdir=tmp_path),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="state")

    def start():
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
        slave.exitInitializationMode()

    def drive(first: int, last: int) -> np.ndarray:
        out = []
        for k in range(first, last):
            slave.doStep(currentCommunicationPoint=k * 0.01, communicationStepSize=0.01)
            out.append(slave.getReal([vr["speed"]])[0])
        return np.array(out)

    slave.instantiate()
    start()
    first = drive(0, 30)
    state = slave.getFMUstate()
    continued = drive(30, 60)
    slave.setFMUstate(state)
    assert np.array_equal(drive(30, 60), continued)
    slave.setFMUstate(slave.deSerializeFMUstate(slave.serializeFMUstate(state)))
    assert np.array_equal(drive(30, 60), continued)
    slave.reset()
    start()
    assert np.array_equal(drive(0, 60), np.concatenate([first, continued]))
    slave.terminate()
    slave.freeInstance()


def held_input_exact(t: np.ndarray, u: np.ndarray) -> np.ndarray:
    """DrivenOscillator's position at the communication points, the input held over each step: the
    exact zero-order-hold discretisation (matrix exponential)."""
    from scipy.linalg import expm

    a = np.array([[0.0, 1.0], [-W ** 2, -2 * ZETA * W]])
    step = float(t[1] - t[0])
    phi = expm(a * step)
    gamma = np.linalg.solve(a, (phi - np.eye(2)) @ np.array([0.0, 1.0]))
    state, out = np.zeros(2), [0.0]
    for value in u[:-1]:
        state = phi @ state + gamma * value
        out.append(state[0])
    return np.array(out)


@pytest.mark.parametrize("integrator", ["ab2", "imex2"])
def test_multistep_methods_stay_second_order_across_held_input_jumps(integrator, package_dir, tmp_path):
    """The input jumps at every 10 ms communication point. The two-step methods shift their history by
    the jump of the derivatives instead of restarting; without the shift they are first order."""
    fmu = build_fmu("IntegratorCheck.DrivenOscillator", backend="native", fmi_type="cs", out_dir=tmp_path,
                    integrator=integrator, modelica_path=[package_dir], cache_dir=tmp_path / "cache")
    t = np.arange(0.0, STOP + COMMUNICATION / 2, COMMUNICATION)
    u = 20.0 * np.sin(2 * math.pi * 2.0 * t)
    signals = np.array(list(zip(t, u)), dtype=[("time", float), ("u", float)])
    reference = held_input_exact(t, u)
    errors = []
    for h in (2e-3, 1e-3, 0.5e-3):
        result = fmpy.simulate_fmu(str(fmu), stop_time=STOP, output_interval=COMMUNICATION, output=["position"],
                                   input=signals, start_values={"fixedStepSize": h}, validate=False)
        errors.append(float(np.max(np.abs(result["position"] - reference))))
    observed = [math.log2(errors[k] / errors[k + 1]) for k in range(2)]
    assert all(abs(p - 2) < 0.3 for p in observed), f"{integrator}: errors {errors}, observed orders {observed}"
