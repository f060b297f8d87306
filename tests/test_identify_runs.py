"""Identification runs on the RTM FMU (issue 27, items 2, 3, 5, 9): a start point that diverges stops the run
with exit 3 before any optimizer starts, Ctrl-C stops a NOMAD run whatever NOMAD does with signals, a parent
killed with SIGKILL leaves no worker and no held lock behind, and a zero nominal gets no percentage. Real
``python -m pybridge.cli`` children where the behaviour is about processes; step-steer-only objectives."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from pybridge.cli import main

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"


def _objective(path: Path, weights: dict) -> Path:
    path.write_text(yaml.safe_dump({"format": "vehiclertm-objective 1", "tolerance_percent": 5.0, "penalty_factor": 2.0,
                                    "failure": {"value": 1.0e6, "min_duration_fraction": 0.5}, "weights": weights}))
    return path


@pytest.fixture(scope="module")
def van(rtm_fmu, tmp_path_factory):
    """The converted lcv35 set with chassis.Izz uncertain, the RTM FMU and a step-steer objective."""
    from pybridge.convert import convert_mbm

    root = tmp_path_factory.mktemp("identify-runs")
    params = convert_mbm(SHIPPED / "mbm", fmu=rtm_fmu)
    params.uncertain = {}
    params.mark_uncertain("chassis.Izz", 0.2)
    params.write(root / "params")
    return rtm_fmu, params, root / "params", _objective(root / "objective.yaml",
                                                         {"step_steer": {"yaw_rate_gain": 1.0, "ay_gain": 1.0}})


def _args(fmu, params, objective, run, *extra) -> list[str]:
    return ["identify", "--params", str(params), "--reference", str(SHIPPED), "--fmu", str(fmu), "--objective",
            str(objective), "-o", str(run), "--quiet", *extra]


def _child(argv: list[str]) -> subprocess.Popen:
    # Ctrl-C's default action, as under a terminal, whatever the test runner does with SIGINT
    return subprocess.Popen([sys.executable, "-m", "pybridge.cli", *argv], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_for_evaluations(record: Path, count: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if record.exists() and len(record.read_text().splitlines()) > count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{record}: fewer than {count} evaluations ({process.poll()=})")


def _descendants(pid: int) -> set[int]:
    children, found = {}, set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                children.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append(int(entry.name))
            except (OSError, ValueError):
                pass
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z":
                alive.add(pid)
        except OSError:
            pass
    return alive


def test_a_start_point_that_diverges_is_exit_3_before_any_optimizer(van, tmp_path, capsys):
    fmu, params, _, _ = van
    short = params.with_values({})
    for axle in ("frontTire", "rearTire"):  # relaxation lengths 0.05 m at FNOMIN, and a 100 ms step (at 10 ms
        # whether the start diverges hangs on details: with travelAlongBody it no longer did, Izz 4 % lower did)
        short.scalars[f"{axle}.LSGKP"] *= 0.05 / 0.7011
        short.scalars[f"{axle}.LSGAL"] *= 0.05 / 0.5851
    short.scalars["fixedStepSize"] = 0.1
    short.write(tmp_path / "short")
    objective = _objective(tmp_path / "objective.yaml", {"acceleration": {"speed": 1.0}})
    run = tmp_path / "run"
    assert main(_args(fmu, tmp_path / "short", objective, run, "--max-evaluations", "5")) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "the nominal parameter set (the start point) fails, so no optimizer starts: acceleration: diverged at " \
           "t = " in err and ": omega[" in err
    assert not (run / "record.jsonl").exists() and not (run / "result.yaml").exists()


def test_ctrl_c_stops_a_nomad_run_and_the_record_resumes(van, tmp_path):
    fmu, _, params, objective = van
    run = tmp_path / "run"
    argv = _args(fmu, params, objective, run, "--method", "nomad", "--workers", "2")
    process = _child(argv + ["--max-evaluations", "200"])
    _wait_for_evaluations(run / "record.jsonl", 4, process)
    family = _descendants(process.pid)
    os.killpg(process.pid, signal.SIGINT)   # as a terminal's Ctrl-C: every process of the group
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err.strip().splitlines() == ["pybridge identify: interrupted"], err
    assert not (run / "result.yaml").exists() and not (run / "params_optimized").exists()
    assert not _alive(family)
    kept = (run / "record.jsonl").read_text().splitlines()
    assert main(argv + ["--resume", "--max-evaluations", str(len(kept) + 1)]) == 0
    assert (run / "record.jsonl").read_text().splitlines()[:len(kept)] == kept
    assert (run / "result.yaml").is_file()


def test_a_parent_killed_mid_run_leaves_no_worker_and_resume_takes_over_at_once(van, tmp_path):
    fmu, _, params, objective = van
    run = tmp_path / "run"
    argv = _args(fmu, params, objective, run, "--method", "pattern-search", "--workers", "2")
    process = _child(argv + ["--max-evaluations", "200"])
    _wait_for_evaluations(run / "record.jsonl", 2, process)
    workers = _descendants(process.pid)
    assert len(workers) >= 2
    process.kill()
    process.wait()
    process.stdout.close()  # not communicate(): a surviving worker would hold these pipes open
    process.stderr.close()
    killed = time.monotonic()
    while _alive(workers) and time.monotonic() - killed < 5:
        time.sleep(0.05)
    survivors = _alive(workers)
    for pid in survivors:  # the test's own processes: none must be left behind, whatever the outcome
        os.kill(pid, signal.SIGKILL)
    assert not survivors, "workers outlived their parent"
    kept = (run / "record.jsonl").read_text().splitlines()
    resumed = _child(argv + ["--resume", "--max-evaluations", str(len(kept) + 2)])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and resumed.poll() is None:
        try:
            if json.loads((run / ".pybridge.lock").read_text())["pid"] == resumed.pid:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    assert resumed.poll() is None or resumed.returncode == 0, resumed.communicate()[1]
    assert time.monotonic() - killed < 5 + 5
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert (run / "record.jsonl").read_text().splitlines()[:len(kept)] == kept


def test_a_zero_nominal_gets_no_percentage_and_result_yaml_is_written(van, tmp_path, capsys):
    fmu, params, _, objective = van
    zero = params.with_values({})
    zero.scalars["chassis.Ixz"] = 0.0
    zero.uncertain = {}
    zero.mark_uncertain("chassis.Ixz")
    zero.write(tmp_path / "zero")
    run = tmp_path / "run"
    assert main(_args(fmu, tmp_path / "zero", objective, run, "--method", "pattern-search", "--workers", "1",
                      "--max-evaluations", "3")) == 0
    out = capsys.readouterr().out
    summary = yaml.safe_load((run / "result.yaml").read_text())["parameters"]["chassis.Ixz"]
    assert summary["nominal"] == 0.0 and summary["change_percent"] is None
    assert summary["change"] == pytest.approx(summary["optimized"])
    assert "(nominal 0, change " in out


def test_ctrl_c_stops_the_demo_in_its_nomad_identification(van, tmp_path):
    fmu, _, _, objective = van
    run = tmp_path / "demo"
    demo = _child(["demo", "-o", str(run), "--fmu", str(fmu), "--objective", str(objective), "--workers", "2",
                   "--max-evaluations", "300", "--method", "nomad"])
    for line in demo.stdout:
        if line.startswith("[5/"):  # the identification
            break
    _wait_for_evaluations(run / "record.jsonl", 3, demo)
    os.killpg(demo.pid, signal.SIGINT)
    _, err = demo.communicate(timeout=60)
    assert demo.returncode == 130, err
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "eval" not in line
             and "%|" not in line]
    assert lines == ["pybridge demo: interrupted"], lines
    assert not (run / "result.yaml").exists() and not (run / "report").exists()
    assert [s["step"] for s in yaml.safe_load((run / "run.yaml").read_text())["steps"]][-1] == "sensitivity analysis"
