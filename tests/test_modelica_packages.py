"""Every package layout the Modelica language allows, found from a parse and built like the library
(issue 30): a single-file package on MODELICAPATH, a package.mo holding nested classes and a short class
definition without 'within', package.order; and errors that point into the user's file."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fmu_build.cli import main
from fmu_build.modelica import LIBRARY_DIR, library_classes, package_classes, use_modelica_path
from fmu_helpers import nrmse

CORNER = """  model Corner "a quarter car falling onto its spring"
    parameter Real m(unit = "kg") = 400;
    parameter Real k(unit = "N/m") = 2e4;
    parameter Real d(unit = "N.s/m") = 1500;
    Real z(start = 0.05, fixed = true, unit = "m");
    Real v(start = 0, fixed = true, unit = "m/s");
    output Real force(unit = "N");
  equation
    der(z) = v;
    m*der(v) = -k*z - d*v;
    force = k*z + d*v;
    annotation(experiment(StopTime = 2, Interval = 0.01));
  end Corner;
"""
BAR_SINGLE = f"""package BarSingle "one file, as an editor saves a new package"
{CORNER}  model Heavy = Corner(m = 600) "a short class definition";
  package Parts
    type Travel = Real(unit = "m");
    partial model Base
    end Base;
  end Parts;
end BarSingle;
"""
BAR_NESTED = BAR_SINGLE.replace("BarSingle", "BarNested").replace("one file, as an editor saves a new package",
                                                                  "package.mo with nested classes, no within")


@pytest.fixture(autouse=True)
def _no_leftover_path():
    yield
    use_modelica_path([])


@pytest.fixture
def lib(tmp_path) -> Path:
    """DIR/BarSingle.mo and DIR/BarNested/package.mo (+ a package.order listing nested classes)."""
    folder = tmp_path / "lib"
    (folder / "BarNested").mkdir(parents=True)
    (folder / "BarSingle.mo").write_text(BAR_SINGLE)
    (folder / "BarNested" / "package.mo").write_text(BAR_NESTED)
    (folder / "BarNested" / "package.order").write_text("Parts\nHeavy\nCorner\n")
    return folder


def _old_discovery() -> dict[str, tuple]:
    """The library as the regular expressions of the code before issue 30 read it: one class per file,
    named by its within clause, with the first experiment annotation of the file."""
    found = {}
    for path in sorted((LIBRARY_DIR / "VehicleRTM").rglob("*.mo")):
        text = path.read_text()
        within = re.search(r"^\s*within\b\s*([\w.]*)\s*;", text, re.M).group(1)
        kind, short = re.search(r"^\s*(?:encapsulated\s+)?(?:partial\s+)?(?:expandable\s+)?"
                                r"(model|block|function|record|package|connector|type)\s+(\w+)", text, re.M).groups()
        experiment = re.search(r"experiment\s*\(([^)]*)\)", text)
        values = dict((k, float(v)) for k, v in re.findall(r"(\w+)\s*=\s*([-+0-9.eE]+)", experiment.group(1))) \
            if experiment else {}
        partial = re.search(rf"\bpartial\s+{kind}\s+{short}\b", text) is not None
        found[f"{within}.{short}" if within else short] = (kind, path, partial, values)
    return found


def test_the_library_is_found_exactly_as_before():
    new = {c.name: (c.kind, c.path, c.partial, c.experiment) for c in library_classes()}
    assert len(new) > 100 and new == _old_discovery()
    order = [c.name for c in library_classes() if c.name.count(".") == 1]
    listed = (LIBRARY_DIR / "VehicleRTM" / "package.order").read_text().split()
    assert order == [f"VehicleRTM.{name}" for name in listed] and order != sorted(order)   # package.order


def test_single_file_nested_and_short_classes_are_listed(lib, capsys, monkeypatch):
    monkeypatch.setenv("MODELICAPATH", str(lib))
    assert main(["list", "BarSingle"]) == 0
    listed = capsys.readouterr().out.split("\n")
    assert [line.split()[1] for line in listed if line] == [
        "BarSingle", "BarSingle.Corner", "BarSingle.Heavy", "BarSingle.Parts", "BarSingle.Parts.Travel",
        "BarSingle.Parts.Base"]
    assert "model     BarSingle.Parts.Base (partial)" in listed
    monkeypatch.delenv("MODELICAPATH")
    assert main(["list", "BarNested", "--modelica-path", str(lib), "--native"]) == 0
    assert capsys.readouterr().out.split() == ["model", "BarNested.Heavy", "model", "BarNested.Corner"]  # package.order
    heavy = {c.name: c for c in package_classes("BarNested")}["BarNested.Heavy"]
    assert heavy.short and (heavy.line, heavy.column) == (15, 9)


def test_the_first_package_on_the_path_wins(lib, tmp_path, capsys):
    other = tmp_path / "other"
    other.mkdir()
    (other / "BarSingle.mo").write_text("package BarSingle\n  model Corner\n    parameter Real m = 1;\n"
                                        "    Real x(start = 1, fixed = true);\n  equation\n    der(x) = -x;\n"
                                        "  end Corner;\nend BarSingle;\n")
    assert main(["list", "BarSingle", "--modelica-path", str(other), "--modelica-path", str(lib)]) == 0
    assert capsys.readouterr().out.split() == ["package", "BarSingle", "model", "BarSingle.Corner"]
    from fmu_build.modelica import load_model

    for first, states in ((other, 1), (lib, 2)):   # rumoca compiles the same one
        use_modelica_path([first, lib if first == other else other])
        assert load_model("BarSingle.Corner").structure().n_states == states


@pytest.mark.parametrize("model, how", [("BarSingle.Corner", "MODELICAPATH"), ("BarNested.Heavy", "flag")])
def test_user_classes_build_fmus_that_match_rumoca(lib, tmp_path, fmu_cache, monkeypatch, model, how):
    from fmpy import simulate_fmu

    from fmu_build.modelica import simulate_example

    flag = ["--modelica-path", str(lib)] if how == "flag" else []
    if how == "MODELICAPATH":
        monkeypatch.setenv("MODELICAPATH", str(lib))
    out = tmp_path / "out"
    assert main([model, *flag, "--backend", "native", "--fmi-type", "cs", "-o", str(out),
                 "--cache-dir", str(fmu_cache)]) == 0
    use_modelica_path([lib])
    reference = simulate_example(model, stop_time=2.0, interval=0.01)
    result = simulate_fmu(out / f"{model.replace('.', '_')}.fmu", stop_time=2.0, output_interval=0.01,
                          output=["z", "force"])
    assert np.ptp(result["z"]) > 0.04   # it moves, so the comparison can fail
    for name in ("z", "force"):
        values = np.interp(np.asarray(reference.time), result["time"], result[name])
        assert nrmse(np.asarray(reference[name]), values) < 0.01, name
    mass = simulate_fmu(out / f"{model.replace('.', '_')}.fmu", stop_time=0.01, output=["m"])["m"][0]
    assert mass == (600 if model.endswith("Heavy") else 400)


def test_a_change_anywhere_in_a_single_file_package_changes_the_cache_key(lib):
    from fmu_build.build import build_key
    from fmu_build.modelica import find_class

    use_modelica_path([lib])
    key = build_key(find_class("BarSingle.Corner"), "native", "cs", 1e-3)
    path = lib / "BarSingle.mo"
    path.write_text(path.read_text().replace("partial model Base", "partial model Base \"changed\""))
    assert build_key(find_class("BarSingle.Corner"), "native", "cs", 1e-3) != key


def test_every_subcommand_takes_modelica_path(lib, tmp_path, capsys):
    assert main(["check", "BarSingle.Heavy", "--modelica-path", str(lib)]) == 0
    assert "ok    BarSingle.Heavy: 2 states" in capsys.readouterr().out
    assert main(["inspect", str(tmp_path / "none.fmu"), "--modelica-path", str(lib)]) == 1
    assert "none.fmu: no such file" in capsys.readouterr().err
    assert main(["list", "--modelica-path", str(tmp_path / "missing")]) == 1
    assert f"--modelica-path {tmp_path / 'missing'}: not a directory" in capsys.readouterr().err


def test_openmodelica_loads_a_single_file_package_with_loadfile(lib, tmp_path, monkeypatch):
    pytest.importorskip("OMPython")
    pytest.importorskip("zmq")
    import os
    import sys

    from fmu_build.build import build_fmu

    record = tmp_path / "omc.txt"
    monkeypatch.setenv("OPENMODELICAHOME", str(Path(__file__).resolve().parent / "fake_omc"))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_OMC_RECORD", str(record))
    monkeypatch.delenv("VEHICLERTM_OMC_DOCKER", raising=False)
    for model, loaded in (("BarSingle.Heavy", "BarSingle.mo"), ("BarNested.Corner", "BarNested/package.mo")):
        build_fmu(model, backend="openmodelica", out_dir=tmp_path / "out", cache_dir=tmp_path / "cache",
                  modelica_path=[lib])
        sent = [s for s in record.read_text().splitlines() if s.startswith("loadFile(")]
        assert sent[-2].endswith('VehicleRTM/package.mo")') and sent[-1] == f'loadFile("{lib / loaded}")'
        assert any(s.startswith(f"buildModelFMU({model},") for s in record.read_text().splitlines())


# ---- errors that point into the user's file ----------------------------------------------------------

BAD = """package Bad
  model Axle
    Real a;
    Real b "no equation for it";
    Real c(start = 0, fixed = true);
  equation
    a = 1;
    der(c) = a;
  end Axle;
  model Top
    Axle front;
    Real y;
  equation
    y = front.a;
  end Top;
  model Unknown
    NoSuch.Thing t;
  end Unknown;
  model Dim
    Real x;
    Real v[2];
  equation
    v = {1, 2};
    x = v;
  end Dim;
  model TypeMismatch
    parameter Real k = true;
    Real x(start = 1, fixed = true);
  equation
    der(x) = -k*x;
  end TypeMismatch;
  model Fine
    Real x(start = 1, fixed = true);
  equation
    der(x) = -x;
  end Fine;
