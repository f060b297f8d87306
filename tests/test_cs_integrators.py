"""The native Co-Simulation integrators (rk4, heun, ab2) against the analytic solution of a damped
linear oscillator: the error at a fixed internal step, and the order of convergence when the step halves.

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

PACKAGE = """within;
package IntegratorCheck "test package of the Co-Simulation integrators"
end IntegratorCheck;
"""
OSCILLATOR = """within IntegratorCheck;
model Oscillator "damped linear oscillator"
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
W, ZETA, STOP, COMMUNICATION = 2 * math.pi * 1.5, 0.2, 2.0, 0.01
# integrator -> (order, error bound at a 2 ms internal step, relative to the amplitude)
EXPECTED = {"rk4": (4, 5e-9), "heun": (2, 2e-4), "ab2": (2, 5e-4)}


def exact(t: np.ndarray) -> np.ndarray:
    wd = W * math.sqrt(1 - ZETA ** 2)
    return np.exp(-ZETA * W * t) * (np.cos(wd * t) + ZETA * W / wd * np.sin(wd * t))


@pytest.fixture(scope="module")
def package_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("modelica")
    (folder / "IntegratorCheck").mkdir()
    (folder / "IntegratorCheck" / "package.mo").write_text(PACKAGE)
    (folder / "IntegratorCheck" / "Oscillator.mo").write_text(OSCILLATOR)
    (folder / "IntegratorCheck" / "package.order").write_text("Oscillator\n")
    return folder


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
