"""NOMAD as an identification engine: optimum, run record, resume, and blocks that fill the workers."""
from __future__ import annotations

import json
import math
import sys

import pytest

pytest.importorskip("PyNomad", reason="NOMAD's Python interface (pip install pynomadbbo)")

from pybridge.identify import IdentificationResult, make_executor, nomad_search  # noqa: E402

BOUNDS = {"k": (1.0, 2.0), "c": (10.0, 30.0), "m": (400.0, 600.0), "h": (0.5, 1.5)}


def bowl(p):
    """Minimum 0 at k = 1.3, c = 17, m = 540, h = 1.5 (on the upper bound)."""
    return ((p["k"] - 1.3) ** 2 + (p["c"] / 10 - 1.7) ** 2 + ((p["m"] - 540.0) / 100) ** 2
            + (p["h"] - 1.7) ** 2 - 0.04)


def test_finds_the_optimum_and_records_every_evaluation(tmp_path):
    record = tmp_path / "run.jsonl"
    result = nomad_search(bowl, BOUNDS, max_evaluations=200, record=record, progress=False)
    assert isinstance(result, IdentificationResult) and result.method == "nomad"
    assert result.fitness < 1e-3
    assert result.parameters["h"] == pytest.approx(1.5, abs=1e-3)
    assert result.parameters["k"] == pytest.approx(1.3, abs=0.03)
    lines = [json.loads(t) for t in record.read_text().splitlines()]
    assert lines[0]["problem"]["method"] == "nomad"
    evaluations = lines[1:]
    assert len(evaluations) == result.evaluations == result.extra["new_evaluations"] <= 200
    assert len({tuple(e["u"]) for e in evaluations}) == len(evaluations)  # no point twice
    assert min(e["fitness"] for e in evaluations) == result.fitness
    assert [h["evaluations"] for h in result.history] == sorted(h["evaluations"] for h in result.history)


def test_resume_of_a_finished_run_evaluates_nothing(tmp_path):
    calls = []

    def counted(p):
        calls.append(p)
        return bowl(p)

    first = nomad_search(counted, BOUNDS, max_evaluations=80, record=tmp_path / "r.jsonl", seed=3, progress=False)
    again = nomad_search(counted, BOUNDS, max_evaluations=80, record=tmp_path / "r.jsonl", seed=3, resume=True,
                         progress=False)
    assert len(calls) == first.evaluations == again.extra["replayed"] == 80
    assert (again.parameters, again.fitness) == (first.parameters, first.fitness)
    with pytest.raises(FileExistsError, match="resume"):
        nomad_search(counted, BOUNDS, max_evaluations=80, record=tmp_path / "r.jsonl", seed=3, progress=False)


def test_min_frame_stops_where_the_frame_is_finer_than_asked():
    """``min_frame`` (the pattern search's ``min_mesh``) ends the run before the budget once NOMAD's
    poll size is below that fraction of every range; a finer frame costs more evaluations."""
    coarse = nomad_search(bowl, BOUNDS, max_evaluations=1000, min_frame=1e-2, progress=False)
    fine = nomad_search(bowl, BOUNDS, max_evaluations=1000, min_frame=1e-4, progress=False)
    assert coarse.stopped_because == fine.stopped_because == "frame size below min_frame"
    assert coarse.evaluations < fine.evaluations < 1000
    assert fine.fitness <= coarse.fitness < 1e-2
    assert fine.parameters["k"] == pytest.approx(1.3, abs=1e-3)
    with pytest.raises(ValueError, match="min_frame"):
        nomad_search(bowl, BOUNDS, min_frame=2.0, progress=False)


def test_blocks_fill_both_workers():
    """With 2 workers NOMAD gets blocks of 2; MEGA_SEARCH_POLL merges the search points into the poll
    blocks, so few blocks leave a worker idle (NOMAD's defaults: most blocks hold one point)."""
    with make_executor(2) as executor:
        filled = nomad_search(bowl, BOUNDS, max_evaluations=120, executor=executor, progress=False)
        default = nomad_search(bowl, BOUNDS, max_evaluations=120, executor=executor, fill_blocks=False,
                               progress=False)
    share = {name: r.extra["underfilled_batches"] / r.extra["batches"]
             for name, r in (("filled", filled), ("default", default))}
    print(f"share of blocks with fewer points than workers: {share}", file=sys.stderr)
    assert filled.extra["workers"] == 2 and filled.evaluations == 120
    assert share["filled"] < 0.25 < share["default"]
    assert filled.fitness < 1e-2


def test_a_failing_evaluation_is_a_failed_point_and_bad_arguments_are_named():
    def sometimes(p):
        if p["k"] > 1.8:
            raise RuntimeError("solver diverged")
        return bowl(p)

    result = nomad_search(sometimes, BOUNDS, max_evaluations=60, progress=False)
    assert result.fitness < bowl({"k": 1.5, "c": 20.0, "m": 500.0, "h": 1.0})
    with pytest.raises(ValueError, match="max_evaluations"):
        nomad_search(bowl, BOUNDS, max_evaluations=0, progress=False)
    with pytest.raises(ValueError, match="seed"):
        nomad_search(bowl, BOUNDS, seed=-1, progress=False)


def test_blocks_of_4_on_2_workers_record_each_point_once_and_a_resumed_run_reuses_them(tmp_path):
    """With 2 workers and ``block_size`` 4 NOMAD hands over up to 4 points at once: every point it evaluated
    is in the record exactly once with its own fitness, and a run stopped at 30 evaluations resumes to the
    very run of 60."""
    record = tmp_path / "r.jsonl"
    with make_executor(2) as executor:
        straight = nomad_search(bowl, BOUNDS, max_evaluations=60, block_size=4, executor=executor, progress=False)
        stopped = nomad_search(bowl, BOUNDS, max_evaluations=30, block_size=4, executor=executor, record=record,
                               progress=False)
        resumed = nomad_search(bowl, BOUNDS, max_evaluations=60, block_size=4, executor=executor, record=record,
                               resume=True, progress=False)
    assert straight.extra["batches"] < straight.evaluations / 2   # blocks of 2 would need at least 30
    entries = [json.loads(t) for t in record.read_text().splitlines()][1:]
    assert len(entries) == len({tuple(e["u"]) for e in entries}) == 60
    assert all(abs(e["fitness"] - bowl(e["x"])) <= 1e-9 for e in entries)
    assert stopped.extra["new_evaluations"] == resumed.extra["replayed"] == 30
    assert resumed.extra["new_evaluations"] == 30
    assert (resumed.parameters, resumed.fitness) == (straight.parameters, straight.fitness)
    with pytest.raises(ValueError, match="block_size"):
        nomad_search(bowl, BOUNDS, block_size=0, progress=False)


def test_one_parameter_with_a_failed_region_runs_to_its_budget():
    """NOMAD's mega search-poll died with SIGSEGV on this 1-parameter problem (a failed point next to the start)."""
    def fitness(p):
        return math.inf if 0.3 < p["a"] < 0.45 else (p["a"] - 0.42) ** 2

    result = nomad_search(fitness, {"a": (0.0, 1.0)}, {"a": 0.5}, max_evaluations=40, progress=False)
    assert result.evaluations == 40 and result.stopped_because == "max_evaluations reached"
    assert result.parameters["a"] == pytest.approx(0.45, abs=0.01)   # the edge of the failed region
