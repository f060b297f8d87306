"""A state declared in a protected section is still a state: the native backend integrates it (it once
dropped protected variables before telling states from locals, so such a state stayed at its start)."""
from __future__ import annotations

import math

import pytest

from fmu_build.cli import main
from fmu_build.modelica import use_modelica_path
from fmu_helpers import write_package

DECAY = """model Decay "a first-order decay whose state is protected"
  parameter Real rate = 2 "1/s";
  output Real y "the protected state, seen from outside";
protected
  Real x(start = 1, fixed = true);
equation
  der(x) = -rate * x;
  y = x;
end Decay;
"""


@pytest.fixture(autouse=True)
def _no_leftover_path():
    yield
    use_modelica_path([])


@pytest.mark.parametrize("fmi_type", ["cs", "me"])
def test_a_protected_state_is_integrated(tmp_path, fmu_cache, fmi_type):
    from fmpy import simulate_fmu

    write_package(tmp_path / "lib", "Probe", {"Decay": DECAY})
    out = tmp_path / "out"
    assert main(["Probe.Decay", "--modelica-path", str(tmp_path / "lib"), "--backend", "native", "--fmi-type", fmi_type,
                 "-o", str(out), "--cache-dir", str(fmu_cache)]) == 0
    result = simulate_fmu(out / "Probe_Decay.fmu", stop_time=1.0, output_interval=0.05, output=["y"],
                          fmi_type="CoSimulation" if fmi_type == "cs" else "ModelExchange")
    assert result["y"][0] == pytest.approx(1.0)
    assert result["y"][-1] == pytest.approx(math.exp(-2.0), rel=1e-3)
