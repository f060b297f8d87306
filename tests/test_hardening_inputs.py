"""Hardening against bad inputs (issue 18): strict YAML, resource limits stated before the work, one-line
messages naming the file, plausibility of the vehicle data."""
from __future__ import annotations

import gzip
import re
import shutil
import sys
import time
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from pybridge.cli import main
from pybridge.mbm.errors import MBMDataError, PlausibilityWarning
from pybridge.fileio import read_yaml

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"
BOMB = "".join(f"{a}: &{a} [" + ", ".join([f"*{p}"] * 9 if p else ['"lol"'] * 9) + "]\n"
               for p, a in zip([None, *"abcdefgh"], "abcdefghi"))  # 9**9 strings once expanded


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.fixture
def mbm(tmp_path) -> Path:
    """A writable copy of the shipped MBM data set."""
    return Path(shutil.copytree(SHIPPED / "mbm", tmp_path / "mbm"))


def _bounded(run, seconds: float = 5.0, megabytes: float = 50.0):
    """``run()``'s result, checked to take under ``seconds`` and to allocate under ``megabytes``."""
    tracemalloc.start()
    start = time.monotonic()
    try:
        result = run()
    finally:
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    assert time.monotonic() - start < seconds and peak < megabytes, (time.monotonic() - start, peak)
    return result


# ---- YAML -------------------------------------------------------------------------------------

