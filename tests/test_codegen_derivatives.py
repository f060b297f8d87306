"""The continuous equations are split for the integrators' intermediate stages: what the state
derivatives (and the continuous asserts) need comes first, and model_derivatives returns before the
equations that compute only outputs and locals."""
from __future__ import annotations

import re

from fmu_build.codegen.flat import load_flat
from fmu_build.codegen.model import generate
from fmu_build.modelica import compile_source
from fmu_build.variables import ModelVariables

SPLIT = """model Split
  Real x(start = 1, fixed = true);
  Real a "feeds der(x)";
  Real z "feeds y only";
  output Real y "an output no derivative reads";
  Real w "read by an assert only";
equation
  z = sin(x);
  y = z + 1;
  a = 2*x;
  der(x) = -a;
  w = cos(x);
  assert(w > -2, "w out of range");
end Split;
"""


def _continuous_equations(tmp_path) -> tuple[str, dict, str]:
    flat = load_flat(compile_source(SPLIT, "Split", tmp_path))
    flat.name = "Split"
    model = generate(flat, ModelVariables("Split"))
    body = re.search(r"static void continuous_equations\(ModelInstance \*m, int outputs\)\n\{\n(.*?)\n\}",
                     model.source, re.S).group(1)
    slots = {v.name: f"m->r[{v.value_reference}]" for v in model.variables.variables if v.type == "Real"}
    return body, slots, model.source


def _line_of(body: str, target: str) -> int:
    lines = body.splitlines()
    return next(k for k, line in enumerate(lines) if line.strip().startswith(f"{target} ="))


def test_derivative_inputs_come_before_the_early_return_and_output_only_equations_after(tmp_path):
    body, slots, source = _continuous_equations(tmp_path)
    marker = next(k for k, line in enumerate(body.splitlines()) if "if (!outputs) return;" in line)
    for name in ("a", "der(x)", "w"):
        assert _line_of(body, slots[name]) < marker, name
    for name in ("z", "y"):
        assert _line_of(body, slots[name]) > marker, name
    assert re.search(r"void model_derivatives\(ModelInstance \*m\)\n\{\n    continuous_equations\(m, 0\);\n"
                     r"    if \(!\(", source), "model_derivatives runs the derivative part and the assert"


SLICE_CALL = """package SliceCall
  function pair "an array result"
    input Real a;
    input Real b[2];
    output Real d[2];
  algorithm
    d := {a*b[1], a*b[2]};
  end pair;
  function rows "each row of d assigned from one array-valued call"
    input Real a[2];
    input Real b[2, 2];
    output Real d[2, 2];
  algorithm
    for w in 1:2 loop
      d[w, :] := pair(a[w], b[w, :]);
    end for;
  end rows;
  model M
    Real x(start = 1, fixed = true);
    Real d[2, 2];
  equation
    d = rows({x, 2*x}, {{1, 2}, {3, 4}});
    der(x) = -x + d[1, 1] + d[2, 2];
  end M;
end SliceCall;
"""


def test_an_array_call_assigned_to_a_slice_is_made_once_not_once_per_element(tmp_path):
    flat = load_flat(compile_source(SLICE_CALL, "SliceCall.M", tmp_path))
    flat.name = "SliceCall.M"
    source = generate(flat, ModelVariables("SliceCall.M")).source
    rows = re.search(r"static void f_\w*rows\w*\(ModelInstance \*m, [^)]*\)\n\{\n(.*?)\n\}\n", source, re.S).group(1)
    assert len(re.findall(r"f_\w*pair\w*\(m, ", rows)) == 1, rows
