"""The generator refuses an algebraic loop and an unsolvable equation with one line naming file:line; through
the command line, such refusals (and unsupported constructs) exit with code 1 and leave -o DIR untouched."""
from __future__ import annotations

import re

import pytest

from fmu_build.codegen.flat import load_flat
from fmu_build.codegen.model import generate
from fmu_build.errors import BuildError
from fmu_build.modelica import compile_source
from fmu_build.variables import ModelVariables
from fmu_helpers import write_package

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


# ---- refusals through the command line: one line naming file:line, exit code 1, -o left alone ----

LOOP_FREE = LOOP.replace("b = 0.5*a;", "b = 0.5*x;")
BOUNCE = """model Bounce "reinit: not supported by the native backend"
  Real h(start = 1, fixed = true);
  Real v(start = 0, fixed = true);
equation
  der(h) = v;
  der(v) = -9.81;
  when h < 0 then
    reinit(v, -0.8*pre(v));
  end when;
end Bounce;
"""
EXTERNAL = """model Ext "an external C function: the native backend has no C of it"
  function cube
    input Real u;
    output Real y;
  external "C" y = cube_impl(u);
  end cube;
  Real x(start = 1, fixed = true);
equation
  der(x) = -cube(x);
end Ext;
"""


def _fmu_build(*args, cwd):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "fmu_build.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def _snapshot(folder):
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def previous_fmu(tmp_path_factory, fmu_cache):
    """An FMU of Bad.Loop built while it had no loop: what a user's -o directory holds before a bad edit."""
    root = write_package(tmp_path_factory.mktemp("lib"), "Bad", {"Loop": LOOP_FREE})
    out = tmp_path_factory.mktemp("previous")
    done = _fmu_build("Bad.Loop", "--backend", "native", "--modelica-path", root, "-o", out, "--cache-dir", fmu_cache,
                      cwd=root)
    assert done.returncode == 0, done.stderr
    return out / "Bad_Loop.fmu"


@pytest.mark.parametrize("name, source, place", [
    ("Loop", LOOP, r"Loop\.mo:8\b.*Loop\.mo:9\b"),          # the two equations of the loop (+1: 'within')
    ("Bounce", BOUNCE, r"Bounce\.mo:9: 'Reinit'"),          # the reinit line
    ("Ext", EXTERNAL, r"Ext\.mo:3: .*external"),             # the external function's declaration
])
def test_cli_refusal_is_one_line_with_file_and_line_and_leaves_output_alone(name, source, place, previous_fmu,
                                                                          tmp_path, fmu_cache):
    root = write_package(tmp_path / "lib", "Bad", {name: source})
    empty, used = tmp_path / "empty", tmp_path / "used"
    empty.mkdir()
    used.mkdir()
    (used / f"Bad_{name}.fmu").write_bytes(previous_fmu.read_bytes())   # the FMU this build would replace
    before = _snapshot(used)
    for out in (empty, used):
        done = _fmu_build(f"Bad.{name}", "--backend", "native", "--modelica-path", root, "-o", out,
                          "--cache-dir", fmu_cache, cwd=tmp_path)
        assert done.returncode == 1, done
        assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("fmu-build: error: ") and re.search(place, done.stderr), done.stderr
    assert list(empty.iterdir()) == []
    assert _snapshot(used) == before


EARLY_RETURN = """model EarlyReturn
  function clipped
    input Real x;
    output Real y;
  algorithm
    y := x;
    if x > 1 then
      y := 1;
      return;
    end if;
  end clipped;
  Real s(start = 0, fixed = true);
  Real y[2];
equation
  der(s) = 1;
  y = {clipped(s), clipped(2*s)};
end EarlyReturn;
"""


def test_a_function_that_failed_to_translate_is_refused_each_time_it_is_asked_for(tmp_path):
    """The model writer's read analysis goes on past an unsupported construct and asks for the function
    again later; it once got the name of a C function never written, and the FMU built but did not load
    ("undefined symbol f_axleKinematics_24", a subscripted call target the backend did not translate then)."""
    from fmu_build.codegen.cexpr import Unsupported
    from fmu_build.codegen.functions import FunctionTable

    flat = load_flat(compile_source(EARLY_RETURN, "EarlyReturn", tmp_path))
    name = next(k for k in flat.functions if k.endswith("clipped"))
    for ask in (lambda table: table.use(name), lambda table: table.variant(name, None, frozenset({0}))):
        table = FunctionTable(flat.functions, flat.where)
        for _ in range(2):
            with pytest.raises(Unsupported, match="return"):
                ask(table)
        assert not table.code or all("clipped" not in key for key in table.code)
