"""The rig's paths (issue 27, items 8 and 9): what a co-simulation engine would refuse or silently get wrong,
checked at ``export --ssp`` and at ``cosim``; nested archives; checked numeric flags; strict SSV/SSD parsing;
export's bad inputs. Most systems here are made of FMUs with a model description and no binary
(tests/rig_helpers.py): every check under test runs before libcosim loads one."""
from __future__ import annotations

import os
import warnings
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from pybridge.cli import main
from pybridge.parameters import ParameterSet
from pybridge.rig.ssp import Component, Connection, SSPError, write_ssp, write_ssv
from pybridge.rig.ssp_checks import CommunicationStepWarning
from rig_helpers import claim_size, edited_ssp, fake_fmu, with_entries

RTM = "VehicleRTM.Vehicles.RTM14DoF"
ACC = "VehicleRTM.ADAS.AdaptiveCruise"
BOMB = "".join(f"{a}: &{a} [" + ", ".join([f"*{p}"] * 9 if p else ['"lol"'] * 9) + "]\n"
               for p, a in zip([None, *"abcdefgh"], "abcdefghi"))


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if ": warning: " not in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def parts(tmp_path):
    """A sensor (an angle in rad, a speed in km/h; internal step 1 ms) and a controller (a unitless input
    u, a speed input in m/s, a unitless output y)."""
    sensor = fake_fmu(tmp_path / "sensor.fmu", [("angle", "output", "rad"), ("v", "output", "km/h")], step=1e-3)
    ctrl = fake_fmu(tmp_path / "ctrl.fmu", [("u", "input", "1"), ("speed", "input", "m/s"), ("y", "output", "1")])
    return [Component("sensor", sensor), Component("ctrl", ctrl)]


@pytest.fixture
def loop(parts, tmp_path):
    """A system that passes every check: ctrl.y -> ctrl.u, 1 ms."""
    return write_ssp(tmp_path / "loop.ssp", parts, [Connection("ctrl", "y", "ctrl", "u")], stop_time=1.0, step=1e-3)


def _connect(start: str, end: str, extra: str = ""):
    a, x = start.split(".")
    b, y = end.split(".")

    def edit(ssd: bytes) -> bytes:
        return ssd.replace(b"</ssd:Connections>", f'<ssd:Connection startElement="{a}" startConnector="{x}" '
                           f'endElement="{b}" endConnector="{y}"{extra}/></ssd:Connections>'.encode())
    return edit


# ---- one writer per input, units, step ---------------------------------------------------------

def test_two_writers_into_one_input_are_refused_at_export_and_cosim(parts, loop, tmp_path, capsys):
    with pytest.raises(SSPError, match=r"input ctrl\.u has two writers, connection ctrl\.y -> ctrl\.u and "
                                       r"connection sensor\.angle -> ctrl\.u"):
        write_ssp(tmp_path / "two.ssp", parts, [Connection("ctrl", "y", "ctrl", "u"),
                                                Connection("sensor", "angle", "ctrl", "u", 1.0)])
    assert not (tmp_path / "two.ssp").exists()
    two = edited_ssp(loop, tmp_path / "two.ssp", _connect("sensor.angle", "ctrl.u", ' suppressUnitConversion="true"'))
    assert main(["cosim", str(two), "--stop", "1", "--quiet"]) == 2
    line = _error(capsys)
    assert "two.ssp!SystemStructure.ssd:" in line and "ctrl.y -> ctrl.u" in line and "sensor.angle -> ctrl.u" in line


