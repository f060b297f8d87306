"""The derivative function computes each elementary value once (an if-expression's arm reuses the call the
function makes unconditionally) and arithmetic of parameters only at initialisation, not every step."""
from __future__ import annotations

import re

from fmu_build.codegen.flat import load_flat
from fmu_build.codegen.model import _OUTPUTS_ONLY, generate
from fmu_build.codegen.shared_calls import share_elementary_calls
from fmu_build.modelica import compile_source
from fmu_build.variables import ModelVariables

TILT = """model Tilt
  parameter Boolean tilt = true;
  parameter Real k = 2;
  parameter Real c = 3;
  Real x(start = 0.1, fixed = true);
  Real v(start = 0, fixed = true);
  Real f[2] "sin(x) in an if-expression's arm, once per element";
  output Real y "an output no derivative reads";
equation
  f = if tilt then {sin(x)*k*i for i in 1:2} else zeros(2);
  der(x) = v;
  der(v) = f[1] + f[2] - sin(x) - k*c*x - (if tilt then cos(x) else 0);
  y = cos(x);
end Tilt;
"""


def _function(source: str, signature: str) -> str:
    return re.search(re.escape(signature) + r"\n\{\n(.*?)\n\}\n", source, re.S).group(1)


def test_an_arm_reuses_the_unconditional_call_and_parameter_products_move_to_initialisation(tmp_path):
    flat = load_flat(compile_source(TILT, "Tilt", tmp_path))
    flat.name = "Tilt"
    source = generate(flat, ModelVariables("Tilt")).source
    body = _function(source, "static void continuous_equations(ModelInstance *m, int outputs)")
    derivatives, outputs = body.split(_OUTPUTS_ONLY)
    assert len(re.findall(r"\bsin\(", body)) == 1, body
    # cos(x) of the output part stays there: a derivative-only evaluation does not compute it
    assert len(re.findall(r"\bcos\(", derivatives)) == 1 and len(re.findall(r"\bcos\(", outputs)) == 1, body
    products = re.findall(r"\(m->r\[\d+\] \* m->r\[\d+\]\)", _function(source, "void model_calculated_parameters(ModelInstance *m)"))
    assert products and not any(p in body for p in products), body


SPLIT = "if (!outputs) return;"


def test_a_call_whose_argument_is_written_in_between_stays_where_it_is():
    lines = ["m->r[3] = (m->b[0] ? sin(m->r[1]) : 0.0);",
             "m->r[6] = (m->b[0] ? cos(m->r[5]) : 0.0);",
             "f_map(m, &m->r[0], &m->r[4]);",          # writes m->r[4] and the rest of its variable
             "const double v1 = sin(m->r[1]);",
             "const double v2 = cos(m->r[5]);",
             SPLIT]
    out = share_elementary_calls(lines, {4: (2, True)}, SPLIT)
    assert out[:2] == ["const double v1 = sin(m->r[1]);", "m->r[3] = (m->b[0] ? v1 : 0.0);"]
    assert "cos(m->r[5])" in out[2] and out[4] == "const double v2 = cos(m->r[5]);", out


def test_a_call_reading_a_temporary_of_a_block_stays_in_the_block():
    lines = ["if (m->b[0]) {", "    const double v3 = 2 * m->r[1];", "    m->r[2] = tan(v3);", "}",
             "const double v4 = tan(v3);", SPLIT]
    assert share_elementary_calls(lines, {}, SPLIT) == lines
