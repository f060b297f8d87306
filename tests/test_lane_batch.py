"""Identification's evaluations on lanes (pybridge.identify.lane_batch, executor.map_batched): an objective with
lanes gets its points in chunks, in order, a chunk whose call failed is evaluated point by point, NOMAD's
blocks grow to workers x lanes; and (slow) the van's fitness on lanes equals the scalar path's.

Quick: a stand-in objective (``lanes`` and ``batch``, as LaneObjective). Slow: the RTM's RK4 build, five
points of the shipped van's uncertain box through LaneObjective.batch and VehicleProblem.evaluate.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pybridge.identify.executor import InlineExecutor, _chunks, map_batched

REPO = Path(__file__).resolve().parent.parent


class Batched:
    """f(p) = sum of squares, with ``batch``: the chunks it got, and a chunk holding ``poison`` fails whole."""
    lanes = 4

    def __init__(self, poison=None):
        self.chunks, self.poison = [], poison

    def __call__(self, p):
        return sum((v - 0.3) ** 2 for v in p.values())

    def batch(self, items):
        self.chunks.append(len(items))
        if any(p == self.poison for p in items):
            raise RuntimeError("the whole chunk failed")
        return [self(p) for p in items]


def test_chunks_fill_the_workers_then_the_lanes():
    sizes = {n: [len(c) for c in _chunks(list(range(n)), 2, 4)] for n in (2, 3, 8, 10, 17)}
    assert sizes == {2: [1, 1], 3: [2, 1], 8: [4, 4], 10: [4, 3, 3], 17: [4, 4, 3, 3, 3]}
    assert sum(_chunks(list(range(17)), 2, 4), []) == list(range(17))


def test_map_batched_keeps_the_order_and_evaluates_a_failed_chunk_point_by_point():
    points = [{"a": 0.1 * k, "b": 1 - 0.05 * k} for k in range(10)]
    objective = Batched(poison=points[5])
    values = map_batched(InlineExecutor(), objective, points)
    assert values == [objective(p) for p in points]
    assert objective.chunks == [4, 3, 3]     # one worker: chunks of the lanes; the one with points[5] failed whole
    plain = Batched()
    plain.lanes = 1
    assert map_batched(InlineExecutor(), plain, points) == values and plain.chunks == []


def test_a_chunk_runs_at_the_narrowest_width_that_holds_it():
    from pybridge.identify.lane_batch import chunk_width

    assert [chunk_width(m, 8) for m in range(1, 10)] == [1, 4, 4, 4, 8, 8, 8, 8, 8]
    assert [chunk_width(m, 4) for m in range(1, 6)] == [1, 4, 4, 4, 4]
    assert chunk_width(8, 1) == 1


def test_idle_lanes_are_filled_with_repeats_of_the_chunks_points():
    from pybridge.identify.lane_batch import padded

    assert padded(list("abcde"), 8) == list("abcdeabc")
    assert padded(list("abc"), 4) == list("abca") and padded(list("abcd"), 4) == list("abcd")
    assert padded(list("abcdefghi"), 8) == list("abcdefghiabcdefg")


def test_nomad_blocks_grow_to_workers_times_lanes():
    pytest.importorskip("PyNomad", reason="NOMAD's Python interface (pip install pynomadbbo)")
    from pybridge.identify import nomad_search

    bounds = {"a": (0.0, 1.0), "b": (0.0, 1.0), "c": (0.0, 1.0)}
    objective = Batched()
    result = nomad_search(objective, bounds, max_evaluations=60, progress=False)
    assert result.fitness < 0.05 and max(objective.chunks) > 2   # blocks of up to 4 points, one batch call each
    assert result.evaluations <= 60
    assert result.extra["lane_options"] == ["DIRECTION_TYPE ORTHO 2N", "SPECULATIVE_SEARCH_MAX 3"]
    scalar = Batched()
    scalar.lanes = 1
    assert nomad_search(scalar, bounds, max_evaluations=30, progress=False).extra["lane_options"] == []
    assert scalar.chunks == []                  # no lanes: one point per worker, no batch call


def test_the_users_nomad_lines_win_over_the_lane_options():
    from pybridge.identify.nomad import LANE_OPTIONS, lane_options

    assert lane_options([]) == list(LANE_OPTIONS)
    assert lane_options(["direction_type ORTHO N+1 QUAD", "NM_SEARCH no"]) == ["SPECULATIVE_SEARCH_MAX 3"]


@pytest.mark.slow
def test_the_vans_fitness_on_lanes_equals_the_scalar_path(fmu_cache, tmp_path_factory, monkeypatch):
    """Five points of the van's uncertain box (4 lanes: a full group and one point with three repeats), and the
    residual vectors of three of them (the identifiability analysis's probes); the manoeuvres of one initial speed
    and sample period share one feed-forward probe (the ramp steer's and the sine sweep's)."""
    from pybridge.simulate import lane_scenarios
    from fmu_build import build_fmu
    from pybridge.convert import convert_mbm
    from pybridge.identify.lane_batch import StageFitness, lane_objective
    from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR, VehicleProblem
    from pybridge.identify.staged import Stage
    from pybridge.identify.residuals import IndexResiduals

    shipped = REPO / "scenarios" / "mbm" / "lcv35"
    fmu = build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native", fmi_type="cs",
                    integrator=IDENTIFICATION_INTEGRATOR, out_dir=tmp_path_factory.mktemp("rk4"), cache_dir=fmu_cache)
    problem = VehicleProblem(convert_mbm(shipped / "mbm", fmu=fmu), shipped, fmu)
    problem.choose_step()
    objective = lane_objective(problem, lanes=4)
    if objective.lanes < 2:
        pytest.skip("the lane library does not build here (libmvec, AVX2)")
    rng = np.random.default_rng(1)
    points = [{n: lo + rng.random() * (hi - lo) for n, (lo, hi) in problem.bounds.items()} for _ in range(5)]
    probed, holds = [], lane_scenarios._holds
    monkeypatch.setattr(lane_scenarios, "_holds", lambda *a: probed.append(a[2]) or holds(*a))
    scenarios = [problem._scenario(m, problem.objective) for m in problem.objective.weights]
    speeds = {(s.initial_speed, 1.0 / s.sample_rate) for s in scenarios if s.speed_control}
    lanes = objective.batch(points)
    assert len(probed) == len(speeds) < sum(bool(s.speed_control) for s in scenarios)
    for lane, point in zip(lanes, points):
        scalar = problem.evaluate(point)
        assert lane.failed == scalar.failed
        assert abs(lane.value - scalar.value) <= 1e-9 * abs(scalar.value), (lane.value, scalar.value)
    stage = Stage("first manoeuvre", sorted(problem.bounds)[:2],
                  {manoeuvre: dict(weights) for manoeuvre, weights in list(problem.objective.weights.items())[:1]})
    for lane, point in zip(StageFitness(problem, 4).batch(points[:2], stage), points):    # a stage's weights
        scalar = problem.stage_fitness(point, stage)
        assert abs(lane - scalar) <= 1e-9 * abs(scalar), (lane, scalar)
    residuals = IndexResiduals(problem, lanes=4)      # the identifiability analysis's probes, on lanes too
    for lane, point in zip(residuals.batch(points[:3]), points):
        scalar = residuals(point)
        assert lane.residuals.keys() == scalar.residuals.keys() and abs(lane.value - scalar.value) <= 1e-9 * scalar.value
        for key, vector in scalar.residuals.items():
            assert np.allclose(lane.residuals[key], vector, rtol=1e-9, atol=1e-12), key


def test_a_build_without_lanes_falls_back_quietly_unless_lanes_were_asked_for(tmp_path, monkeypatch):
    """An FMU that is no native RK4/AB2 build evaluates one vehicle per call; only lanes asked for by
    number say why (a user who asked for nothing gets no warning on every run)."""
    import warnings
    from types import SimpleNamespace

    from pybridge.identify import lane_batch

    monkeypatch.setattr(lane_batch, "_WARNED", set())
    monkeypatch.setattr(lane_batch, "_width", lambda choice: 4)   # as on a CPU with AVX2
    problem = SimpleNamespace(fmu=tmp_path / "Other.fmu")           # unreadable: not a native build
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert lane_batch.lane_objective(problem, lanes="auto").lanes == 1
        assert not caught
        assert lane_batch.lane_objective(problem, lanes="4").lanes == 1
    assert [str(w.message) for w in caught] == [
        "lanes: Other.fmu is not a native build; the lane runner steps RK4 and AB2 builds (fmu-build --integrator "
        "rk4), so identification evaluates one vehicle per call"]