def test_units_that_differ_are_refused_with_the_linear_transformation_as_the_fix(parts, loop, tmp_path, capsys):
    with pytest.raises(SSPError, match=r"sensor\.angle -> ctrl\.u: units differ, rad into 1: not the same quantity"
                                       r".*ssc:LinearTransformation"):
        write_ssp(tmp_path / "a.ssp", parts, [Connection("sensor", "angle", "ctrl", "u")])
    with pytest.raises(SSPError, match=r"km/h into m/s: libcosim does not convert units.*factor 0\.27777"):
        write_ssp(tmp_path / "a.ssp", parts, [Connection("sensor", "v", "ctrl", "speed")])
    # the documented fix: the conversion stated whole, as libcosim applies it
    ssp = write_ssp(tmp_path / "a.ssp", parts, [Connection("sensor", "v", "ctrl", "speed", 1 / 3.6)])
    with zipfile.ZipFile(ssp) as archive:
        wire = etree.fromstring(archive.read("SystemStructure.ssd")).find(".//{*}Connection")
    assert wire.get("suppressUnitConversion") == "true"
    assert float(wire.find("{*}LinearTransformation").get("factor")) == pytest.approx(1 / 3.6)
    bad = edited_ssp(loop, tmp_path / "bad.ssp", _connect("sensor.angle", "ctrl.speed"))
    assert main(["cosim", str(bad), "--stop", "1", "--quiet"]) == 2
    assert "sensor.angle -> ctrl.speed: units differ, rad into m/s" in _error(capsys)


