"""Pattern search (GPS 2N, GPS N+1, MADS) on bounded test functions, and the executors."""
from __future__ import annotations

import math
import os
import sys
import time

import numpy as np
import pytest

from pybridge.identify import IdentificationResult, make_executor, pattern_search

POLLS = ("gps2n", "gpsnp1", "mads")


def shifted_quadratic(p):
    return (p["a"] - 1.3) ** 2 + 2 * (p["b"] + 0.7) ** 2 + 0.5 * (p["c"] - 2.1) ** 2


def optimum_on_bound(p):
    return (p["a"] - 3.0) ** 2 + (p["b"] + 0.5) ** 2


def rosenbrock(p):
    return 100 * (p["y"] - p["x"] ** 2) ** 2 + (1 - p["x"]) ** 2


def inactive_parameter(p):
    return (p["a"] - 0.4) ** 2 + (p["b"] - 0.25) ** 2


# function, bounds, x0, the optimum (of the parameters that matter), tolerance on those parameters
CASES = {
    "quadratic": (shifted_quadratic, {"a": (-2, 4), "b": (-3, 3), "c": (0, 5)}, None,
                  {"a": 1.3, "b": -0.7, "c": 2.1}, 1e-3),
    "on_bound": (optimum_on_bound, {"a": (-2, 2), "b": (-2, 2)}, None, {"a": 2.0, "b": -0.5}, 1e-3),
    "rosenbrock": (rosenbrock, {"x": (-2, 2), "y": (-1, 3)}, {"x": -1.2, "y": 1.0}, {"x": 1.0, "y": 1.0}, 1e-2),
    "inactive": (inactive_parameter, {"a": (0, 1), "b": (0, 1), "z": (-5, 5)}, None, {"a": 0.4, "b": 0.25}, 1e-3),
}


def run(case, poll, **options):
    function, bounds, x0, _, _ = CASES[case]
    # MADS's mesh is the square of its poll size: a finer mesh gives the same poll resolution as GPS
    options = {"min_mesh": 1e-10 if poll == "mads" else 1e-6, "max_evaluations": 20000,
               "progress": False, **options}
    return pattern_search(function, bounds, x0, poll=poll, **options)


@pytest.mark.parametrize("poll", POLLS)
@pytest.mark.parametrize("case", CASES)
def test_finds_the_known_optimum(case, poll):
    result = run(case, poll)
    _, bounds, _, optimum, tolerance = CASES[case]
    assert isinstance(result, IdentificationResult) and result.method == "pattern_search"
    assert result.stopped_because == "mesh size below min_mesh", result.stopped_because
    for name, value in optimum.items():
        assert result.parameters[name] == pytest.approx(value, abs=tolerance), (name, result.parameters)
    assert result.fitness == pytest.approx(0.0 if case != "on_bound" else 1.0, abs=1e-4)
    assert all(lo <= result.parameters[k] <= hi for k, (lo, hi) in bounds.items())
    fitness = [h["fitness"] for h in result.history]
    assert fitness == sorted(fitness, reverse=True) and fitness[-1] == result.fitness
    assert result.history[-1]["evaluations"] == result.evaluations
    assert result.iterations == len(result.history) - 1


def test_optimum_on_a_bound_is_reached_exactly():
    for poll in POLLS:
        assert run("on_bound", poll).parameters["a"] == 2.0


def test_parallel_gives_exactly_the_serial_result():
    def comparable(result):
        return (result.parameters, result.fitness, result.evaluations, result.iterations, result.stopped_because,
                [{k: v for k, v in h.items() if k != "time"} for h in result.history])

    with make_executor(2) as executor:
        assert executor.workers == 2
        for poll in POLLS:
            for complete in (False, True):
                serial = run("rosenbrock", poll, complete_poll=complete, max_evaluations=600)
                parallel = run("rosenbrock", poll, complete_poll=complete, max_evaluations=600, executor=executor)
                assert comparable(parallel) == comparable(serial)


