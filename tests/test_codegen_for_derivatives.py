"""For-equations over der() of an array (rumoca's flat stage leaves their interior points as ``der(z[3]) = 0``)
give the native FMU the derivatives they say: the FMU matches the analytic solution and rumoca's own
simulation; the generator refuses a dropped derivative, a for-equation it cannot read, an algorithm section."""
from __future__ import annotations

import copy
import re

import numpy as np
import pytest
import rumoca
import scipy.linalg

from fmu_build import build_fmu
from fmu_build.codegen import model as codegen_model
from fmu_build.codegen.flat import load_flat
from fmu_build.codegen.model import generate
from fmu_build.errors import BuildError
from fmu_build.modelica import compile_source, use_modelica_path
from fmu_build.variables import ModelVariables

FOR_BUG = """package ForBug
  block B
    input Real omega[4]; output Real y[4]; Real z[4](each start = 0);
  equation
    for i in 1:4 loop der(z[i]) = omega[i] - z[i]; y[i] = 2*z[i]; end for;
  end B;
  model M
    B b; Real w[4](each start = 1);
  equation
    b.omega = w; der(w) = -0.1*b.y;
  end M;
end ForBug;
"""
NESTED = """package Nested
  model M "der(z[i,j]) = j - i*z[i,j]: z[i,j](t) = j/i + (z0 - j/i)*exp(-i*t)"
    Real z[3,4](each start = 0);
    Real v[5];
    Real u[4](start = {1, 1, 1, 2});
  equation
    for i in 1:3, j in 1:4 loop der(z[i,j]) = j - i*z[i,j]; end for;
    for k in 1:5 loop der(v[k]) = if k > 2 then -v[k] else -0.5*v[k]; end for;
    for i in 1:3 loop der(u[i]) = u[i + 1] - u[i]; end for;
    der(u[4]) = 0;
  initial equation
    for k in 1:5 loop v[k] = k; end for;
  end M;
end Nested;
"""


@pytest.fixture(autouse=True)
def _own_modelica_path():
    """build_fmu(modelica_path=...) sets the path for the process: the next test starts without it."""
    yield
    use_modelica_path(None)


def _simulate(fmu, names, stop=10.0):
    from fmpy import simulate_fmu

    return simulate_fmu(str(fmu), stop_time=stop, output_interval=0.1, output=names)


def test_for_over_array_derivatives_in_a_component_matches_the_analytic_solution_and_rumoca(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "ForBug.mo").write_text(FOR_BUG)
    fmu = build_fmu("ForBug.M", backend="native", fmi_type="cs", out_dir=tmp_path / "out", cache=False,
                    modelica_path=[tmp_path / "lib"])
    names = [f"b.z[{k}]" for k in range(1, 5)] + [f"w[{k}]" for k in range(1, 5)]
    result = _simulate(fmu, names)
    a = np.zeros((8, 8))
    a[:4, :4], a[:4, 4:], a[4:, :4] = -np.eye(4), np.eye(4), -0.2 * np.eye(4)   # z' = w - z, w' = -0.2 z
    exact = np.array([scipy.linalg.expm(a * t) @ np.r_[np.zeros(4), np.ones(4)] for t in result["time"]])
    for k, name in enumerate(names):
        assert np.max(np.abs(result[name] - exact[:, k])) < 1e-5, name     # measured 1.6e-7
    session = rumoca.Session(roots=[str(tmp_path / "lib")])
    reference = session.load(str(tmp_path / "lib" / "ForBug.mo"), model="ForBug.M").simulate(t=(0.0, 10.0), dt=0.1)
    for name in names:
        assert np.max(np.abs(result[name] - np.interp(result["time"], reference.time, reference[name]))) < 1e-4, name


