"""The Co-Simulation step refuses non-finite states and derivatives with one message naming the first such
state, a state whose value is not finite before one whose derivative only is (the wrapper checks finiteness once per step on a sum and looks for the state only on failure)."""
from __future__ import annotations

import re

import pandas as pd
import pytest

pytest.importorskip("fmpy")

from fmu_helpers import write_package  # noqa: E402

# b blows up at t = 1 s (b = 1/(1 - t)); a and c decay and stay finite, d stays finite because it saturates
DIVERGE = """model Diverge "one of four states diverges"
    input Real u;
    Real a(start = 1, fixed = true);
    Real b(start = 1, fixed = true);
    Real c(start = 1, fixed = true);
    Real d(start = 0, fixed = true);
    output Real y;
  equation
    der(a) = -a;
    der(b) = b * b + u;
    der(c) = -2 * c;
    der(d) = 1 - d;
    y = a + c + d;
end Diverge;
"""


@pytest.mark.parametrize("integrator", ["imex2", "rk4"])
def test_divergence_names_the_first_non_finite_state(integrator, fmu_cache, tmp_path):
    from fmu_build import build_fmu
    from pybridge.simulate.fmu import FMUSession, FMUSessionError

    root = write_package(tmp_path / "lib", "Probe", {"Diverge": DIVERGE})
    fmu = build_fmu("Probe.Diverge", backend="native", fmi_type="cs", out_dir=root / "out", cache_dir=fmu_cache,
                    modelica_path=[root], integrator=integrator)
    inputs = pd.DataFrame({"time": [0.0, 2.0], "u": [0.0, 0.0]})
    with FMUSession(fmu) as session:
        with pytest.raises(FMUSessionError) as error:
            session.simulate(inputs, 2.0, 0.01, ["y"], runner="fmpy")
        message = str(error.value)
        found = re.search(r"fmi2DoStep: the simulation diverged at t = (\S+) s: (\w+) = (\S+), its derivative (\S+)$",
                          message)
        assert found and found[2] == "b", message
        assert 0.9 < float(found[1]) < 1.1, message
        assert "inf" in found[3] + found[4] or "nan" in found[3] + found[4], message
        finite = session.simulate(inputs, 0.9, 0.01, ["y"], runner="fmpy")   # the session resets; no error before
        assert finite["y"].iloc[-1] == pytest.approx(0.4066 + 0.1653 + 0.5934, rel=1e-3)


# z relaxes to 1 at 3170 1/s: RK4 at the 1 ms default step (|h*lambda| = 3.17, past its 2.8) makes it oscillate,
# x1.74 per step, until it overflows; a only multiplies it by g = 0, so a stays finite and its derivative turns
# NaN (0*inf) once z is infinite: the stiff, decoupled state of the van's released brakes (PressureBrakes.z).
RUNAWAY = """model Runaway "a decoupled stiff state runs away; the state before it sees it through 0*z"
    input Real u;
    parameter Real g = 0;
    Real a(start = 1, fixed = true);
    Real z(start = 0, fixed = true);
    output Real y;
  equation
    der(a) = -a + g * z + u;
    der(z) = 3170 * (1 - z);
    y = a;
end Runaway;
"""


def test_divergence_names_the_state_that_ran_away_not_one_its_overflow_made_nan(fmu_cache, tmp_path):
    from fmu_build import build_fmu
    from pybridge.simulate.fmu import FMUSession, FMUSessionError

    root = write_package(tmp_path / "lib", "Probe", {"Runaway": RUNAWAY})
    fmu = build_fmu("Probe.Runaway", backend="native", fmi_type="cs", out_dir=root / "out", cache_dir=fmu_cache,
                    modelica_path=[root], integrator="rk4")
    inputs = pd.DataFrame({"time": [0.0, 3.0], "u": [0.0, 0.0]})
    with FMUSession(fmu) as session:
        with pytest.raises(FMUSessionError) as error:
            session.simulate(inputs, 3.0, 0.01, ["y"], runner="fmpy")
    found = re.search(r"diverged at t = (\S+) s: (\w+) = (\S+), its derivative (\S+)$", str(error.value))
    assert found and found[2] == "z" and found[3] in ("inf", "-inf", "nan", "-nan"), str(error.value)
