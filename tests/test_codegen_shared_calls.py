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


SOLVE3 = """model Solve3
  function f "x = A * b, element by element (an array output: called, not expanded)"
    input Real A[3, 3];
    input Real b[3];
    output Real x[3];
  algorithm
    for i in 1:3 loop
      x[i] := A[i, 1] * b[1] + A[i, 2] * b[2] + A[i, 3] * b[3];
    end for;
  end f;
  parameter Real k = 2;
  parameter Real c = 0.5;
  Real p(start = 0.1, fixed = true);
  Real q(start = 0, fixed = true);
  Real a "read by an output only: its element is computed after the derivatives";
  output Real y;
  output Real z[3] "the same function on other arguments: a call of its own";
equation
  {a, der(p), der(q)} = f({{k, c, 0}, {c, k, c}, {0, c, k}}, {-p, -q, sin(time) + p * q});
  y = a * p;
  z = f({{k, c, 0}, {c, k, c}, {0, c, k}}, {p, q, 0});
end Solve3;
"""


def test_an_array_output_call_on_equal_arguments_is_made_once(tmp_path):
    """Each element of {a, der(p), der(q)} = f(...) is its own equation; the first call's output array serves
    the others (the output part's too: it runs after the derivative part), its argument arrays are built once."""
    flat = load_flat(compile_source(SOLVE3, "Solve3", tmp_path))
    flat.name = "Solve3"
    source = generate(flat, ModelVariables("Solve3")).source
    body = _function(source, "static void continuous_equations(ModelInstance *m, int outputs)")
    derivatives, outputs = body.split(_OUTPUTS_ONLY)
    calls = re.findall(r"\bf_f\w*\(m, (\w+), (\w+), ([^)]+)\);", body)
    assert len(calls) == 2 and len(re.findall(r"\bf_f\w*\(m, ", derivatives)) == 1, body
    first = calls[0][2]
    assert len(re.findall(rf"= {first}\[[0-2]\];", body)) == 3, body
    assert re.search(rf"= {first}\[0\];", outputs), body
    assert calls[1][0] == calls[0][0] and calls[1][1] != calls[0][1], body     # the same matrix, another vector
    assert len(re.findall(r"double a\d+\[9\]", body)) == 1, body


POINTER = """model Pointer
  function f
    input Real b[3];
    output Real x[3];
  algorithm
    for i in 1:3 loop
      x[i] := 2 * b[i];
    end for;
  end f;
  Real p(start = 0.1, fixed = true);
  Real X[3];
  Real a;
  Real c;
equation
  {a, der(p), c} = f(X);
  X[1] = p;
  X[2] = sin(p);
  X[3] = cos(p);
end Pointer;
"""


def test_a_call_reading_a_model_array_through_a_pointer_comes_after_every_element(tmp_path):
    """f(X) reads all of X (a pointer to it): every element is assigned before the call, in the derivative
    part, so the other equations of the call may read its outputs."""
    flat = load_flat(compile_source(POINTER, "Pointer", tmp_path))
    flat.name = "Pointer"
    body = _function(generate(flat, ModelVariables("Pointer")).source,
                     "static void continuous_equations(ModelInstance *m, int outputs)")
    lines = [line.strip() for line in body.splitlines()]
    call = next(k for k, line in enumerate(lines) if re.match(r"f_f\w*\(m, &m->r\[\d+\], out\d+\);", line))
    first = int(re.search(r"&m->r\[(\d+)\]", lines[call])[1])
    writes = [k for k, line in enumerate(lines) if re.match(rf"m->r\[{first}( \+ [12])?\] = ", line)]
    assert len(writes) == 3 and max(writes) < call < lines.index(_OUTPUTS_ONLY), body
