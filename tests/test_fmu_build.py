"""fmu_build: native FMUs (ME, CS, ME+CS) that fmpy validates and simulates, the build cache, fmu-build
inspect, FMU state and reset, the parameter rules of the wrapper, and one clear error per bad input.

The OpenModelica tests run only where omc exists; elsewhere they are skipped with the reason.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmu_helpers import BUILD_TIMES, input_signals, nrmse, replay
from fmu_validation import validate_fmu

from fmu_build import BuildError, build_fmu
from fmu_build.cli import main as cli
from fmu_build.inspect import read_fmu

REPO = Path(__file__).resolve().parent.parent
KCRIG = "VehicleRTM.QuarterCars.KCRig"
FOURPOST = "VehicleRTM.Vehicles.FourPost10DoF"
FMI_TYPES = ["cs", "me", "me_cs"]


def _description(fmu):
    from fmpy import read_model_description

    return read_model_description(fmu)


def _post_inputs(t):
    signals = np.zeros(len(t), dtype=[("time", float)] + [(f"{k}[{i}]", float) for k in ("zPost", "vPost")
                                                           for i in range(1, 5)])
    signals["time"] = t
    for i in range(1, 5):
        signals[f"zPost[{i}]"] = 0.01 * np.sin(2 * np.pi * 1.5 * t)
        signals[f"vPost[{i}]"] = 0.01 * 2 * np.pi * 1.5 * np.cos(2 * np.pi * 1.5 * t)
    return signals


# ---- building, validating, simulating -----------------------------------------------------------
# The other product FMUs, Model Exchange + Co-Simulation in one binary: fmpy validates them and runs
# them both ways (CVode for Model Exchange) from start values alone.
OTHER_PRODUCTS = {
    "VehicleRTM.Vehicles.RTM14DoF": ({"initialSpeed": 20.0, "steeringWheelAngle": 0.2, "throttle": 0.15},
                                     ["yawRate", "ay", "roll", "Fz[1]", "speed"]),
    "VehicleRTM.QuarterCars.SLEKQ": ({"FZ": 6000.0}, ["z", "v", "Fspring"]),
    "VehicleRTM.Tires.Tire": ({"Fz": 4000.0, "vx": 15.0, "vy": -0.5, "omega": 40.0}, ["Fx", "Fy", "Mz", "kappa"]),
}


@pytest.mark.parametrize("model", sorted(OTHER_PRODUCTS))
def test_other_product_fmus_validate_and_simulate_both_ways(model, native_fmu):
    from fmpy import simulate_fmu

    fmu = native_fmu(model, "me_cs")
    assert validate_fmu(str(fmu)) == []
    start_values, outputs = OTHER_PRODUCTS[model]
    # the RTM for 0.4 s only: CVode with finite-difference Jacobians of its fast tyre/wheel modes is slow.
    # CVode at 1e-10: looser, it lags the CS result by 10-20 ms at the start (roll 2.5e-6 at 1e-8, 1.12e-5 at 1e-10
    # and in CS at 10 ms) and its yaw rate ends 2.7 % off at fmpy's default tolerance once the
    # pressure brakes' friction states (a 300 1/s mode at 20 m/s) are in the model; the CS result is within 0.1 %
    stop = 0.4 if model.endswith("RTM14DoF") else 1.0
    runs = {kind: simulate_fmu(fmu, fmi_type=kind, stop_time=stop, output_interval=1e-2, output=outputs,
                               start_values=start_values, **({"solver": "CVode", "relative_tolerance": 1e-10} if kind == "ModelExchange" else {}))
            for kind in ("CoSimulation", "ModelExchange")}
    for name in outputs:
        cs, me = runs["CoSimulation"][name], runs["ModelExchange"][name]
        assert np.all(np.isfinite(cs)) and np.all(np.isfinite(me)), name
        assert np.ptp(cs) > 0, f"{model}: {name} did not move"
        assert nrmse(cs, me) < 0.02, (model, name, nrmse(cs, me))     # IMEX2 (default) at 1 ms and CVode agree



@pytest.mark.parametrize("fmi_type", FMI_TYPES)
@pytest.mark.parametrize("model", [KCRIG, FOURPOST])
def test_native_fmu_validates_and_simulates(model, fmi_type, native_fmu):
    from fmpy import simulate_fmu

    fmu = native_fmu(model, fmi_type)
    assert fmu.name == model.replace(".", "_") + ".fmu"
    problems = validate_fmu(str(fmu))
    assert problems == [], problems
    description = _description(fmu)
    assert (description.modelExchange is not None) == (fmi_type in ("me", "me_cs"))
    assert (description.coSimulation is not None) == (fmi_type in ("cs", "me_cs"))
    assert description.numberOfEventIndicators == 0
    t = np.linspace(0, 1.0, 201)
    if model == KCRIG:
        kwargs = dict(start_values={"FZ": 5000.0})
        outputs = ["z", "v", "a"]
    else:
        kwargs = dict(input=_post_inputs(t))
        outputs = ["heave", "pitch", "FTyre[1]", "zWheel[3]"]
    runs = {}
    if fmi_type in ("cs", "me_cs"):
        runs["cs"] = simulate_fmu(fmu, fmi_type="CoSimulation", stop_time=1.0, output_interval=5e-3,
                                  output=outputs, **kwargs)
    if fmi_type in ("me", "me_cs"):
        runs["me"] = simulate_fmu(fmu, fmi_type="ModelExchange", solver="CVode", stop_time=1.0,
                                  output_interval=5e-3, output=outputs, **kwargs)
    for kind, result in runs.items():
        assert result["time"][-1] == pytest.approx(1.0)
        for name in outputs:
            assert np.all(np.isfinite(result[name])), (kind, name)
            assert np.ptp(result[name]) > 0, (kind, name)   # the model moved
    if len(runs) == 2 and model == KCRIG:   # constant input: the FMU's integrator and fmpy's CVode agree
        for name in outputs:
            assert nrmse(runs["me"][name], runs["cs"][name]) < 0.02, name


def test_variables_are_the_flattened_modelica_variables(native_fmu):
    """Names, causalities, units and parameter values of the FMU are rumoca's flattening of the model
    (plus the wrapper's own fixedStepSize parameter)."""
    from fmu_build.native_backend import STEP_VARIABLE
    from fmu_build.variables import model_variables

    fmu = native_fmu(FOURPOST)
    expected = {v.name: v for v in model_variables(FOURPOST).variables}
    seen = {v.name: v for v in _description(fmu).modelVariables}
    assert set(seen) - set(expected) == {STEP_VARIABLE}
    causality = {"parameter": {"parameter"}, "calculatedParameter": {"calculatedParameter"}, "input": {"input"},
                 "output": {"output"}, "state": {"output", "local"}, "derivative": {"local"}, "local": {"local"}}
    for name, var in expected.items():
        if var.kind == "local":
            continue
        assert name in seen, f"{name} ({var.kind}) missing from the FMU"
        assert seen[name].causality in causality[var.kind], name
        assert (seen[name].unit or None) == (var.unit if var.type == "Real" else None), name
        assert seen[name].valueReference == var.value_reference, name
        if var.kind == "parameter" and var.type == "Real":
            assert float(seen[name].start) == var.start, name
    assert seen["heave"].causality == "output" and seen["der(heave)"].derivative is seen["heave"]
    assert "cornerFL.Fspring" in seen and "aBody[2]" in seen   # the model file's MODEL_LOCALS


def test_cache_makes_a_repeated_build_instant(native_fmu, fmu_cache, tmp_path):
    from fmu_build import build as build_module

    first = native_fmu(KCRIG)
    start = time.perf_counter()
    again = build_fmu(KCRIG, backend="native", out_dir=tmp_path, cache_dir=fmu_cache)
    seconds = time.perf_counter() - start
    cold = BUILD_TIMES.get(("native", KCRIG, "me_cs"))
    print(f"\nKCRig native ME+CS build: cold {cold if cold is None else round(cold, 2)} s, cached {seconds:.3f} s")
    assert build_module.last_build.cached
    assert seconds < 1.0
    assert again.read_bytes() == first.read_bytes()
    # another step size is another build (and another GUID)
    other = build_fmu(KCRIG, backend="native", step=5e-4, out_dir=tmp_path / "other", cache_dir=fmu_cache)
    assert _description(other).guid != _description(first).guid
    assert "0.0005" in _description(other).description


def test_cli_build_prints_the_path(native_fmu, fmu_cache, tmp_path, capsys):
    native_fmu(KCRIG)   # warm the cache
    out = tmp_path / "new" / "dir"
    assert cli([KCRIG, "--backend", "native", "-o", str(out), "--cache-dir", str(fmu_cache)]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed == [str(out / "VehicleRTM_QuarterCars_KCRig.fmu")]
    assert Path(printed[0]).is_file()
    assert cli(["build", KCRIG, "--backend", "native", "-o", str(out), "--cache-dir", str(fmu_cache)]) == 0


def test_cli_help_teaches_by_example(capsys):
    with pytest.raises(SystemExit):
        cli(["--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and "fmu-build inspect" in text and "--backend native" in text
    with pytest.raises(SystemExit):
        cli(["build", "--help"])
    text = capsys.readouterr().out
    assert "--fmi-type" in text and "--step" in text and "--docker" in text


def test_check_and_list_still_work(capsys):
    assert cli(["list", "--kind", "record"]) == 0
    assert "VehicleRTM.Suspensions.Corners.CornerData" in capsys.readouterr().out
    assert cli(["list", "--native"]) == 0
    listed = capsys.readouterr().out
    assert KCRIG in listed and FOURPOST in listed and "VehicleRTM.Examples.QuarterCarFreeVibration" in listed
    assert cli(["check", KCRIG]) == 0
    assert capsys.readouterr().out.startswith("ok")


# ---- inspect ------------------------------------------------------------------------------------

def test_inspect_lists_inputs_outputs_and_tables(native_fmu, capsys):
    fmu = native_fmu(FOURPOST)
    summary = read_fmu(fmu)
    assert [v.name for v in summary.inputs] == [f"zPost[{i}]" for i in range(1, 5)] + [f"vPost[{i}]" for i in range(1, 5)]
    assert "heave" in [v.name for v in summary.outputs]
    tables = {t.name: t.shape for t in summary.tables}
    assert tables["dataFront.rUpper"] == (3,) and tables["cornerRR.data.rLower"] == (3,)
    assert cli(["inspect", str(fmu)]) == 0
    text = capsys.readouterr().out
    assert "table parameters (12):" in text and "dataFront.rUpper  3 [m]" in text
    assert "zPost[1] [m]" in text and "FTyre[4] [N]" in text


def _fake_fmu(path: Path, entries: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


TABLE_MD = """<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="T" guid="{0}" generationTool="test">
  <CoSimulation modelIdentifier="T"/>
  <ModelVariables>
    <ScalarVariable name="map.u1[1]" valueReference="0" causality="parameter" variability="fixed"><Real start="0" unit="m"/></ScalarVariable>
    <ScalarVariable name="map.u1[2]" valueReference="1" causality="parameter" variability="fixed"><Real start="1" unit="m"/></ScalarVariable>
    {cells}
    <ScalarVariable name="u" valueReference="100" causality="input"><Real start="0"/></ScalarVariable>
    <ScalarVariable name="y" valueReference="101" causality="output"><Real/></ScalarVariable>
  </ModelVariables>
  <ModelStructure><Outputs><Unknown index="9"/></Outputs></ModelStructure>
</fmiModelDescription>
"""


def test_inspect_reports_grid_sizes_of_2d_tables(tmp_path, capsys):
    cells = "\n".join(f'<ScalarVariable name="map.toe[{i},{j}]" valueReference="{10 + 3 * i + j}" causality="parameter" '
                      f'variability="fixed"><Real start="0" unit="rad"/></ScalarVariable>'
                      for i in range(1, 3) for j in range(1, 4))
    fmu = _fake_fmu(tmp_path / "t.fmu", {"modelDescription.xml": TABLE_MD.replace("{cells}", cells)})
    assert cli(["inspect", str(fmu)]) == 0
    text = capsys.readouterr().out
    assert "map.toe  2x3 [rad]" in text and "map.u1  2 [m]" in text
    assert "parameters   8 (0 scalars, 2 arrays with 8 values)" in text


# ---- FMU state, reset, parameter rules ----------------------------------------------------------

def _slave(fmu, name="s"):
    from fmpy import extract
    from fmpy.fmi2 import FMU2Slave

    description = _description(fmu)
    folder = extract(fmu)
    slave = FMU2Slave(guid=description.guid, unzipDirectory=folder,
                      modelIdentifier=description.coSimulation.modelIdentifier, instanceName=name)
    vr = {v.name: v.valueReference for v in description.modelVariables}
    return slave, vr, folder


def _drive(slave, vr, k0, k1, h=0.01):
    """Communication steps k0..k1-1 of length h with a sine force input; (z, v, a) after each step."""
    out = []
    for k in range(k0, k1):
        t = k * h
        slave.setReal([vr["FZ"]], [5681.0 + 1000.0 * np.sin(2 * np.pi * 3.0 * t)])
        slave.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        out.append(slave.getReal([vr["z"], vr["v"], vr["a"]]))
    return np.array(out)


def _start(slave, vr, k1=29000.0):
    slave.setupExperiment(startTime=0.0)
    slave.setReal([vr["data.k1"]], [k1])
    slave.enterInitializationMode()
    slave.exitInitializationMode()


def test_reset_and_fmu_state_round_trip(native_fmu):
    fmu = native_fmu(KCRIG)
    slave, vr, folder = _slave(fmu)
    try:
        slave.instantiate()
        _start(slave, vr)
        first = _drive(slave, vr, 0, 50)
        state = slave.getFMUstate()
        continued = _drive(slave, vr, 50, 100)
        slave.setFMUstate(state)                       # back to t = 0.5
        assert np.array_equal(_drive(slave, vr, 50, 100), continued)
        serialized = slave.serializeFMUstate(state)
        restored = slave.deSerializeFMUstate(serialized)
        slave.setFMUstate(restored)
        assert np.array_equal(_drive(slave, vr, 50, 100), continued)
        slave.freeFMUstate(restored)
        slave.freeFMUstate(state)
        slave.reset()                                  # a new run with the same instance
        _start(slave, vr)
        assert np.array_equal(_drive(slave, vr, 0, 100), np.vstack([first, continued]))
        slave.reset()                                  # reset forgets the parameter set before
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        assert slave.getReal([vr["corner.data.k1"]]) == [30000.0]
        slave.terminate()
        slave.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_wrapper_enforces_the_fmi_rules_for_setting(native_fmu, capfd):
    from fmpy.fmi1 import FMICallException

    fmu = native_fmu(KCRIG)
    slave, vr, folder = _slave(fmu)
    try:
        slave.instantiate()
        _start(slave, vr)
        for name in ("data.k1", "corner.Lfree", "z", "corner.Fspring"):
            with pytest.raises(FMICallException):
                slave.setReal([vr[name]], [1.0])
        log = capfd.readouterr().out
        assert "data.k1 is a fixed parameter" in log and "corner.Lfree is a calculated parameter" in log
        slave.setReal([vr["FZ"]], [6000.0])             # inputs can be set between steps
        slave.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.1)
        with pytest.raises(FMICallException):           # a step that does not start where the FMU is
            slave.doStep(currentCommunicationPoint=0.5, communicationStepSize=0.1)
        slave.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_model_error_fails_initialization_with_a_message(native_fmu, capfd):
    from fmpy.fmi1 import FMICallException

    fmu = native_fmu(KCRIG)
    slave, vr, folder = _slave(fmu)
    try:
        slave.instantiate()
        slave.setupExperiment(startTime=0.0)
        slave.setReal([vr["data.k1"]], [-5.0])
        slave.enterInitializationMode()
        with pytest.raises(FMICallException):
            slave.exitInitializationMode()
        message = capfd.readouterr().out
        assert "SLEKQ.mo:" in message and "data.k1 = -5: the linear spring rate must be > 0" in message, message
        slave.reset()                                   # the instance is usable again after a reset
        _start(slave, vr)
        assert np.all(np.isfinite(_drive(slave, vr, 0, 10)))
        slave.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_zero_damper_transition_speed_fails_initialization_with_a_message(native_fmu, capfd):
    from fmpy.fmi1 import FMICallException

    slave, vr, folder = _slave(native_fmu(KCRIG))
    try:
        slave.instantiate()
        slave.setupExperiment(startTime=0.0)
        slave.setReal([vr["data.d2"]], [0.0])
        slave.enterInitializationMode()
        with pytest.raises(FMICallException):
            slave.exitInitializationMode()
        message = capfd.readouterr().out
        assert "data.d2 = 0" in message and "damper transition speeds must be > 0" in message, message
        slave.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_long_communication_step_hits_the_communication_point(native_fmu):
    """One doStep of 0.1234 s (123 integrator steps of 1 ms and one of 0.4 ms) ends exactly there and agrees
    with 1 ms communication steps."""
    fmu = native_fmu(KCRIG)
    results = []
    for h in (0.1234, 0.001):
        slave, vr, folder = _slave(fmu)
        try:
            slave.instantiate()
            slave.setupExperiment(startTime=0.0)
            slave.setReal([vr["FZ"]], [6500.0])
            slave.enterInitializationMode()
            slave.exitInitializationMode()
            t = 0.0
            while t < 0.1234 - 1e-12:
                step = min(h, 0.1234 - t)
                slave.doStep(currentCommunicationPoint=t, communicationStepSize=step)
                t += step
            assert slave.getRealStatus(2) == pytest.approx(0.1234, abs=1e-15)   # fmi2LastSuccessfulTime
            results.append(slave.getReal([vr["z"], vr["v"]]))
            slave.freeInstance()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    assert results[0] == pytest.approx(results[1], rel=1e-9, abs=1e-12)


# ---- bad input: one error line, exit code, nothing written --------------------------------------

def _snapshot(folder: Path):
    return sorted((p.relative_to(folder).as_posix(), p.read_bytes()) for p in folder.rglob("*") if p.is_file()) \
        if folder.exists() else None


def _expect_error(capsys, argv, out_dir: Path | None, *fragments):
    before = _snapshot(out_dir) if out_dir else None
    assert cli(argv) != 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("fmu-build: error: "), captured.err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert captured.out == ""
    if out_dir:
        assert _snapshot(out_dir) == before, "the output directory changed"
    return lines[0]


def test_unknown_model_is_one_error_line(tmp_path, capsys):
    out = tmp_path / "out"
    _expect_error(capsys, ["VehicleRTM.QuarterCars.KCRgi", "--backend", "native", "-o", str(out)], out,
                  "unknown model 'VehicleRTM.QuarterCars.KCRgi'")
    assert not out.exists()
    _expect_error(capsys, ["build", "KCRig", "--backend", "native", "-o", str(out)], out,
                  "did you mean VehicleRTM.QuarterCars.KCRig")


def test_any_library_block_builds_natively(native_fmu):
    """The native backend generates the C of any class (AeroDrag never had C written for it): its
    FMU computes the Modelica's 0.5*airDensity*dragArea*vx*|vx|."""
    fmu = native_fmu("VehicleRTM.Aerodynamics.AeroDrag", "cs")
    t = np.linspace(0.0, 1.0, 11)
    signals = np.array(list(zip(t, 40 * t - 10)), dtype=[("time", float), ("vx", float)])
    force = replay(fmu, signals, ["force"])["force"]
    vx = 40 * t - 10
    np.testing.assert_allclose(force, 0.5 * 1.2 * 0.37 * 4.0 * vx * np.abs(vx), rtol=1e-12, atol=1e-9)


def test_bad_options_are_one_error_line(tmp_path, capsys):
    out = tmp_path / "out"
    _expect_error(capsys, [KCRIG, "--backend", "native", "--step", "0", "-o", str(out)], out, "--step must be > 0")
    _expect_error(capsys, [KCRIG, "--backend", "native", "--docker", "some/image", "-o", str(out)], out,
                  "--docker applies to the OpenModelica backend")


def test_missing_compiler_is_one_error_line(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setenv("CC", str(tmp_path / "no-such-gcc"))
    _expect_error(capsys, [KCRIG, "--backend", "native", "-o", str(out), "--no-cache"], out,
                  "C compiler", "not found", "gcc")
    assert not out.exists()


@pytest.mark.skipif(shutil.which("omc") is not None, reason="omc is installed here")
def test_missing_openmodelica_names_the_native_backend(tmp_path, capsys):
    out = tmp_path / "out"
    _expect_error(capsys, [KCRIG, "--backend", "openmodelica", "-o", str(out)], out, "omc", "--backend native")


def test_missing_ompython_names_the_native_backend(tmp_path, monkeypatch):
    from fmu_build import openmodelica_backend

    monkeypatch.setitem(sys.modules, "OMPython", None)   # import OMPython -> ImportError
    monkeypatch.setattr(openmodelica_backend, "find_omc", lambda: "/opt/openmodelica/bin/omc")
    with pytest.raises(BuildError, match=r"OMPython.*--backend native"):
        openmodelica_backend._Session(tmp_path, None)


def test_docker_session_mounts_the_library(tmp_path, monkeypatch):
    """--docker IMAGE: OMPython's Docker session with the library and the build folder mounted at their paths."""
    from fmu_build import openmodelica_backend
    from fmu_build.modelica import LIBRARY_DIR

    created = {}

    class FakeDocker:
        def __init__(self, **kwargs):
            created.update(kwargs)

        def sendExpression(self, expression, parsed=True):
            return True

    monkeypatch.setattr(openmodelica_backend, "_ompython", lambda: type("M", (), {"OMCSessionDocker": FakeDocker}))
    monkeypatch.setattr(openmodelica_backend.shutil, "which", lambda name: f"/usr/bin/{name}")
    openmodelica_backend._Session(tmp_path, "openmodelica/openmodelica:v1.24.0-ompython")
    assert created["docker"] == "openmodelica/openmodelica:v1.24.0-ompython"
    args = created["dockerExtraArgs"]
    assert f"{LIBRARY_DIR}:{LIBRARY_DIR}:ro" in args and f"{tmp_path}:{tmp_path}" in args
    monkeypatch.setenv("VEHICLERTM_OMC_DOCKER", "some/image")
    from fmu_build.build import build_key
    from fmu_build.modelica import find_class

    assert build_key(find_class(KCRIG), "openmodelica", "me_cs", 1e-3, "some/image") != \
        build_key(find_class(KCRIG), "openmodelica", "me_cs", 1e-3, "other/image")


def _project_copy(tmp_path: Path) -> Path:
    """A copy of fmu_build and the Modelica library, to break on purpose."""
    root = tmp_path / "project"
    shutil.copytree(REPO / "fmu_build", root / "fmu_build", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "modelica", root / "modelica")
    return root


def _run_copy(root: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root), "VEHICLERTM_FMU_CACHE": str(root / "cache")}
    return subprocess.run([sys.executable, "-m", "fmu_build.cli", *argv], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)


def _one_error_line(result: subprocess.CompletedProcess) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 1 and len(lines) == 1 and lines[0].startswith("fmu-build: error: "), result.stderr
    assert result.stdout == ""
    return lines[0]


@pytest.mark.parametrize("broken, expected", [
    ("  Q = (Fspring + Fdampr + Ffriction)*dLdz;", ["SLEKQ.mo:79", "Fdampr"]),                       # unknown name
    ("  Q = (Fspring + Fdamper + Ffriction)*dLdz", ["SLEKQ.mo:", "syntax error"]),                  # missing ';'
])
def test_modelica_error_is_one_line_with_file_and_line(tmp_path, broken, expected):
    root = _project_copy(tmp_path)
    source = root / "modelica" / "VehicleRTM" / "QuarterCars" / "SLEKQ.mo"
    text = source.read_text()
    assert "  Q = (Fspring + Fdamper + Ffriction)*dLdz;" in text
    source.write_text(text.replace("  Q = (Fspring + Fdamper + Ffriction)*dLdz;", broken))
    out = root / "out"
    line = _one_error_line(_run_copy(root, KCRIG, "--backend", "native", "-o", str(out)))
    for fragment in expected:
        assert fragment in line, line
    assert "modelica/VehicleRTM/QuarterCars/SLEKQ.mo" in line   # the broken copy, not the repository
    assert not out.exists()


def test_c_compile_error_is_one_line_with_file_and_line(tmp_path):
    root = _project_copy(tmp_path)
    source = root / "fmu_build" / "native" / "runtime" / "fmi2_wrapper.c"
    text = source.read_text()
    assert "model_calculated_parameters(&core->m);" in text
    source.write_text(text.replace("model_calculated_parameters(&core->m);", "model_calculated_parameters(&core->mm);"))
    out = root / "out"
    line = _one_error_line(_run_copy(root, KCRIG, "--backend", "native", "-o", str(out)))
    assert "fmu_build/native/runtime/fmi2_wrapper.c:" in line and "C compile error" in line, line
    assert "mm" in line, line
    assert not out.exists()


# ---- corrupt FMUs for inspect -------------------------------------------------------------------

@pytest.mark.parametrize("case, expected", [
    ("missing", "no such file"),
    ("not_zip", "not an FMU (not a zip archive)"),
    ("no_description", "no modelDescription.xml"),
    ("bad_xml", "modelDescription.xml line"),
    ("escape", "unsafe entry '../evil.sh'"),
    ("absolute", "unsafe entry '/tmp/evil.sh'"),
    ("wrong_root", "root element <html>"),
])
def test_corrupt_fmu_is_one_error_line(case, expected, tmp_path, capsys):
    path = tmp_path / f"{case}.fmu"
    if case == "not_zip":
        path.write_text("this is not a zip archive")
    elif case == "no_description":
        _fake_fmu(path, {"binaries/linux64/x.so": b"\0"})
    elif case == "bad_xml":
        _fake_fmu(path, {"modelDescription.xml": "<fmiModelDescription fmiVersion='2.0'>\n<ModelVariables>\n</fmi"})
    elif case == "escape":
        _fake_fmu(path, {"modelDescription.xml": TABLE_MD.replace("{cells}", ""), "../evil.sh": "rm -rf ~"})
    elif case == "absolute":
        _fake_fmu(path, {"modelDescription.xml": TABLE_MD.replace("{cells}", ""), "/tmp/evil.sh": "rm -rf ~"})
    elif case == "wrong_root":
        _fake_fmu(path, {"modelDescription.xml": "<html><body/></html>"})
    _expect_error(capsys, ["inspect", str(path)], tmp_path, expected)


def test_extract_refuses_path_escapes(tmp_path):
    from fmu_build.inspect import extract_fmu

    path = _fake_fmu(tmp_path / "e.fmu", {"modelDescription.xml": TABLE_MD.replace("{cells}", ""),
                                          "sources/../../evil.sh": "x"})
    with pytest.raises(BuildError, match="unsafe entry"):
        extract_fmu(path, tmp_path / "x")
    assert not (tmp_path / "evil.sh").exists() and not (tmp_path / "x").exists()


# ---- OpenModelica (only where omc exists) -------------------------------------------------------

OMC = shutil.which("omc")
needs_omc = pytest.mark.skipif(OMC is None, reason="OpenModelica's omc is not on PATH (it cannot be installed on "
                                                   "these machines); the native backend is tested instead")


@needs_omc
@pytest.mark.openmodelica
def test_openmodelica_fmu_validates_and_simulates(tmp_path):
    pytest.importorskip("OMPython", reason="OMPython is not installed (pip install OMPython)")
    from fmpy import simulate_fmu
    from fmpy.validation import validate_fmu

    fmu = build_fmu(KCRIG, backend="openmodelica", fmi_type="me_cs", out_dir=tmp_path, cache_dir=tmp_path / "cache")
    assert validate_fmu(str(fmu)) == []
    assert (tmp_path / "cache").exists()
    names = {v.name for v in _description(fmu).modelVariables}
    assert {"FZ", "z", "v", "a", "data.k1"} <= names
    for kind in ("CoSimulation", "ModelExchange"):
        result = simulate_fmu(fmu, fmi_type=kind, stop_time=1.0, start_values={"FZ": 5000.0}, output=["z"])
        assert np.all(np.isfinite(result["z"]))


@needs_omc
@pytest.mark.openmodelica
@pytest.mark.parametrize("example, model, prefix, inputs", [
    ("VehicleRTM.Examples.KCSweptSine", KCRIG, "rig.", ["FZ", "lambda", "GI", "GP", "GD", "zRef", "vRef", "aRef"]),
    ("VehicleRTM.Examples.FourPostHeave", FOURPOST, "car.",
     [f"zPost[{i}]" for i in range(1, 5)] + [f"vPost[{i}]" for i in range(1, 5)]),
])
def test_openmodelica_and_native_fmus_agree(example, model, prefix, inputs, tmp_path, native_fmu):
    """Both FMUs as Model Exchange under fmpy's CVode with the same inputs: NRMSE <= 1 % on every output."""
    pytest.importorskip("OMPython", reason="OMPython is not installed (pip install OMPython)")
    from fmpy import simulate_fmu

    from fmu_build.modelica import simulate_example

    om = build_fmu(model, backend="openmodelica", fmi_type="me_cs", out_dir=tmp_path, cache_dir=tmp_path / "cache")
    native = native_fmu(model)
    reference = simulate_example(example, stop_time=10.0)
    signals = input_signals(reference, prefix, inputs)
    outputs = [v.name for v in _description(native).modelVariables if v.causality == "output"]
    runs = [simulate_fmu(fmu, fmi_type="ModelExchange", stop_time=10.0, output_interval=float(signals["time"][1]),
                         input=signals, output=outputs, relative_tolerance=1e-6) for fmu in (om, native)]
    for name in outputs:
        error = nrmse(runs[0][name], runs[1][name])
        assert error <= 0.01, (name, error)


def test_internal_step_is_an_fmu_parameter(native_fmu):
    """fixedStepSize (default: the build's --step) sets the Co-Simulation integrator's step before init."""
    from fmpy import simulate_fmu

    fmu = native_fmu(FOURPOST, "cs")
    step = {v.name: v for v in _description(fmu).modelVariables}["fixedStepSize"]
    assert (step.causality, step.unit, float(step.start)) == ("parameter", "s", 1e-3)
    t = np.linspace(0, 1.0, 11)
    runs = {h: simulate_fmu(fmu, fmi_type="CoSimulation", stop_time=1.0, output_interval=0.1, output=["heave"],
                            input=_post_inputs(t), start_values={"fixedStepSize": h})["heave"]
            for h in (1e-3, 1e-4, 0.02)}
    # A smaller step changes the default (IMEX2) result only a little; a 20 ms step (near the explicit
    # stability limit of the tyre mode) a lot more.
    assert nrmse(runs[1e-4], runs[1e-3]) < nrmse(runs[1e-4], runs[0.02])
    assert nrmse(runs[1e-4], runs[1e-3]) > 0          # the parameter really reached the integrator
    with pytest.raises(Exception):
        simulate_fmu(fmu, fmi_type="CoSimulation", stop_time=0.1, start_values={"fixedStepSize": 0.0})
