"""The main job on vehicles it has never seen (issue 27 item 10): `pybridge demo` end to end, cut down,
on the robustness data sets of tests/data/vehicles/ (made by the reference generator from other data
files, see the README there), each in a subprocess so a signal shows as one.

Each must reach a report (exit 0, report/report.html, run.yaml up to the report step). Whatever it
ends with: never a signal (negative return code), never a traceback, never a hang, and a failure is a
documented exit code with one line on stderr (checked first, so a failure says which kind it is).
The demo builds its identification FMU as a user's run does (into the test session's build cache:
the first vehicle pays the compile, about 25 s of CPU). `slow`: the same with the standard preset's
budget.
"""
from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys

import pytest
import yaml

from conftest import REPO
from pybridge.cli import EXIT_INPUT, EXIT_OK, EXIT_RUNTIME
from pybridge.reference.vehicle_data import VehicleDataError, load_vehicle

VEHICLES_DIR = REPO / "tests" / "data" / "vehicles"
# data set -> what the shipped van does not have
VEHICLES = {
    "lcv35_short_relaxation": "tyre relaxation lengths 0.05 m, no driveline data, lateral manoeuvres only",
    "lcv35_soft_one_gear": "soft suspension, one-speed gearbox, no corner sweeps",
    "lcv35_stiff_light": "stiff suspension, 300 kg lighter, lateral manoeuvres only",
}
BUDGET = {"sensitivity": {"samples": 2}, "pattern_search": {"max_evaluations": 6}}   # cut down
TIMEOUT = 300  # s: far above a cut-down run (about 20 s), a hang fails instead of blocking the suite
DOCUMENTED_FAILURES = (EXIT_INPUT, EXIT_RUNTIME)


def run_demo(reference, out, config, cache, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    """`pybridge demo` on ``reference`` in its own process group (killed whole on a hang)."""
    command = [sys.executable, "-c", "from pybridge.cli import main; raise SystemExit(main())", "demo",
               "--reference", str(reference), "-o", str(out), "--workers", "1", "--quiet",
               *(["--config", str(config)] if config else [])]
    env = {**os.environ, "VEHICLERTM_FMU_CACHE": str(cache)}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail(f"pybridge demo on {reference.name} still running after {timeout} s")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def test_the_robustness_sets_differ_from_the_van_and_were_made_from_their_data_files():
    van = load_vehicle("lcv35")
    for name in VEHICLES:
        data = load_vehicle(VEHICLES_DIR / f"{name}.yaml")
        manifest = yaml.safe_load((VEHICLES_DIR / name / "manifest.yaml").read_text())
        assert manifest["vehicle"] == data.name == name
        assert not any(t.startswith(("corner_force_sweep", "four_post")) for t in manifest["traces"]), name
        assert data.raw != van.raw, name
        for path, digest in manifest["inputs"].items():   # made from the files shipped here, as they are
            assert hashlib.sha256((REPO / path).read_bytes()).hexdigest() == digest, (name, path)
        assert (VEHICLES_DIR / name / "mbm" / "driveline.yaml").exists() == ("driveline" not in data.omitted), name


@pytest.fixture(scope="module")
def config(tmp_path_factory, rtm_fmu):
    """The cut-down settings. ``rtm_fmu``: the session's RTM build, so the flattening is in the build
    cache and the demo's own build of the identification FMU only compiles."""
    path = tmp_path_factory.mktemp("robustness") / "cut_down.yaml"
    path.write_text(yaml.safe_dump(BUDGET))
    return path


def check_demo(name: str, run, result: subprocess.CompletedProcess) -> dict:
    """The demo's outcome as the module docstring asks; returns run.yaml."""
    said = f"{name} ({VEHICLES[name]}): exit {result.returncode}, stderr:\n{result.stderr[-2000:]}"
    assert result.returncode >= 0, f"killed by signal {-result.returncode}: " + said
    assert "Traceback" not in result.stderr + result.stdout, said
    if result.returncode != EXIT_OK:
        assert result.returncode in DOCUMENTED_FAILURES, said
        errors = [line for line in result.stderr.splitlines() if line and ": warning: " not in line]
        assert len(errors) == 1 and errors[0].startswith("pybridge demo: "), said
    assert result.returncode == EXIT_OK and (run / "report" / "report.html").is_file(), "no report: " + said
    info = yaml.safe_load((run / "run.yaml").read_text())
    assert info["steps"][-1]["step"] == "report", said
    chosen = info["identification_step"]   # issue 27 item 1: chosen for this parameter set, with why
    assert chosen["reason"] and (chosen["step_s"] is None or chosen["step_s"] > 0), said
    return info


@pytest.mark.parametrize("name", list(VEHICLES))
def test_the_demo_reaches_a_report_on_a_cut_down_budget(name, config, fmu_cache, tmp_path):
    run = tmp_path / "run"
    info = check_demo(name, run, run_demo(VEHICLES_DIR / name, run, config, fmu_cache))
    if name == "lcv35_short_relaxation":   # sigma/v = 1.8 ms at 100 km/h: RK4 diverges at the van's 10 ms
        assert info["identification_step"]["step_s"] < 0.01, info["identification_step"]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(VEHICLES))