def test_a_step_below_an_fmus_internal_step_is_warned_at_export_and_cosim(parts, loop, tmp_path, capsys):
    with pytest.warns(CommunicationStepWarning, match=r"0\.0005 s is below the internal step 0\.001 s of component "
                                                      r"sensor.*2x the model evaluations"):
        write_ssp(tmp_path / "a.ssp", parts, step=5e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_ssp(tmp_path / "b.ssp", parts, step=1e-3)
        parts[0].parameters = ParameterSet(model="sensor", scalars={"fixedStepSize": 5e-4})   # on purpose
        write_ssp(tmp_path / "c.ssp", parts, step=5e-4)
    assert main(["cosim", str(loop), "--stop", "1", "--step", "0.0005", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "pybridge cosim: warning: " in err and "below the internal step 0.001 s of component sensor" in err


def test_libcosim_log_level_and_its_reason_for_a_load_failure(native_fmu, loop, tmp_path, capfd):
    assert main(["cosim", str(loop), "--stop", "1", "--quiet"]) == 2
    line = _error(capfd)
    assert "libcosim could not load the system: " in line and "no binary for this platform" in line
    acc = write_ssp(tmp_path / "acc.ssp", [Component("acc", native_fmu(ACC, "cs"))], stop_time=0.01, step=1e-3)
    capfd.readouterr()
    assert main(["cosim", str(acc), "--stop", "0.01", "--quiet", "--log-level", "info"]) == 0
    assert "[info]" in capfd.readouterr().out


# ---- archives ------------------------------------------------------------------------------------

def test_an_fmu_inside_an_ssp_is_checked_before_libcosim_unpacks_it(native_fmu, tmp_path, capsys):
    acc = native_fmu(ACC, "cs")
    target = tmp_path / "outside" / "PWNED"
    target.parent.mkdir()
    evil = with_entries(acc, tmp_path / "evil.fmu", {"../" * 12 + "PWNED": b"x",
                                                      "../" * 24 + str(target).lstrip("/"): b"x"})
    ssp = write_ssp(tmp_path / "good.ssp", [Component("acc", acc)], stop_time=0.01, step=1e-3)
    bad = edited_ssp(ssp, tmp_path / "evil.ssp", replace={"resources/acc.fmu": evil.read_bytes()})
    at_root = Path("/PWNED").exists()   # main e1111aa: libcosim unpacked both entries, exit 0
    assert main(["cosim", str(bad), "--stop", "0.01", "--quiet"]) == 2
    assert "evil.ssp!resources/acc.fmu: unsafe entry '../../" in _error(capsys)
    assert not target.exists() and Path("/PWNED").exists() == at_root


def test_1_gib_entries_are_refused_by_the_size_limits(loop, tmp_path, capsys):
    top = claim_size(edited_ssp(loop, tmp_path / "top.ssp", add={"resources/big.bin": b"0" * 64}),
                     "resources/big.bin", 2 ** 30)
    assert main(["cosim", str(top), "--stop", "1", "--quiet"]) == 2
    assert "entry 'resources/big.bin' unpacks to 1073741824 bytes" in _error(capsys)
    fmu = claim_size(with_entries(tmp_path / "ctrl.fmu", tmp_path / "big.fmu", {"resources/big.bin": b"0" * 64}),
                     "resources/big.bin", 2 ** 30)
    nested = edited_ssp(loop, tmp_path / "nested.ssp", replace={"resources/ctrl.fmu": fmu.read_bytes()})
    assert main(["cosim", str(nested), "--stop", "1", "--quiet"]) == 2
    line = _error(capsys)
    assert "nested.ssp!resources/ctrl.fmu: entry 'resources/big.bin' unpacks to 1073741824 bytes" in line
    assert "FMU_BUILD_MAX_ENTRY_BYTES" in line


def test_sources_outside_the_archive_are_refused(loop, tmp_path, capsys):
    write_ssv(ParameterSet(model="ctrl", scalars={"k": 1.0}), tmp_path / "outside.ssv")
    binding = (b'<ssd:ParameterBindings><ssd:ParameterBinding type="application/x-ssp-parameter-set" '
               b'source="../../../../../../../../../../' + str(tmp_path / "outside.ssv").lstrip("/").encode() +
               b'"/></ssd:ParameterBindings></ssd:Component>')
    bad = edited_ssp(loop, tmp_path / "bad.ssp", lambda ssd: ssd.replace(b"</ssd:Component>", binding, 1))
    assert main(["cosim", str(bad), "--stop", "1", "--quiet"]) == 2
    assert "parameter binding of component sensor: source '../../" in _error(capsys)
    absolute = edited_ssp(loop, tmp_path / "abs.ssp",
                          lambda ssd: ssd.replace(b'source="resources/ctrl.fmu"', f'source="{tmp_path}/ctrl.fmu"'.encode()))
    assert main(["cosim", str(absolute), "--stop", "1", "--quiet"]) == 2
    line = _error(capsys)
    assert f"component ctrl: source '{tmp_path}/ctrl.fmu' points outside the archive" in line


# ---- numeric flags -------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, expected", [
    (["cosim", "x.ssp", "--stop", "1e9"], "argument --stop: 1e9 s is above the upper bound of 86400 s"),
    (["cosim", "x.ssp", "--stop", "nan"], "argument --stop: nan: expected a finite time > 0 s"),
    (["cosim", "x.ssp", "--stop", "inf"], "argument --stop: inf: expected a finite time > 0 s"),
    (["cosim", "x.ssp", "--stop", "1", "--step", "-0.001"], "argument --step: -0.001: expected a finite time > 0 s"),
    (["rt-check", "x.fmu", "--duration", "1e9"], "argument --duration: 1e9 s is above the upper bound of 86400 s"),
    (["rt-check", "x.fmu", "--cpu", "999"], "argument --cpu: 999: not a CPU of this machine"),
    (["rt-check", "x.fmu", "--runs", "0"], "argument --runs: 0: expected a whole number of runs >= 1"),
    (["export", "--params", "p", "--ssp", "x.ssp", "--stop", "-1"], "argument --stop: -1: expected a finite time"),
    (["export", "--params", "p", "--ssp", "x.ssp", "--step", "2"], "argument --step: 2 s is above the upper bound of 1 s"),
    (["identify-corner", "--corner", "FL", "-o", "x", "--duration", "-1"], "argument --duration: -1: expected"),
    (["demo", "--workers", "1000"], "argument --workers: 1000 is above the upper bound of 256 workers"),
    (["report", "r", "--workers", "2.5"], "argument --workers: 2.5: expected a whole number of workers >= 1"),
])
def test_numeric_flags_are_checked_with_their_bound_named(argv, expected, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and expected in capsys.readouterr().err


def test_every_numeric_flag_of_every_command_is_a_checked_one():
    """No flag takes a bare int or float (pybridge.flags: sign, finiteness, upper bound)."""
    import argparse

    from pybridge.cli import _parser

    def actions(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from actions(sub)
            else:
                yield parser.prog, action
    bare = [f"{prog} {'/'.join(a.option_strings) or a.dest}" for prog, a in actions(_parser()) if a.type in (int, float)]
    checked = [a for _, a in actions(_parser()) if getattr(a.type, "checks_numbers", False)]
    assert not bare and len(checked) >= 17, bare


def test_config_values_and_the_api_are_bounded_too(loop, tmp_path, capsys, monkeypatch):
    (tmp_path / "c.yaml").write_text("stop: 1.0e+9\n")
    assert main(["cosim", str(loop), "--config", str(tmp_path / "c.yaml")]) == 2
    assert "c.yaml: stop: 1000000000.0 s is above the upper bound of 86400 s" in _error(capsys)
    from pybridge.rig.cosim import cosimulate

    monkeypatch.setenv("PYBRIDGE_MAX_COSIM_VALUES", "5000")
    with pytest.raises(SSPError, match=r"2000 steps of 3 outputs, more than the limit of 5000 values "
                                       r".*PYBRIDGE_MAX_COSIM_VALUES"):
        cosimulate(loop, 2.0, 1e-3)


def test_rt_check_steps_are_bounded(native_fmu, monkeypatch, capsys):
    monkeypatch.setenv("PYBRIDGE_MAX_SAMPLES", "1000")
    assert main(["rt-check", str(native_fmu(ACC, "cs")), "--scenario", "none", "--duration", "2", "--quiet"]) == 2
    assert "--duration 2 s at --step 0.001 s is 2000 steps, more than the limit of 1000 samples" in _error(capsys)


# ---- SSV and SSD parsing -------------------------------------------------------------------------

def _ssv_with(tmp_path, annotation: str) -> Path:
    path = write_ssv(ParameterSet(model="m", scalars={"k": 1.0}), tmp_path / "a.ssv")
    tree = etree.parse(str(path))
    tree.getroot().find(".//{urn:vehiclertm:parameterset}ParameterSet").text = etree.CDATA(annotation)
    tree.write(str(path))
    return path


@pytest.mark.parametrize("annotation, expected", [
    (BOMB, r"alias \*\w takes the aliases of this document past the limit"),
    ("tables: {}\ntables: {}\n", r"duplicate key 'tables'"),
    ("[1, 2]\n", r"expected a mapping \(tables, metadata, origins, uncertain\), found list"),
    ("tables: 5\n", r"tables: expected a mapping, found int"),
    ("tables: {k: [2, x]}\n", r"tables: k: \[2, 'x'\]; expected a list of sizes"),
    ("uncertain: {k: 1}\n", r"uncertain: k: 1; expected \[nominal, lower, upper\]"),
])
def test_the_ssv_annotation_is_read_strictly(tmp_path, annotation, expected):
    from pybridge.rig.ssp import read_ssv

    with pytest.raises(SSPError, match=r"a\.ssv:\d+: ssc:Annotation org\.vehiclertm\.parameterset.*" + expected):
        read_ssv(_ssv_with(tmp_path, annotation))


def test_a_parameter_given_twice_and_a_stray_annotation_are_refused(tmp_path):
    from pybridge.rig.ssp import read_ssv

    path = write_ssv(ParameterSet(model="m", scalars={"k": 1.0}), tmp_path / "a.ssv")
    text = path.read_text()
    path.write_text(text.replace("</ssv:Parameters>", '<ssv:Parameter name="k"><ssv:Real value="2"/></ssv:Parameter>'
                                                      "</ssv:Parameters>"))
    with pytest.raises(SSPError, match=r"a\.ssv:\d+: parameter k is given twice \(first on line \d+\)"):
        read_ssv(path)
    path.write_text(text.replace("vrtm:ParameterSet", "vrtm:Other"))
    with pytest.raises(SSPError, match=r"a\.ssv:\d+: ssc:Annotation .*: expected one vrtm:ParameterSet element"):
        read_ssv(path)


@pytest.mark.parametrize("old, new, expected", [
    (b' source="resources/ctrl.fmu"', b"", r"SystemStructure\.ssd:\d+: component ctrl has no source attribute"),
    (b'stopTime="1.0"', b'stopTime="soon"', r"SystemStructure\.ssd:\d+: DefaultExperiment stopTime: 'soon'; "
                                            r"expected a number of seconds > 0"),
    (b'baseStepSize="0.001"', b"", r"SystemStructure\.ssd:\d+: FixedStepAlgorithm baseStepSize: None; expected"),
])
def test_bad_ssd_elements_are_one_line_naming_file_and_element(loop, tmp_path, capsys, old, new, expected):
    import re

    bad = edited_ssp(loop, tmp_path / "bad.ssp", lambda ssd: ssd.replace(old, new))
    assert main(["cosim", str(bad), "--stop", "1", "--quiet"]) == 2
    assert re.search(r"bad\.ssp!" + expected, _error(capsys))


# ---- export's bad inputs and its build -------------------------------------------------------------

@pytest.fixture
def params_dir(tmp_path):
    return ParameterSet(model=RTM, scalars={"chassis.Izz": 4500.0}).write(tmp_path / "set").parent


@pytest.mark.parametrize("flags, expected", [
    (["--set", "vehicle.initialSpeed=fast"], "--set vehicle.initialSpeed=fast: 'fast' is not a finite number"),
    (["--set", "vehicle.initialSpeed=nan"], "--set vehicle.initialSpeed=nan: 'nan' is not a finite number"),
    (["--component", "acc=GARBAGE"], "--component acc=GARBAGE: not a readable FMU (zip) archive"),
    (["--connect", "vehicle.speed=acc.speed*x"], "--connect vehicle.speed=acc.speed*x: 'x' is not a finite number"),
])
def test_export_flags_are_refused_before_anything_is_written(params_dir, tmp_path, capsys, flags, expected):
    garbage = tmp_path / "garbage.fmu"
    garbage.write_bytes(b"not a zip")
    flags = [f.replace("GARBAGE", str(garbage)) for f in flags]
    expected = expected.replace("GARBAGE", str(garbage))
    before = set(os.listdir(tmp_path))
    assert main(["export", "--params", str(params_dir), "--fmu", str(garbage), "-o", str(tmp_path / "van.fmu"),
                 "--ssp", str(tmp_path / "van.ssp"), "--quiet", *flags]) == 2
    assert expected in _error(capsys)
    assert set(os.listdir(tmp_path)) == before


def test_a_failed_out_leaves_nothing_behind(params_dir, tmp_path, capsys):
    folder = tmp_path / "outdir"
    folder.mkdir()
    assert main(["export", "--params", str(params_dir), "--fmu", str(tmp_path / "none.fmu"), "-o", str(folder),
                 "--quiet"]) == 2
    assert f"{folder}: is a folder; expected the path of a file to write" in _error(capsys)
    assert sorted(os.listdir(tmp_path)) == ["outdir", "set"] and not os.listdir(folder)


def test_export_bakes_and_names_the_build_the_identification_used(native_fmu, tmp_path, capsys):
    """A set in an identification's run folder: its FMU, at the step the run folder records."""
    import shutil

    from fmpy import read_model_description

    from pybridge.rig.export_build import identification_build

    run = tmp_path / "run"
    run.mkdir()
    shutil.copyfile(native_fmu(ACC, "cs"), run / "acc.fmu")
    (run / "result.yaml").write_text("fmu: acc.fmu\nidentification_step: {step_s: 0.002, reason: a test}\n")
    ParameterSet(model=ACC, scalars={"timeGap": 1.7}).write(run / "params_optimized")
    assert main(["export", "--params", str(run / "params_optimized"), "-o", str(tmp_path / "acc.fmu")]) == 0
    out = capsys.readouterr().out
    assert "build IMEX2 at a 0.002 s internal step (native backend" in out and "result.yaml records (a test)" in out
    starts = {v.name: v.start for v in read_model_description(str(tmp_path / "acc.fmu")).modelVariables}
    assert float(starts["fixedStepSize"]) == 0.002 and float(starts["timeGap"]) == 1.7
    with zipfile.ZipFile(tmp_path / "acc.fmu") as archive:
        root = etree.fromstring(archive.read("modelDescription.xml"))
    record = root.find("VendorAnnotations/Tool[@name='pybridge export']/Provenance")
    assert "IMEX2 at a 0.002 s internal step" in record.get("sourceBuild") and "IMEX2" in root.get("description")
    plain = ParameterSet(model=ACC).write(tmp_path / "plain" / "set").parent
    assert "not in the run folder of an identification" in identification_build(plain).reason
    (run / "result.yaml").write_text("fmu: acc.fmu\nidentification_step: {step_s: null, reason: not native}\n")
    own = identification_build(run / "params_optimized")
    assert own.fmu == run / "acc.fmu" and own.step is None and "its own internal step" in own.reason
