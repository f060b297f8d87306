"""The generator refuses an algebraic loop and an unsolvable equation with one line naming file:line."""
from __future__ import annotations

import re

import pytest

from fmu_build.codegen.flat import load_flat
from fmu_build.codegen.model import generate
from fmu_build.errors import BuildError
from fmu_build.modelica import compile_source
from fmu_build.variables import ModelVariables

LOOP = """model Loop
  Real x(start = 1, fixed = true);
  Real a;
  Real b;
equation
  der(x) = -a;
  a = b + x;
  b = 0.5*a;
end Loop;
"""
IMPLICIT = """model Implicit
  Real x(start = 1, fixed = true);
  Real a;
equation
  der(x) = -a;
  a = x - 0.1*sin(a);
end Implicit;
"""
EXPLICIT = """model Explicit
  parameter Real k = 2;
  parameter Real tau = 1/k;
  Real x(start = 1, fixed = true);
  Real a;
equation
  tau*der(x) = -a;
  a = x;
end Explicit;
"""


def _generate(source: str, name: str, tmp_path):
    flat = load_flat(compile_source(source, name, tmp_path))
    flat.name = name
    return generate(flat, ModelVariables(name))


def test_algebraic_loop_is_refused_naming_both_equations(tmp_path):
    with pytest.raises(BuildError) as error:
        _generate(LOOP, "Loop", tmp_path)
    message = str(error.value)
    assert "\n" not in message and message.startswith("algebraic loop")
    assert re.search(r"Loop\.mo:7\b", message) and re.search(r"Loop\.mo:8\b", message), message


def test_unknown_inside_a_nonlinear_function_is_refused_with_its_line(tmp_path):
    with pytest.raises(BuildError) as error:
        _generate(IMPLICIT, "Implicit", tmp_path)
    message = str(error.value)
    assert "\n" not in message and re.search(r"Implicit\.mo:6: ", message), message
    assert "sin" in message.lower() or "builtin" in message.lower() or "not solvable" in message, message


def test_linear_unknown_is_isolated_and_bindings_are_ordered(tmp_path):
    code = _generate(EXPLICIT, "Explicit", tmp_path).source
    body = code.split("void model_calculated_parameters", 1)[1].split("}", 1)[0]
    assert "1 / " in body.replace("(1 / ", "1 / ") or "/ m->r" in body, body   # tau = 1/k from k
    outputs = code.split("static void continuous_equations", 1)[1].split("\n}", 1)[0]
    assert re.search(r"= \(\(-m->r\[\d+\]\) / m->r\[\d+\]\);", outputs), outputs    # der(x) = -a/tau