def test_the_demo_reaches_a_report_with_the_standard_budget(name, fmu_cache, tmp_path):
    run = tmp_path / "run"
    info = check_demo(name, run, run_demo(VEHICLES_DIR / name, run, None, fmu_cache, 4 * TIMEOUT))
    validation = next(step for step in info["steps"] if step["step"] == "validation")
    print(f"{name}: objective indices within TP {validation['objective indices within TP']}, identification "
          f"step {info['identification_step']['step_s']} s, {info['total_wall_s']} s")


def test_a_data_file_finds_its_tyre_beside_it_and_names_what_its_data_set_omits(tmp_path):
    data = load_vehicle(VEHICLES_DIR / "lcv35_short_relaxation.yaml")
    assert data.tyre_file == VEHICLES_DIR / "UAZBUS_Pac02Tire_relax005.tir" and data.omitted == ("driveline",)
    assert load_vehicle("lcv35").omitted == ()
    bad = tmp_path / "bad.yaml"
    bad.write_text((VEHICLES_DIR / "lcv35_soft_one_gear.yaml").read_text() + "data_set_omits: [brakes]\n")
    with pytest.raises(VehicleDataError, match=r"bad.yaml: data_set_omits: \['brakes'\]; expected a list of some of"):
        load_vehicle(bad)


def test_the_generator_refuses_longitudinal_tests_without_driveline_data_before_simulating(tmp_path, monkeypatch):
    pytest.importorskip("exudyn", reason="the reference vehicle's Exudyn is not installed")
    from pybridge.reference.generate import _input_name, generate

    monkeypatch.chdir(REPO)   # a data file given relative to the working directory
    relative = VEHICLES_DIR.relative_to(REPO) / "lcv35_short_relaxation.yaml"
    assert _input_name(relative) == str(relative)
    with pytest.raises(ValueError, match="data_set_omits: the data set has no driveline.yaml, so its acceleration"):
        generate(str(relative), tmp_path / "set", tests=("step_steer", "acceleration"))
    assert not (tmp_path / "set").exists()


def test_a_stage_naming_a_manoeuvre_the_data_set_lacks_is_refused_before_any_evaluation(rtm_fmu, tmp_path, capsys):
    """The van's stage file on a data set without a ramp steer: exit 2, one line naming the stage file,
    the stage and the manoeuvre, before any build or evaluation (was: exit 3 after a failed start point)."""
    from pybridge.cli import main
    from pybridge.convert import convert_mbm

    reference = VEHICLES_DIR / "lcv35_soft_one_gear"
    params = tmp_path / "params"
    convert_mbm(reference / "mbm", fmu=rtm_fmu).write(params)
    stages = REPO / "scenarios" / "stages_van.yaml"
    out = tmp_path / "run"
    code = main(["identify", "--params", str(params), "--reference", str(reference), "--stages", str(stages),
                 "--fmu", str(rtm_fmu), "-o", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_INPUT and len(err) == 1, "\n".join(err)
    assert f"{stages}: stage 'roll': ramp_steer: asked for by name" in err[0]
    assert not (out / "record.jsonl").exists() and not (out / "stages").exists()