def test_complete_poll_takes_the_best_point_opportunistic_the_first():
    def slope(p):  # +a improves, +b improves twice as much; the GPS 2N poll tries +a first
        return -(p["a"] + 2 * p["b"])

    bounds = {"a": (0, 1), "b": (0, 1)}
    first = pattern_search(slope, bounds, poll="gps2n", max_evaluations=5, progress=False)
    best = pattern_search(slope, bounds, poll="gps2n", complete_poll=True, max_evaluations=5, progress=False)
    assert first.parameters == {"a": 0.75, "b": 0.5}
    assert best.parameters == {"a": 0.5, "b": 0.75}
    assert first.evaluations == best.evaluations == 5 and first.stopped_because == "max_evaluations reached"


@pytest.mark.parametrize("poll", POLLS)
def test_the_cache_evaluates_no_point_twice(poll):
    calls = []

    def counted(p):
        calls.append(tuple(p.values()))
        return rosenbrock(p)

    result = pattern_search(counted, CASES["rosenbrock"][1], poll=poll, max_evaluations=3000, progress=False)
    assert len(calls) == len(set(calls)) == result.evaluations == result.extra["new_evaluations"]
    assert result.extra["cache_hits"] > 0  # revisits were served from the cache


def test_latin_hypercube_search_puts_points_on_the_mesh():
    calls = []

    def counted(p):
        calls.append((p["a"], p["b"], p["c"]))
        return shifted_quadratic(p)

    bounds = CASES["quadratic"][1]
    result = pattern_search(counted, bounds, search="lhs", poll="gps2n", progress=False)
    first_batch = np.array(calls[:31])  # x0 and 10·N hypercube points
    lo, hi = np.array([b[0] for b in bounds.values()]), np.array([b[1] for b in bounds.values()])
    steps = ((first_batch - lo) / (hi - lo) - 0.5) / 0.25
    assert np.allclose(steps, np.round(steps))
    assert len({tuple(s) for s in np.round(steps)}) > 10  # spread over the box, not collapsed
    assert result.parameters == pytest.approx({"a": 1.3, "b": -0.7, "c": 2.1}, abs=1e-3)


def test_stops_on_evaluations_and_on_time():
    result = run("rosenbrock", "gps2n", max_evaluations=57)
    assert result.evaluations == 57 and result.stopped_because == "max_evaluations reached"

    def slow(p):
        time.sleep(0.005)
        return rosenbrock(p)

    start = time.monotonic()
    result = pattern_search(slow, CASES["rosenbrock"][1], max_time=0.2, progress=False)
    assert result.stopped_because == "max_time reached"
    assert 0.2 <= result.wall_time < 1.0 and time.monotonic() - start < 1.5


def test_a_failing_evaluation_costs_inf_and_the_search_goes_on():
    def fragile(p):
        if p["a"] > 1.5:
            raise RuntimeError("simulation diverged")
        return shifted_quadratic(p)

    result = run("quadratic", "gps2n", min_mesh=1e-6)
    fragile_result = pattern_search(fragile, CASES["quadratic"][1], progress=False)
    assert fragile_result.parameters == pytest.approx(result.parameters, abs=1e-3)
    assert math.isfinite(fragile_result.fitness)


def test_progress_bar_shows_the_evaluations(capsys):
    run("quadratic", "gps2n", progress=True, max_evaluations=40)
    assert "40/40" in capsys.readouterr().err


def test_bad_arguments_are_named():
    function, bounds, *_ = CASES["quadratic"]
    with pytest.raises(ValueError, match="poll"):
        pattern_search(function, bounds, poll="simplex")
    with pytest.raises(ValueError, match="outside the bounds.*'a'"):
        pattern_search(function, bounds, {"a": 9.0, "b": 0.0, "c": 1.0})
    with pytest.raises(ValueError, match="lo < hi"):
        pattern_search(function, {"a": (1.0, 1.0)})
    with pytest.raises(ValueError, match="resume"):
        pattern_search(function, bounds, resume=True)


