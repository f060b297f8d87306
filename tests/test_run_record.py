"""The append-only run record, and a killed pattern search or NOMAD run resumed from it."""
from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pybridge.identify import RunRecord, RunRecordError, pattern_search

REPO = Path(__file__).resolve().parent.parent
PROBLEM = {"bounds": {"k": [1.0, 2.0], "c": [10.0, 30.0]}, "objective": "heave"}


def evaluation(u, fitness=1.0):
    return {"x": {"k": 1.0 + u[0], "c": 10.0 + 20.0 * u[1]}, "u": list(u), "fitness": fitness, "status": "ok"}


def evaluation_lines(path: Path) -> list[dict]:
    lines = []
    for text in path.read_text().splitlines():
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if line.get("kind") == "evaluation":
            lines.append(line)
    return lines


def test_record_appends_and_reopens(tmp_path):
    path = tmp_path / "run.jsonl"
    with RunRecord.open(path, PROBLEM, seed=3) as record:
        record.append([evaluation([0.5, 0.5], 2.5), evaluation([0.25, 0.5], math.inf)])
        record.append([{**evaluation([0.75, 0.5], 0.5), "indices": {"ramp/sideslip": 1.5}}])
    header, *lines = [json.loads(t) for t in path.read_text().splitlines()]
    assert header["kind"] == "header" and header["problem"] == PROBLEM and header["seed"] == 3
    assert [line["id"] for line in lines] == [0, 1, 2] and lines[1]["fitness"] is None
    assert all("timestamp" in line for line in lines)
    with RunRecord.open(path, PROBLEM, seed=3) as record:
        assert len(record) == 3
        assert record.lookup([0.5, 0.5])["fitness"] == 2.5
        assert record.lookup([0.25, 0.5])["fitness"] == math.inf
        assert record.lookup({"c": 20.0, "k": 1.75})["indices"] == {"ramp/sideslip": 1.5}
        assert record.lookup([0.5, 0.25]) is None
        assert record.append([evaluation([0.0, 0.0])])[0]["id"] == 3


def test_record_refuses_a_different_problem(tmp_path):
    path = tmp_path / "run.jsonl"
    RunRecord.open(path, PROBLEM, seed=3).close()
    other = {**PROBLEM, "bounds": {"k": [1.0, 2.5], "c": [10.0, 30.0]}}
    with pytest.raises(RunRecordError, match=r"run.jsonl.*different problem.*bounds"):
        RunRecord.open(path, other, seed=3)
    with pytest.raises(RunRecordError, match="seed"):
        RunRecord.open(path, PROBLEM, seed=4)
    function = lambda p: (p["k"] - 1.2) ** 2  # noqa: E731
    record = tmp_path / "search.jsonl"
    pattern_search(function, {"k": (1.0, 2.0)}, record=record, progress=False, max_evaluations=10)
    with pytest.raises(RunRecordError, match="different problem"):
        pattern_search(function, {"k": (1.0, 3.0)}, record=record, resume=True, progress=False)
    with pytest.raises(FileExistsError, match="resume=True"):
        pattern_search(function, {"k": (1.0, 2.0)}, record=record, progress=False)


def test_record_tolerates_a_truncated_last_line(tmp_path):
    path = tmp_path / "run.jsonl"
    with RunRecord.open(path, PROBLEM) as record:
        record.append([evaluation([0.5, 0.5]), evaluation([0.25, 0.5])])
    whole = path.read_bytes()
    path.write_bytes(whole + json.dumps(evaluation([0.75, 0.5]) | {"kind": "evaluation"}).encode()[:40])
    with RunRecord.open(path, PROBLEM) as record:
        assert len(record) == 2 and record.lookup([0.75, 0.5]) is None
        record.append([evaluation([0.75, 0.5])])
    assert path.read_bytes().startswith(whole)
    assert [line["u"] for line in evaluation_lines(path)] == [[0.5, 0.5], [0.25, 0.5], [0.75, 0.5]]
    path.write_bytes(whole[:-1])  # a complete last line that lost its newline is kept
    with RunRecord.open(path, PROBLEM) as record:
        assert len(record) == 2
    assert path.read_bytes() == whole


def test_record_names_a_corrupt_line(tmp_path):
    path = tmp_path / "run.jsonl"
    with RunRecord.open(path, PROBLEM) as record:
        record.append([evaluation([0.5, 0.5]), evaluation([0.25, 0.5])])
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:20]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunRecordError, match=r"run.jsonl, line 2"):
        RunRecord.open(path, PROBLEM)


