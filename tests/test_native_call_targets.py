"""Modelica lets a function call statement put its outputs into array elements, ``(t[w], d[w, 1]) := f(x)``
(spec 11.2.1.1); the native backend translates it (it once refused it). The subscripts here are constants:
rumoca 0.10.2 refuses a loop index there ("missing function loop initial value definition")."""
from __future__ import annotations

import math

import pytest

from fmu_build.cli import main
from fmu_build.modelica import use_modelica_path
from fmu_helpers import write_package

PAIR = """function pair
  input Real x;
  output Real a;
  output Real b[2];
algorithm
  a := 2*x;
  b := {x*x, -x};
end pair;
"""
PER_WHEEL = """function perWheel "each wheel's outputs into elements of arrays"
  input Real x;
  output Real y[2, 3];
protected
  Real t[2];
  Real d[2, 2];
  Real b[2];
algorithm
  (t[1], b) := pair(x + 1);
  d[1, 1] := b[1];
  (d[1, 2], ) := pair(x);
  (t[2], b) := pair(x + 2);
  d[2, 1] := b[1];
  (d[2, 2], ) := pair(2*x);
  y := {{t[1], d[1, 1], d[1, 2]}, {t[2], d[2, 1], d[2, 2]}};
end perWheel;
"""
WHEELS = """model Wheels
  Real s(start = 1, fixed = true);
  output Real y[2, 3];
equation
  der(s) = -s;
  y = perWheel(s);
end Wheels;
"""


@pytest.fixture(autouse=True)
def _no_leftover_path():
    yield
    use_modelica_path([])


def test_outputs_of_a_call_statement_go_into_array_elements(tmp_path, fmu_cache):
    from fmpy import simulate_fmu

    write_package(tmp_path / "lib", "Probe", {"pair": PAIR, "perWheel": PER_WHEEL, "Wheels": WHEELS})
    assert main(["Probe.Wheels", "--modelica-path", str(tmp_path / "lib"), "--backend", "native", "--fmi-type", "cs",
                 "-o", str(tmp_path / "out"), "--cache-dir", str(fmu_cache)]) == 0
    names = ["y[1,1]", "y[1,2]", "y[1,3]", "y[2,1]", "y[2,2]", "y[2,3]"]
    result = simulate_fmu(tmp_path / "out" / "Probe_Wheels.fmu", stop_time=1.0, output_interval=0.1, output=names)
    s = math.exp(-1.0)
    expected = [2*(s + 1), (s + 1)**2, 2*s, 2*(s + 2), (s + 2)**2, 4*s]
    assert [result[n][-1] for n in names] == pytest.approx(expected, rel=1e-4)