def test_duplicate_keys_are_refused_in_driveline_and_parameter_set(mbm, tmp_path, rtm_fmu, capsys):
    driveline = mbm / "driveline.yaml"
    text = driveline.read_text()
    driveline.write_text(text.replace("  final_drive: 4.1\n", "  final_drive: 4.1\n  final_drive: 41\n"))
    line = driveline.read_text().splitlines().index("  final_drive: 41") + 1
    assert main(["convert", str(mbm), "-o", str(tmp_path / "set"), "--fmu", str(rtm_fmu)]) == 2
    assert f"{driveline}:{line}:3: not valid YAML (duplicate key 'final_drive' (first on line {line - 1})" \
        in _one_error_line(capsys)
    params = tmp_path / "params.yaml"
    params.write_text("format: vehiclertm-params 1\nmodel: M\nscalars:\n  a: {value: 1}\n  a: {value: 2}\n")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(params))}:5:3: not valid YAML \(duplicate key 'a'"):
        read_yaml(params)


def test_alias_bomb_is_exit_2_within_5_s_and_bounded_memory(mbm, tmp_path, capsys):
    (mbm / "driveline.yaml").write_text("format: vehiclertm-driveline 1\n" + BOMB)
    assert _bounded(lambda: main(["convert", str(mbm), "-o", str(tmp_path / "set")])) == 2
    err = _one_error_line(capsys)
    assert f"{mbm / 'driveline.yaml'}:" in err and "PYBRIDGE_YAML_ALIAS_NODES" in err


def test_alias_budget_keeps_the_shipped_aliases_and_can_be_raised(tmp_path, monkeypatch):
    heave = read_yaml(REPO / "scenarios" / "manoeuvres" / "four_post_heave.yaml")
    assert heave["inputs"]["post_rr"] == heave["inputs"]["post_fl"]
    small = tmp_path / "small.yaml"
    small.write_text("a: &a [1, 2, 3]\nb: [*a, *a]\n")
    assert read_yaml(small)["b"] == [[1, 2, 3], [1, 2, 3]]
    monkeypatch.setenv("PYBRIDGE_YAML_ALIAS_NODES", "7")
    with pytest.raises(ValueError, match=r"small.yaml:2:9: .*alias \*a .*limit of 7 nodes"):
        read_yaml(small)


def test_binary_manifest_and_result_name_the_file(tmp_path, capsys):
    from pybridge.simulate.manoeuvres import ManifestReferences

    manifest = tmp_path / "manifest.yaml"
    manifest.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff")
    with pytest.raises(ValueError, match=rf"^{re.escape(str(manifest))}: not a UTF-8 text file \(byte 0x89"):
        ManifestReferences(manifest).resolve("ramp_steer_at_ay", 0.4)
    run = tmp_path / "run"
    run.mkdir()
    (run / "result.yaml").write_bytes(b"format: \x00\x01\x02")
    assert main(["report", str(run), "--quiet"]) == 2
    assert f"{run / 'result.yaml'}: not a YAML text file" in _one_error_line(capsys)


# ---- resource limits --------------------------------------------------------------------------

def test_a_1e7_s_scenario_is_exit_2_within_5_s_and_bounded_memory(tmp_path, capsys, monkeypatch):
    scenario = tmp_path / "long.yaml"
    text = (REPO / "scenarios" / "manoeuvres" / "step_steer.yaml").read_text()
    scenario.write_text(text.replace("duration: {value: 6, unit: s}", "duration: {value: 1.0e+7, unit: s}"))
    argv = ["simulate", "--scenario", str(scenario), "-o", str(tmp_path / "t.csv"), "--fmu", "none.fmu"]
    assert _bounded(lambda: main(argv)) == 2
    err = _one_error_line(capsys)
    assert f"{scenario}: duration: 1e+07 s at 200 Hz is 2e+09 samples, more than the limit of 2e+06 samples" in err
    assert "PYBRIDGE_MAX_SAMPLES" in err
    monkeypatch.setenv("PYBRIDGE_MAX_SAMPLES", "3e9")
    from pybridge.simulate.scenarios import load_scenario

    assert load_scenario(scenario).duration == 1e7  # raised: accepted (nothing is allocated at load)


def test_trace_size_limit_and_corrupt_gzip_name_the_file(tmp_path, monkeypatch):
    from pybridge.traces import read_trace

    trace = SHIPPED / "traces" / "step_steer.csv"
    monkeypatch.setenv("PYBRIDGE_MAX_TRACE_BYTES", "1000")
    with pytest.raises(MBMDataError, match=rf"^{re.escape(str(trace))}: the trace is larger than the limit of "
                                           r"1000 bytes .*PYBRIDGE_MAX_TRACE_BYTES"):
        read_trace(trace)
    monkeypatch.delenv("PYBRIDGE_MAX_TRACE_BYTES")
    damaged = tmp_path / "t.csv.gz"
    data = bytearray(gzip.compress(trace.read_bytes()))
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with pytest.raises(MBMDataError) as error:
        read_trace(damaged)
    assert str(error.value).startswith(f"{damaged}: cannot read the trace") and "\n" not in str(error.value)


def test_fmu_entries_beyond_the_size_limits_are_refused_before_unpacking(rtm_fmu, tmp_path, monkeypatch, capsys):
    from pybridge.simulate.fmu import FMUArchiveError, FMUSession

    bomb = tmp_path / "bomb.fmu"
    shutil.copy(rtm_fmu, bomb)
    with zipfile.ZipFile(bomb, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("resources/zeros.bin", bytes(8 * 1024 ** 2))  # 8 MiB of zeros, ~8 kB packed
    monkeypatch.setenv("FMU_BUILD_MAX_ENTRY_BYTES", str(4 * 1024 ** 2))
    with pytest.raises(FMUArchiveError, match=r"entry 'resources/zeros.bin' unpacks to 8388608 bytes, more than the "
                                              r"limit of 4.194\d*e\+06 bytes .*FMU_BUILD_MAX_ENTRY_BYTES"):
        FMUSession(bomb)
    monkeypatch.setenv("FMU_BUILD_MAX_ENTRY_BYTES", str(16 * 1024 ** 2))
    monkeypatch.setenv("FMU_BUILD_MAX_TOTAL_BYTES", str(8 * 1024 ** 2))
    scenario = tmp_path / "s.yaml"
    scenario.write_text((REPO / "scenarios" / "manoeuvres" / "step_steer.yaml").read_text())
    assert main(["simulate", "--scenario", str(scenario), "--fmu", str(bomb), "-o", str(tmp_path / "t.csv")]) == 2
    assert "FMU_BUILD_MAX_TOTAL_BYTES" in _one_error_line(capsys)


# ---- one-line messages naming the file --------------------------------------------------------

def test_config_unknown_parameter_and_vehicle_file_errors_name_the_file(rtm_fmu, tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text("workers: two\n")
    assert main(["identify", "--config", str(config), "--write-config", str(tmp_path / "w.yaml")]) == 2
    assert f"{config}: workers: 'two'; expected an integer" in _one_error_line(capsys)

    from pybridge.convert import convert_mbm

    convert_mbm(SHIPPED / "mbm", fmu=rtm_fmu).write(tmp_path / "set")
    path = tmp_path / "set" / "params.yaml"
    document = yaml.safe_load(path.read_text())
    document["scalars"]["chassis.noSuchMass"] = {"value": 1.0, "unit": "kg"}
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    assert main(["simulate", "--scenario", "step_steer", "--params", str(tmp_path / "set"), "--fmu", str(rtm_fmu),
                 "-o", str(tmp_path / "t.csv")]) == 2
    err = _one_error_line(capsys)
    assert f"{path}: does not fit the FMU" in err and "chassis.noSuchMass: unknown name" in err



def test_bad_reference_vehicle_file_is_named(tmp_path, capsys):
    pytest.importorskip("exudyn", reason="the reference vehicle runs on Exudyn, an optional extra: "
                                         "pip install '.[reference]'")
    vehicle = tmp_path / "vehicle.yaml"
    vehicle.write_text((REPO / "pybridge" / "reference" / "lcv35.yaml").read_text()
                       .replace("gravity: 9.81", "gravity: nine"))
    assert main(["mbm", "generate", "--vehicle", str(vehicle), "-o", str(tmp_path / "gen"), "--quiet"]) == 2
    assert f"{vehicle}: gravity: 'nine'; expected a number" in _one_error_line(capsys)


def test_mbm_generate_without_exudyn_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "exudyn", None)  # import exudyn now raises ImportError
    assert main(["mbm", "generate", "--vehicle", "lcv35", "-o", str(tmp_path / "gen"), "--quiet"]) == 2
    err = _one_error_line(capsys)
    assert "needs Exudyn" in err and "pip install '.[reference]'" in err
    assert not (tmp_path / "gen" / "manifest.yaml").exists()


# ---- MBM data: magnitudes, file kinds, truncation, plausibility ---------------------------------

def test_absurd_kc_magnitude_is_refused_at_its_cell(mbm):
    from pybridge.mbm.kc_results import read_kc_results

    path = mbm / "kc" / "front_parallel_travel.csv"
    lines = path.read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if line[:1] not in ("#", "w"))
    cells = lines[row].split(",")
    cells[0] = cells[1] = "1e308"
    lines[row] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy overflow on the way
        with pytest.raises(MBMDataError, match=rf"^{re.escape(str(path))}:{row + 1}:1: wheel_travel_left 1e308 \[mm\] "
                                               r"— expected a magnitude up to 100 m"):
            read_kc_results(path)


def test_directory_or_symlink_loop_in_place_of_a_kc_file_is_named_as_such(mbm, tmp_path):
    from pybridge.mbm.dataset import ConversionError, read_mbm

    path = mbm / "kc" / "rear_opposite_travel.csv"
    path.unlink()
    path.mkdir()
    with pytest.raises(ConversionError, match=rf"^{re.escape(str(path))}: a directory — expected the K&C"):
        read_mbm(mbm)
    path.rmdir()
    path.symlink_to(path)
    with pytest.raises(ConversionError, match=rf"^{re.escape(str(path))}: a symbolic link that does not lead to a "
                                              r"file \(a loop or a missing target\)"):
        read_mbm(mbm)


def test_truncated_spring_file_and_tir_without_dimension_are_refused(mbm):
    from pybridge.mbm.property_files import PropertyFileError, read_property_file
    from pybridge.mbm.tir import TirError, read_tir

    spring = mbm / "front_leaf.spr"
    text = spring.read_text()
    spring.write_text(text[: text.rindex(" ") + 2])  # cut inside the last force value
    with pytest.raises(PropertyFileError, match=rf"^{re.escape(str(spring))}:\d+: the file ends inside a line"):
        read_property_file(spring)
    tir = mbm / "UAZBUS_Pac02Tire.tir"
    tir.write_text(re.sub(r"\[DIMENSION\]\n(?:[^\[]*\n)", "", tir.read_text()))
    with pytest.raises(TirError, match=r"missing \[DIMENSION\] section"):
        read_tir(tir)


def test_flat_spring_curve_warns_by_name(mbm):
    from pybridge.mbm.property_files import read_property_file

    spring = mbm / "front_leaf.spr"
    text = spring.read_text()
    head, curve = text.split("{ disp force }\n", 1)
    flat = "".join(f"{line.split()[0]} 5000.0\n" for line in curve.splitlines() if line.strip())
    spring.write_text(head + "{ disp force }\n" + flat)
    with pytest.warns(PlausibilityWarning, match=r"front_leaf.spr:\d+: spring rate 0 N/m .*\[spring-rate\]"):
        read_property_file(spring)


def test_implausible_vehicle_values_warn_by_name_and_impossible_ones_fail(mbm, rtm_fmu, capsys, tmp_path):
    from pybridge.convert import convert_mbm
    from pybridge.plausibility import ImplausibleParameterError, check_parameter_set

    tir = mbm / "UAZBUS_Pac02Tire.tir"
    tir.write_text(re.sub(r"^PKY1 *= *-19.797", "PKY1 = 0.0", tir.read_text(), flags=re.M))
    assert main(["convert", str(mbm), "-o", str(tmp_path / "set"), "--fmu", str(rtm_fmu)]) == 0
    err = capsys.readouterr().err
    assert "pybridge convert: warning: " in err and "frontTire.PKY1" in err and "[tyre-cornering-stiffness]" in err
    params = convert_mbm(SHIPPED / "mbm", fmu=rtm_fmu)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_parameter_set(params)  # the shipped van is plausible
    flat = {f"{a}.stiffness.parallelForce": np.full_like(params.tables[f"{a}.stiffness.parallelForce"], 5000.0)
            for a in ("frontAxleData", "rearAxleData")}
    implausible = params.with_values(flat)
    implausible.scalars["chassis.sprungBodies"] = 1e-6
    with pytest.warns(PlausibilityWarning) as caught:
        check_parameter_set(implausible)
    names = [re.search(r"\[([a-z-]+)\]$", str(w.message)).group(1) for w in caught]
    assert names == ["sprung-mass", "axle-stiffness", "axle-stiffness"], names
    for value, pattern in ((0.0, "sprung mass 0 kg — expected a positive value"), (1e308, "magnitude 1e\\+308")):
        broken = params.with_values({})
        broken.scalars["chassis.sprungBodies"] = value
        with pytest.raises(ImplausibleParameterError, match=pattern):
            check_parameter_set(broken)
