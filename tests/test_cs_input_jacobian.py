"""The step start after held inputs jumped, taken from the input Jacobian (fmu_build/native/runtime/
input_jacobian.h) instead of a second model evaluation, driven as a rig drives the FMU: new inputs before
every fmi2DoStep of one internal step.

1. Inputs that enter linearly (a constant Jacobian): the step after a jump, predicted, equals the step
   that a full evaluation at the new inputs starts (an fmi2GetReal between the set and the step forces
   that evaluation) to round-off, with two inputs changing at once, for ab2 and imex2; repeated from a
   restored FMU state, bit for bit. A wrong column,
   a missing history shift or a wrong jump breaks it by the size of the jump's effect.
2. Inputs that enter through state-dependent saturations (the Jacobian changes along the run): the error
   against the same held-input problem integrated by RK4 at an eighth of the step falls by 4 when the
   step halves (second order); a prediction without the input's effect, or with a stale Jacobian, is
   first order there (the input lags by up to a step). Measured: 1.41e-3, 3.55e-4, 8.9e-5 at 2, 1 and
   0.5 ms (an exact step start, a second evaluation per step: 2.9e-4, 7.3e-5, 1.8e-5; the columns are
   up to 20 steps old and this model's gain halves within 20 ms).
3. The cost (slow: a speed check, not run by make test): with a model whose evaluation dominates (thousands of atan terms), a step with new inputs
   takes at most 1.3x the thread CPU time of a step with held ones (measured 1.0-1.1x; two evaluations per
   step, as before the input Jacobian, 1.6-1.8x).
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy")

from fmu_build import build_fmu  # noqa: E402
from fmu_helpers import write_package  # noqa: E402

LINEAR = """model LinearInputs "a damped oscillator with a force input and a velocity input"
    parameter Real w = 2 * 3.141592653589793 * 1.5;
    parameter Real zeta = 0.2;
    input Real u "force per unit mass (m/s2)";
    input Real drift "velocity added to der(x) (m/s)";
    Real x(start = 0, fixed = true);
    Real v(start = 0, fixed = true);
    output Real position;
  equation
    der(x) = v + drift;
    der(v) = -w^2 * x - 2 * zeta * w * v + u;
    position = x;
end LinearInputs;
"""
SATURATING = """model SaturatingInputs "an oscillator driven through a saturating gain and braked through tanh"
    parameter Real w = 2 * 3.141592653589793 * 1.5;
    parameter Real zeta = 0.2;
    input Real u "steering-like input";
    input Real g "brake-like input, 0..1";
    Real x(start = 0, fixed = true);
    Real v(start = 0, fixed = true);
    output Real position;
  equation
    der(x) = v;
    der(v) = -w^2 * x - 2 * zeta * w * v + 30 * atan(2 * u - 3 * x) - 20 * g * tanh(2 * v);
    position = x;
end SaturatingInputs;
"""
# many atan terms in the derivative (GROUPS sums of TERMS each): one model evaluation costs far more than a
# Python call of fmi2DoStep
GROUPS, TERMS = 20, 50
HEAVY = ("model HeavyInput \"an oscillator driven by a costly function of its input\"\n    input Real u;\n"
         f"    Real s[{GROUPS}];\n    Real x(start = 0, fixed = true);\n    Real v(start = 0, fixed = true);\n"
         "  equation\n"
         + "".join(f"    s[{g + 1}] = " + " + ".join(f"atan(u + {(g * TERMS + k) / (GROUPS * TERMS):.6f} * x)"
                                                    for k in range(TERMS)) + ";\n" for g in range(GROUPS))
         + "    der(x) = v;\n    der(v) = -100 * x - v + 0.001 * ("
         + " + ".join(f"s[{g + 1}]" for g in range(GROUPS)) + ");\nend HeavyInput;\n")
STOP = 1.0


def u_signal(t):
    return np.sin(2 * math.pi * 2.0 * t)


def g_signal(t):
    return 0.5 + 0.5 * np.sin(2 * math.pi * 1.3 * t + 0.4)


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """(model, integrator) -> Co-Simulation FMU."""
    root = tmp_path_factory.mktemp("jacobian")
    package = write_package(root / "modelica", "JacobianCheck", {"LinearInputs": LINEAR,
                                                                 "SaturatingInputs": SATURATING, "HeavyInput": HEAVY})
    builds = [("LinearInputs", "ab2"), ("LinearInputs", "imex2"), ("SaturatingInputs", "imex2"),
              ("SaturatingInputs", "rk4"), ("HeavyInput", "imex2")]
    return {(model, integrator): build_fmu(f"JacobianCheck.{model}", backend="native", fmi_type="cs",
                                           out_dir=root / model / integrator, integrator=integrator,
                                           modelica_path=[package], cache_dir=root / "cache")
            for model, integrator in builds}


class Rig:
    """One instance of an FMU driven through fmpy's FMU2Slave, as a rig drives it."""

    def __init__(self, fmu, folder, inputs: tuple[str, ...], internal_step: float):
        from fmpy import extract, read_model_description
        from fmpy.fmi2 import FMU2Slave

        description = read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in description.modelVariables}
        self.inputs = [self.vr[name] for name in inputs]
        self.slave = FMU2Slave(guid=description.guid, unzipDirectory=extract(str(fmu), unzipdir=str(folder)),
                               modelIdentifier=description.coSimulation.modelIdentifier, instanceName="rig")
        self.slave.instantiate()
        self.slave.setupExperiment(startTime=0.0)
        self.slave.enterInitializationMode()
        self.slave.setReal([self.vr["fixedStepSize"]], [internal_step])
        self.slave.exitInitializationMode()

    def step(self, t: float, h: float, values) -> None:
        self.slave.setReal(self.inputs, list(values))
        self.slave.doStep(currentCommunicationPoint=t, communicationStepSize=h)

    def states(self) -> np.ndarray:
        return np.array(self.slave.getReal([self.vr["x"], self.vr["v"]]))

    def close(self) -> None:
        self.slave.terminate()
        self.slave.freeInstance()


