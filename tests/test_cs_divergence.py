"""The Co-Simulation step refuses non-finite states and derivatives with one message naming the first such
state (the wrapper checks finiteness once per step on a sum and looks for the state only on failure)."""
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