def test_nested_shifted_and_if_for_over_derivatives_and_initial_for_equations(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "Nested.mo").write_text(NESTED)
    fmu = build_fmu("Nested.M", backend="native", fmi_type="cs", out_dir=tmp_path / "out", cache=False,
                    modelica_path=[tmp_path / "lib"])
    names = ([f"z[{i},{j}]" for i in range(1, 4) for j in range(1, 5)] + [f"v[{k}]" for k in range(1, 6)]
             + [f"u[{k}]" for k in range(1, 5)])
    result = _simulate(fmu, names, stop=2.0)
    t = result["time"]
    for i in range(1, 4):
        for j in range(1, 5):
            assert np.max(np.abs(result[f"z[{i},{j}]"] - j / i * (1 - np.exp(-i * t)))) < 1e-4, (i, j)
    for k in range(1, 6):
        assert np.max(np.abs(result[f"v[{k}]"] - k * np.exp(-(1.0 if k > 2 else 0.5) * t))) < 1e-4, k
    a = np.diag([-1.0, -1.0, -1.0, 0.0]) + np.diag([1.0, 1.0, 1.0], 1)    # u[i]' = u[i+1] - u[i], u[4]' = 0
    exact = np.array([scipy.linalg.expm(a * s) @ [1.0, 1.0, 1.0, 2.0] for s in t])
    for k in range(4):
        assert np.max(np.abs(result[f"u[{k + 1}]"] - exact[:, k])) < 1e-4, k


def _flat(tmp_path, source=FOR_BUG, name="ForBug.M"):
    flat = load_flat(compile_source(source, name, tmp_path))
    flat.name = name
    return flat


def test_a_dropped_derivative_is_refused_naming_the_state(tmp_path, monkeypatch):
    split = codegen_model.split_for_derivatives

    def dropping(equations, roots):
        needed, other = split(equations, roots)
        return [eq for eq in needed if ("der(b.z)", 2) not in eq.solves], other

    monkeypatch.setattr(codegen_model, "split_for_derivatives", dropping)
    with pytest.raises(BuildError) as error:
        generate(_flat(tmp_path), ModelVariables("ForBug.M"))
    message = str(error.value)
    assert "\n" not in message and re.match(r".*ForBug\.mo:3: der\(b\.z\[3\]\) is computed by 0 ", message), message


def test_a_for_equation_expanded_unlike_its_template_is_refused(tmp_path):
    from fmu_build.codegen.structured import expand_structured

    model = compile_source(FOR_BUG, "ForBug.M", tmp_path)
    raw, flat = model.to_dict("flat"), load_flat(model)
    equations = copy.deepcopy(raw["equations"])
    equations[0]["residual"]["Binary"]["rhs"] = {"Literal": {"value": {"Real": 1.0}}}   # der(z[1]) = 1
    with pytest.raises(BuildError) as error:
        expand_structured(equations, raw["structured_equations"], flat.where)
    assert re.match(r".*ForBug\.mo:5: .* at i = 1 differs from its template", str(error.value)), str(error.value)


def test_an_algorithm_section_is_refused_with_its_line(tmp_path):
    source = ("model Alg\n  Real x(start = 1);\n  Real a;\nequation\n  der(x) = -a;\nalgorithm\n"
              "  a := 2*x;\nend Alg;\n")
    with pytest.raises(BuildError) as error:
        _flat(tmp_path, source, "Alg")
    assert re.match(r".*Alg\.mo:7: an algorithm section is not supported", str(error.value)), str(error.value)


def test_a_rumoca_panic_is_a_build_error_naming_the_file(tmp_path):
    """rumoca 0.10 panics on a reduction inside a for-equation; pyo3's PanicException is no Exception, so a bare
    traceback reached the user before."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "Panics.mo").write_text("""package Panics
  model M
    Real z[4](each start = 1);
  equation
    for i in 1:4 loop der(z[i]) = sum(z[j] for j in 1:4) - 2*z[i]; end for;
  end M;
end Panics;
""")
    try:
        fmu = build_fmu("Panics.M", backend="native", fmi_type="cs", out_dir=tmp_path / "out", cache=False,
                        modelica_path=[tmp_path / "lib"])
    except BuildError as error:
        assert "Panics" in str(error)
    else:   # a rumoca that flattens it: the FMU must then be right (z' = sum(z) - 2 z keeps all equal: z = e^(2t))
        from fmpy import simulate_fmu

        result = simulate_fmu(str(fmu), stop_time=0.5, output_interval=0.1, output=["z[3]"])
        assert abs(result["z[3]"][-1] - np.exp(1.0)) < 1e-3