@pytest.mark.parametrize("integrator", ["ab2", "imex2"])
def test_predicted_step_start_equals_a_full_evaluation_for_linear_inputs(integrator, fmus, tmp_path):
    h = 1e-3
    rig = Rig(fmus["LinearInputs", integrator], tmp_path, ("u", "drift"), h)
    times = h * np.arange(400)
    inputs = np.column_stack([20 * u_signal(times + h / 2), 0.05 * g_signal(times + h / 2)])
    for k in range(300):                       # every column measured, then predicted (refreshed)
        rig.step(times[k], h, inputs[k])
    checked = 0
    for k in range(300, 340):
        before = rig.states()
        state = rig.slave.getFMUstate()
        rig.step(times[k], h, inputs[k])       # the step start predicted (or a column measured)
        predicted = rig.states()
        rig.slave.setFMUstate(state)           # the Jacobian is part of the FMU state: the same step again
        rig.step(times[k], h, inputs[k])
        assert np.array_equal(rig.states(), predicted)
        rig.slave.setFMUstate(state)
        rig.slave.setReal(rig.inputs, list(inputs[k]))
        rig.slave.getReal([rig.vr["position"]])  # a full evaluation at the new inputs
        rig.slave.doStep(currentCommunicationPoint=times[k], communicationStepSize=h)
        evaluated = rig.states()
        rig.slave.freeFMUstate(state)
        # what the jump changes in the step: h * (its effect on the derivatives) on x (drift) and v (u)
        jump_effect = h * np.abs(inputs[k] - inputs[k - 1])[::-1]
        assert np.all(np.abs(predicted - evaluated) <= 1e-6 * jump_effect + 1e-15 * np.abs(before)), \
            f"step {k}: predicted {predicted}, evaluated {evaluated}, jump effect {jump_effect}"
        checked += 1
    rig.close()
    assert checked == 40


def saturating_run(fmu, folder, h: float, internal_step: float) -> np.ndarray:
    rig = Rig(fmu, folder, ("u", "g"), internal_step)
    times = h * np.arange(round(STOP / h))
    inputs = np.column_stack([u_signal(times + h / 2), g_signal(times + h / 2)])
    positions = []
    for t, values in zip(times, inputs):
        rig.step(t, h, values)
        positions.append(rig.states()[0])
    rig.close()
    return np.array(positions)


def test_step_start_from_the_input_jacobian_stays_second_order(fmus, tmp_path):
    errors = []
    for k, h in enumerate((2e-3, 1e-3, 0.5e-3)):
        got = saturating_run(fmus["SaturatingInputs", "imex2"], tmp_path / f"imex2{k}", h, h)
        reference = saturating_run(fmus["SaturatingInputs", "rk4"], tmp_path / f"rk4{k}", h, h / 8)
        assert np.ptp(reference) > 0.3        # the saturation is reached: the Jacobian changes along the run
        errors.append(float(np.max(np.abs(got - reference))))
    observed = [math.log2(errors[k] / errors[k + 1]) for k in range(2)]
    assert errors[1] < 1e-3 * np.ptp(reference), errors
    assert all(abs(p - 2) < 0.3 for p in observed), f"errors {errors}, observed orders {observed}"


@pytest.mark.slow  # a speed check (thread CPU ratio in one run), kept out of make test as the guide asks
def test_a_step_with_new_inputs_costs_what_a_held_step_costs(fmus, tmp_path):
    h, steps = 1e-3, 300
    rig = Rig(fmus["HeavyInput", "imex2"], tmp_path, ("u",), h)
    changing = 0.5 * np.sin(2 * math.pi * 2.0 * h * np.arange(steps))
    t = 0.0

    def cpu_per_step(values) -> float:
        nonlocal t
        start = time.thread_time()
        for value in values:
            rig.step(t, h, (value,))
            t += h
        return (time.thread_time() - start) / steps

    ratios = []
    for _ in range(5):
        held = cpu_per_step(np.full(steps, changing[-1]))
        ratios.append(cpu_per_step(changing) / held)
    rig.close()
    assert float(np.median(ratios)) <= 1.3, f"new inputs / held inputs per step: {ratios}"
