"""Hardening of run folders (issue 18): one writer per folder, verified FMU copies, interrupts, reference
channels and the resume hint. Processes run as real ``python -m pybridge.cli`` children where the
behaviour is about processes (locks, signals)."""
from __future__ import annotations

import json
import re
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from pybridge.cli import main
from pybridge.runlock import LOCK_NAME, RunFolderBusy, run_folder_lock

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"
STEP_ONLY = {"format": "vehiclertm-objective 1", "tolerance_percent": 5.0, "penalty_factor": 2.0,
             "failure": {"value": 1.0e6, "min_duration_fraction": 0.5},
             "weights": {"step_steer": {"yaw_rate_gain": 1.0, "ay_gain": 1.0}}}


def _cli(*args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pybridge.cli", *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


@pytest.fixture(scope="module")
def setup(rtm_fmu, tmp_path_factory):
    """The RTM FMU (its Co-Simulation runs), the converted lcv35 parameter set and a step-steer-only objective."""
    from pybridge.convert import convert_mbm

    fmu = rtm_fmu
    root = tmp_path_factory.mktemp("hardening")
    params = convert_mbm(SHIPPED / "mbm", fmu=fmu)
    params.uncertain = {}
    params.mark_uncertain("chassis.Izz", 0.2)
    params.write(root / "params")
    objective = root / "objective.yaml"
    objective.write_text(yaml.safe_dump(STEP_ONLY))
    return fmu, root / "params", objective


def _identify_args(setup, run: Path, *extra: str) -> list[str]:
    fmu, params, objective = setup
    return ["identify", "--params", str(params), "--reference", str(SHIPPED), "--fmu", str(fmu), "--objective",
            str(objective), "-o", str(run), "--workers", "1", "--quiet", *extra]


def _wait_for_holder(folder: Path, pid: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if json.loads((folder / LOCK_NAME).read_text())["pid"] == pid:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} never took the lock of {folder}")


def test_second_identify_on_a_run_folder_exits_2_at_once_and_the_first_keeps_a_clean_record(setup, tmp_path):
    run = tmp_path / "run"
    first = _cli(*_identify_args(setup, run, "--max-evaluations", "4"))
    _wait_for_holder(run, first.pid)
    start = time.monotonic()
    second = _cli(*_identify_args(setup, run, "--max-evaluations", "4", "--resume"))
    _, err = second.communicate(timeout=60)
    assert second.returncode == 2, err
    assert time.monotonic() - start < 10  # at once: python start-up, no evaluation
    assert f"pid {first.pid}" in err and "started 20" in err and len(err.strip().splitlines()) == 1
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    entries = [json.loads(line) for line in (run / "record.jsonl").read_text().splitlines()[1:]]
    ids = [e["id"] for e in entries]
    points = [json.dumps(e["x"], sort_keys=True) for e in entries]
    assert ids == list(range(len(entries))) and len(set(points)) == len(points)


def test_demo_convert_report_refuse_a_folder_another_process_holds(tmp_path, capsys):
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom pybridge.runlock import "
                               "run_folder_lock\nwith run_folder_lock(sys.argv[1], 'holder'):\n"
                               "    print('held', flush=True)\n    time.sleep(60)", str(tmp_path)],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for argv in (["demo", "-o", str(tmp_path)], ["convert", str(SHIPPED / "mbm"), "-o", str(tmp_path)],
                     ["report", str(tmp_path)]):
            start = time.monotonic()
            assert main(argv + ["--quiet"]) == 2
            err = capsys.readouterr().err
            assert time.monotonic() - start < 2
            assert f"run folder in use by holder (pid {holder.pid}, started " in err, err
        assert not (tmp_path / "run.yaml").exists() and not (tmp_path / "params.yaml").exists()
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom pybridge.runlock import "
                               "run_folder_lock\nwith run_folder_lock(sys.argv[1], 'holder'):\n"
                               "    print('held', flush=True)\n    time.sleep(60)", str(tmp_path)],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(RunFolderBusy, match=f"pid {holder.pid}"):
        with run_folder_lock(tmp_path, "test"):
            pass
    holder.kill()  # SIGKILL: no clean-up; the lock file stays with the dead holder's pid
    holder.wait()
    assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == holder.pid
    with run_folder_lock(tmp_path, "test"), run_folder_lock(tmp_path, "test (re-entered)"):
        assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == os.getpid()


def test_reference_without_a_channel_the_objective_uses_is_exit_2_before_any_evaluation(setup, tmp_path, capsys):
    reference = tmp_path / "set"
    (reference / "traces").mkdir(parents=True)
    (reference / "manifest.yaml").write_bytes((SHIPPED / "manifest.yaml").read_bytes())
    lines = (SHIPPED / "traces" / "step_steer.csv").read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    drop = lines[header].split(",").index("yaw_rate [rad/s]")
    lines[header:] = [",".join(c for i, c in enumerate(line.split(",")) if i != drop) for line in lines[header:]]
    trace = reference / "traces" / "step_steer.csv"
    trace.write_text("\n".join(lines) + "\n")
    args = _identify_args(setup, tmp_path / "run")
    args[args.index("--reference") + 1] = str(reference)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{trace}: no channel 'yaw_rate'" in err and "step_steer/yaw_rate_gain" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run" / "record.jsonl").exists()
    assert not (tmp_path / "run" / "params_optimized").exists()


def test_resume_replaces_a_half_copied_fmu_and_a_fresh_run_hint_says_resume(setup, tmp_path, capsys):
    fmu = setup[0]
    run = tmp_path / "run"
    assert main(_identify_args(setup, run, "--max-evaluations", "2")) == 0
    copy = run / fmu.name
    copy.write_bytes(fmu.read_bytes()[: fmu.stat().st_size // 2])  # as a killed plain copy left it
    assert main(_identify_args(setup, run, "--max-evaluations", "3", "--resume")) == 0, capsys.readouterr().err
    assert copy.read_bytes() == fmu.read_bytes()
    assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]
    capsys.readouterr()
    assert main(_identify_args(setup, run, "--max-evaluations", "3")) == 2
    assert "continue it with --resume" in capsys.readouterr().err


def test_ctrl_c_on_demo_is_exit_130_and_one_line_without_worker_tracebacks(setup, tmp_path):
    fmu, _, objective = setup
    # the child starts with Ctrl-C's default action, as under a terminal, whatever the test runner's worker
    # does with SIGINT (an ignored SIGINT is inherited through exec, and Python then never raises it)
    demo = _cli("demo", "-o", str(tmp_path / "demo"), "--fmu", str(fmu), "--objective", str(objective),
                "--workers", "2", "--max-evaluations", "4", start_new_session=True,
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    for line in demo.stdout:
        if re.match(r"\[3/\d+\]", line):  # the comparison: a pool of two workers runs the manoeuvres
            break
    time.sleep(1.0)
    os.killpg(demo.pid, signal.SIGINT)  # as a terminal's Ctrl-C: every process of the group
    _, err = demo.communicate(timeout=60)
    assert demo.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "it/s" not in line
             and "eval/s" not in line and "s/eval" not in line and "%|" not in line]
    assert lines == ["pybridge demo: interrupted"], lines