def test_resume_of_a_finished_run_evaluates_nothing(tmp_path):
    calls = []

    def function(p):
        calls.append(p)
        return (p["k"] - 1.2) ** 2 + (p["c"] - 17.0) ** 2 / 100

    bounds = {"k": (1.0, 2.0), "c": (10.0, 30.0)}
    first = pattern_search(function, bounds, poll="mads", record=tmp_path / "r.jsonl", progress=False)
    recorded = len(calls)
    again = pattern_search(function, bounds, poll="mads", record=tmp_path / "r.jsonl", resume=True, progress=False)
    assert len(calls) == recorded == first.evaluations == again.evaluations == again.extra["replayed"]
    assert (again.parameters, again.fitness, again.iterations) == (first.parameters, first.fitness, first.iterations)


SCRIPT = """
import json, sys, time
from pybridge.identify import make_executor, nomad_search, pattern_search

calls, record, out, resume, method = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "resume", sys.argv[5]


def objective(p):
    time.sleep(0.02)
    with open(calls, "a") as file:
        file.write(json.dumps(p) + "\\n")
    return (p["k"] - 1.23) ** 2 + 3 * (p["c"] / 10 - 1.7) ** 2 + (p["m"] - 540.0) ** 2 / 1e4


if __name__ == "__main__":
    with make_executor(2) as executor:
        bounds = {"k": (1.0, 2.0), "c": (10.0, 30.0), "m": (400.0, 600.0)}
        if method == "nomad":
            result = nomad_search(objective, bounds, max_evaluations=150, executor=executor, record=record,
                                  resume=resume, seed=11, progress=False)
        else:
            result = pattern_search(objective, bounds, poll="mads", min_mesh=1e-5, executor=executor,
                                    record=record, resume=resume, seed=11, progress=False)
    with open(out, "w") as file:
        json.dump({"parameters": result.parameters, "fitness": result.fitness, "evaluations":
                   result.evaluations, "iterations": result.iterations, "stopped": result.stopped_because,
                   "history": [{k: v for k, v in h.items() if k != "time"} for h in result.history],
                   "extra": result.extra}, file)
"""


@pytest.mark.parametrize("method", ["pattern_search", "nomad"])
def test_a_killed_run_resumes_without_losing_or_repeating_evaluations(tmp_path, method):
    script = tmp_path / "identify.py"
    script.write_text(textwrap.dedent(SCRIPT))
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def start(name, mode):
        args = [sys.executable, str(script), str(tmp_path / f"{name}.calls"), str(tmp_path / f"{name}.jsonl"),
                str(tmp_path / f"{name}.json"), mode, method]
        return subprocess.Popen(args, cwd=REPO, env=env, start_new_session=True)

    def calls(name):
        return [json.loads(t) for t in (tmp_path / f"{name}.calls").read_text().splitlines()]

    whole = start("whole", "new")
    killed = start("killed", "new")
    deadline = time.monotonic() + 30
    while len(evaluation_lines(tmp_path / "killed.jsonl") if (tmp_path / "killed.jsonl").exists() else []) < 40:
        assert killed.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(0.03)  # most likely in the middle of a poll, whose batch is then lost
    os.killpg(killed.pid, signal.SIGKILL)  # the run and its worker processes
    killed.wait()
    assert whole.wait(timeout=60) == 0
    recorded = evaluation_lines(tmp_path / "killed.jsonl")
    calls_before_kill = len(calls("killed"))
    (tmp_path / "killed.calls").unlink()

    resumed = start("killed", "resume")
    assert resumed.wait(timeout=60) == 0
    expected = json.loads((tmp_path / "whole.json").read_text())
    result = json.loads((tmp_path / "killed.json").read_text())
    new_calls = calls("killed")
    whole_calls = calls("whole")

    assert 40 <= len(recorded) <= calls_before_kill < len(whole_calls)
    assert len(recorded) + len(new_calls) == len(whole_calls) == expected["evaluations"]
    assert result["extra"]["replayed"] == len(recorded) and result["extra"]["new_evaluations"] == len(new_calls)
    for key in ("parameters", "fitness", "evaluations", "iterations", "stopped", "history"):
        assert result[key] == expected[key], key
    # every point evaluated exactly once: the resumed run evaluated just what the record lacked
    final = [json.dumps(line["x"], sort_keys=True) for line in evaluation_lines(tmp_path / "killed.jsonl")]
    before = {json.dumps(line["x"], sort_keys=True) for line in recorded}
    after = [json.dumps(p, sort_keys=True) for p in new_calls]
    assert len(set(final)) == len(final) == len(whole_calls)
    assert before.isdisjoint(after) and len(set(after)) == len(after)
    assert set(final) == before | set(after) == {json.dumps(p, sort_keys=True) for p in whole_calls}