end Bad;
"""


def _error(capsys, lib, model, out) -> str:
    assert main([model, "--modelica-path", str(lib), "--backend", "native", "-o", str(out)]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and not out.exists(), lines
    return lines[0]


@pytest.mark.parametrize("model, place, words", [
    ("Bad.Top", "Bad.mo:4:10", ["unbalanced model Bad.Axle", "component front of Bad.Top", "2 equations for 3 unknowns",
                                "without an equation: b —", "expected one equation for each unknown"]),
    ("Bad.Unknown", "Bad.mo:17:5", ["unknown class NoSuch.Thing in Bad.Unknown —", "expected a class"]),
    ("Bad.Dim", "Bad.mo:24:5", ["dimension mismatch in Bad.Dim", "`[2]` — expected `scalar`"]),
    ("Bad.TypeMismatch", "Bad.mo:27:24", ["type mismatch in Bad.TypeMismatch: k = true is a Boolean —",
                                          "expected a Real expression"]),
])
def test_errors_name_file_line_and_column(tmp_path, capsys, model, place, words):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "Bad.mo").write_text(BAD)
    line = _error(capsys, lib, model, tmp_path / "out")
    assert line.startswith(f"fmu-build: error: {lib / place}: "), line
    for word in words:
        assert word in line, line


def test_check_and_pybridge_examples_take_user_classes(tmp_path, capsys, lib):
    from pybridge.cli import main as pybridge

    (lib / "Bad.mo").write_text(BAD)
    assert main(["check", "Bad.Top", "Bad.Fine", "--modelica-path", str(lib)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  Bad.Top: {lib}/Bad.mo:4:10: unbalanced model Bad.Axle" in out and "ok    Bad.Fine:" in out
    assert pybridge(["examples", "BarNested.Corner", "--modelica-path", str(lib), "--out", str(tmp_path / "ex")]) == 0
    traces = (tmp_path / "ex" / "Corner.csv").read_text().splitlines()
    assert traces[0].split(",")[:2] == ["time", "z"] and len(traces) == 202   # experiment: 2 s at 0.01 s


def test_a_syntax_error_points_at_its_line_and_spares_the_other_files(tmp_path, capsys, fmu_cache):
    lib = tmp_path / "lib"
    (lib / "Pkg").mkdir(parents=True)
    (lib / "Pkg" / "package.mo").write_text("package Pkg\nend Pkg;\n")
    (lib / "Pkg" / "Broken.mo").write_text("within Pkg;\nmodel Broken\n  Real x(start = 1, fixed = true)\n"
                                           "equation\n  der(x) = -x;\nend Broken;\n")
    (lib / "Pkg" / "Good.mo").write_text("within Pkg;\nmodel Good\n  Real x(start = 1, fixed = true);\n"
                                         "equation\n  der(x) = -x;\nend Good;\n")
    (lib / "Pkg" / "UsesBroken.mo").write_text("within Pkg;\nmodel UsesBroken\n  Broken b;\nend UsesBroken;\n")
    (lib / "Single.mo").write_text(BAD.replace("Bad", "Single").replace("    Real y;", "    Real y"))
    for model in ("Pkg.Broken", "Pkg.UsesBroken"):
        line = _error(capsys, lib, model, tmp_path / "out")
        assert f"{lib}/Pkg/Broken.mo:4:1: Modelica syntax error: unexpected `equation` — expected one of " in line, line
    line = _error(capsys, lib, "Single.Fine", tmp_path / "out")
    assert f"{lib}/Single.mo:12:10: Modelica syntax error: unexpected `y` — expected one of `annotation`" in line, line
    assert line.endswith("(Single.mo holds the whole package Single: none of its classes builds until the file parses)")
    assert main(["Pkg.Good", "--modelica-path", str(lib), "--backend", "native", "-o", str(tmp_path / "out"),
                 "--cache-dir", str(fmu_cache)]) == 0
    assert zipfile.ZipFile(tmp_path / "out" / "Pkg_Good.fmu").testzip() is None


def test_a_file_that_is_not_utf8_is_named_with_its_byte_offset(tmp_path, capsys):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "Latin.mo").write_bytes("package Latin \"caf\xe9\"\nend Latin;\n".encode("latin-1"))
    assert main(["list", "Latin", "--modelica-path", str(lib)]) == 1
    assert (f"{lib}/Latin.mo:1:19: not UTF-8 text (byte offset 18: 0xe9) — expected a UTF-8 encoded Modelica file"
            in capsys.readouterr().err)
