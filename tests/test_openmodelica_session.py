"""The OpenModelica backend against OMPython's real session code (OMCSessionLocal, its ZMQ socket, its
message handling), with omc replaced by tests/fake_omc/bin/omc, which answers as omc does."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from fmu_build.build import build_fmu, build_key
from fmu_build.errors import BuildError
from fmu_build.modelica import find_class

pytest.importorskip("OMPython", reason="OMPython is not installed (pip install -e '.[test]')")
pytest.importorskip("zmq", reason="pyzmq (an OMPython dependency) is not installed")

FAKE_HOME = Path(__file__).resolve().parent / "fake_omc"
KCRIG = "VehicleRTM.QuarterCars.KCRig"
SLEKQ = Path(__file__).resolve().parents[1] / "modelica" / "VehicleRTM" / "QuarterCars" / "SLEKQ.mo"


@pytest.fixture
def omc(tmp_path, monkeypatch):
    """The fake omc as the one OMPython finds; returns the list of expressions it received (read lazily,
    after waiting up to 10 s for a started session's quit() to reach it: OMPython sends quit() without waiting for
    an answer, so under load the fake can still be writing it when the build has returned)."""
    record = tmp_path / "omc-expressions.txt"
    monkeypatch.setenv("OPENMODELICAHOME", str(FAKE_HOME))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_OMC_RECORD", str(record))
    monkeypatch.delenv("VEHICLERTM_OMC_DOCKER", raising=False)
    def received() -> list[str]:
        deadline = time.monotonic() + 10.0
        while record.exists() and time.monotonic() < deadline and "quit()" not in record.read_text().splitlines():
            time.sleep(0.02)
        return record.read_text().splitlines() if record.exists() else []
    return received


def _build(tmp_path, **options):
    return build_fmu(KCRIG, backend="openmodelica", out_dir=tmp_path / "out", cache_dir=tmp_path / "cache", **options)


def test_cs_build_sets_the_solver_and_needs_no_error_string_calls(tmp_path, omc):
    fmu = _build(tmp_path, fmi_type="cs")
    assert fmu == tmp_path / "out" / "VehicleRTM_QuarterCars_KCRig.fmu" and fmu.is_file()
    received = omc()
    sent = [s for s in received if s != "getMessagesStringInternal()"]   # OMPython's own, after each call
    assert sent[0].startswith('cd("') and sent[1].startswith("loadFile(") and sent[1].endswith('VehicleRTM/package.mo")')
    assert 'setCommandLineOptions("--fmiFlags=s:euler")' in sent
    assert any(s.startswith('buildModelFMU(VehicleRTM.QuarterCars.KCRig, version="2.0", fmuType="cs"') for s in sent)
    # OMPython 4 drains omc's messages after each call itself; a getErrorString() would only log noise
    assert "getErrorString()" not in sent and sent[-1] == "quit()"
    assert received.count("getMessagesStringInternal()") == len(sent) - 1


def test_cvode_and_the_integrator_in_the_cache_key(tmp_path, omc):
    _build(tmp_path, fmi_type="cs", integrator="cvode")
    assert 'setCommandLineOptions("--fmiFlags=s:cvode")' in omc()
    cls = find_class(KCRIG)
    keys = {build_key(cls, "openmodelica", "cs", None, None, i) for i in ("euler", "cvode")}
    assert len(keys) == 2


@pytest.mark.parametrize("options, message", [
    ({"step": 1e-3}, "no internal fixed step"),
    ({"integrator": "rk4"}, "euler or cvode"),
    ({"integrator": "euler", "fmi_type": "me"}, "Model Exchange FMU has no integrator"),
])
def test_options_openmodelica_cannot_honour_are_refused(tmp_path, omc, options, message):
    with pytest.raises(BuildError, match=message):
        _build(tmp_path, **{"fmi_type": "cs", **options})
    assert omc() == [] and not (tmp_path / "out").exists()


def test_an_fmu_written_despite_a_recovered_error_is_kept(tmp_path, omc, monkeypatch):
    from fmu_build import build as build_module

    monkeypatch.setenv("FAKE_OMC_BUILD", "recovered")
    monkeypatch.setenv("FAKE_OMC_ERROR", f"{SLEKQ}:71:Initialization problem is structurally singular, error found sorting equations")
    fmu = _build(tmp_path, fmi_type="me_cs")
    assert fmu.is_file()
    notes = build_module.last_build.notes
    assert len(notes) == 1 and "SLEKQ.mo:71:3: Initialization problem" in notes[0]


def test_a_failed_build_names_file_and_line_and_writes_nothing(tmp_path, omc, monkeypatch):
    monkeypatch.setenv("FAKE_OMC_BUILD", "failed")
    monkeypatch.setenv("FAKE_OMC_ERROR", f"{SLEKQ}:71:Variable Fdampr not found in scope VehicleRTM.QuarterCars.SLEKQ.")
    with pytest.raises(BuildError) as error:
        _build(tmp_path, fmi_type="me_cs")
    assert "SLEKQ.mo:71:3: Variable Fdampr not found" in str(error.value)
    assert "\n" not in str(error.value)
    assert not (tmp_path / "out").exists()


def test_docker_builds_are_keyed_by_the_image_digest(tmp_path, monkeypatch):
    """A re-pulled tag (new image id from docker image inspect) is a new cache key."""
    docker = tmp_path / "bin" / "docker"
    docker.parent.mkdir()
    digest = tmp_path / "digest"
    docker.write_text(f"#!/bin/sh\ncat {digest}\n")
    docker.chmod(0o755)
    monkeypatch.setenv("PATH", f"{docker.parent}{os.pathsep}{os.environ['PATH']}")
    cls = find_class(KCRIG)
    keys = []
    for image_id in ("sha256:aaa", "sha256:bbb"):
        digest.write_text(image_id + "\n")
        keys.append(build_key(cls, "openmodelica", "cs", None, "openmodelica/openmodelica:v1.24.0-ompython", "euler"))
    assert keys[0] != keys[1]