# executors ---------------------------------------------------------------------------------------

def square_or_fail(x):
    if x == 3:
        raise ValueError("three")
    if x == 5:
        os._exit(1)  # a worker that dies, as a crashing FMU would
    return x * x


def test_executors_keep_order_and_return_exceptions():
    for workers in (1, 2):
        with make_executor(workers) as executor:
            results = executor.map(square_or_fail, [0, 1, 2, 3, 4] if workers == 1 else range(8))
            assert isinstance(results[3], ValueError) and str(results[3]) == "three"
            assert [r for i, r in enumerate(results) if i not in (3, 5)] == [i * i for i in range(len(results))
                                                                                 if i not in (3, 5)]
            if workers == 2:  # only the item that killed its worker fails; the pool recovers
                assert isinstance(results[5], Exception) and not isinstance(results[5], ValueError)
                assert executor.map(square_or_fail, [6, 7]) == [36, 49]


def test_dask_executor_gives_the_serial_result():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with make_executor(address=cluster.scheduler_address) as executor:
            assert executor.workers == 2
            results = executor.map(square_or_fail, [0, 1, 2, 3, 4])
            assert results[:3] + results[4:] == [0, 1, 4, 16] and isinstance(results[3], ValueError)
            remote = run("rosenbrock", "mads", max_evaluations=300, executor=executor)
    serial = run("rosenbrock", "mads", max_evaluations=300)
    assert (remote.parameters, remote.fitness, remote.evaluations) == (serial.parameters, serial.fitness,
                                                                       serial.evaluations)


def test_missing_dask_gives_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match="pip install dask distributed"):
        make_executor(address="tcp://127.0.0.1:8786")


class _TwoWorkersInline:
    """An inline executor that reports 2 workers, so polls are chunked in pairs without processes."""
    workers = 2

    def map(self, fn, items):
        return [fn(item) for item in items]


def coupled_quadratic(p):
    return (p["a"] - 1.3) ** 2 + 2 * (p["b"] + 0.7) ** 2 + 1.5 * (p["a"] - 1.3) * (p["b"] + 0.7) + (p["c"] - 0.4) ** 2


@pytest.mark.parametrize("poll", POLLS)
def test_chunked_poll_follows_the_serial_path_and_saves_evaluations(poll):
    """A chunked opportunistic poll takes the first improving point in poll order whatever the chunk
    width, so 1 or 2 workers reach the same point; it evaluates fewer points than a whole-poll batch."""
    function, bounds = coupled_quadratic, {"a": (-2, 4), "b": (-3, 3), "c": (0, 5)}
    options = {"poll": poll, "min_mesh": 1e-8 if poll == "mads" else 1e-4, "progress": False, "chunked_poll": True}
    serial = pattern_search(function, bounds, **options)
    paired = pattern_search(function, bounds, executor=_TwoWorkersInline(), **options)
    whole = pattern_search(function, bounds, **{**options, "chunked_poll": False})
    assert (paired.parameters, paired.fitness) == (serial.parameters, serial.fitness)
    assert serial.evaluations <= paired.evaluations < whole.evaluations
    assert paired.fitness < 1e-6


def test_model_search_reaches_a_coupled_quadratic_in_fewer_evaluations():
    bounds = {"a": (-2, 4), "b": (-3, 3), "c": (0, 5)}

    def evaluations_to(tolerance, **options):
        result = pattern_search(coupled_quadratic, bounds, min_mesh=1e-6, max_evaluations=400, progress=False,
                                **options)
        return next(h["evaluations"] for h in result.history if h["fitness"] < tolerance)

    plain = evaluations_to(1e-6)
    model = evaluations_to(1e-6, model_search=True)
    assert model < 0.6 * plain, (model, plain)
