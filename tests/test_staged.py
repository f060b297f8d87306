"""Staged optimization on a separable problem; strict stage files."""
import pytest

from pybridge.identify.executor import make_executor
from pybridge.identify.staged import Stage, StageConfigError, load_stages, run_stages

TARGET = {"a": 1.0, "b": -2.0, "c": 3.0, "d": 0.5}
BOUNDS = {k: (-5.0, 5.0) for k in TARGET}
X0 = {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "fixed": 7.0}
INDICES = {"m": list(TARGET)}
OPTIONS = {"min_mesh": 1e-7, "max_evaluations": 2000}
CALLS = []


def separable(params, stage):
    """Sum of squared distances over the stage's weighted parameters (all when it has no weights)."""
    CALLS.append((stage.name, dict(params)))
    assert params["fixed"] == 7.0
    weights = stage.weights.get("m") or dict.fromkeys(TARGET, 1.0)
    return sum(w * (params[k] - TARGET[k]) ** 2 for k, w in weights.items())


STAGES = [Stage("first", ["a", "b"], {"m": {"a": 1.0, "b": 2.0}}, options=OPTIONS),
          Stage("second", ["c", "d"], {}, options=OPTIONS)]


def test_stages_reach_the_optimum_and_chain():
    CALLS.clear()
    r = run_stages(STAGES, separable, BOUNDS, X0, progress=False)
    assert r.method == "staged" and r.parameters["fixed"] == 7.0
    for k, v in TARGET.items():
        assert r.parameters[k] == pytest.approx(v, abs=1e-5)
    first, second = (s["result"] for s in r.extra["stages"])
    assert set(first.parameters) == {"a", "b"} and set(second.parameters) == {"c", "d"}
    # stage 2 starts where stage 1 ended: its first evaluation and its first history row
    assert r.extra["stages"][1]["start"] == {**X0, **first.parameters}
    name, seen = next(c for c in CALLS if c[0] == "second")
    assert {k: seen[k] for k in "ab"} == first.parameters and (seen["c"], seen["d"]) == (0.0, 0.0)
    rows = [h for h in r.history if h["stage"] == "second"]
    expected = sum((v - TARGET[k]) ** 2 for k, v in {**first.parameters, "c": 0.0, "d": 0.0}.items())
    assert rows[0]["stage_iteration"] == 0 and rows[0]["fitness"] == expected
    assert 9.25 <= expected < 9.25 + 1e-9  # not 14.25: a and b were already at their optimum
    # the history is the two stages' histories in order, counted from the start
    assert len(r.history) == len(first.history) + len(second.history)
    assert [h["stage"] for h in r.history] == ["first"] * len(first.history) + ["second"] * len(second.history)
    assert rows[0]["evaluations"] == first.evaluations + second.history[0]["evaluations"]
    assert r.history[-1]["iteration"] == first.iterations + second.iterations == r.iterations
    assert r.evaluations == first.evaluations + second.evaluations and r.fitness == second.fitness


def test_process_executor_gives_the_same_result():
    inline = run_stages(STAGES, separable, BOUNDS, X0)
    with make_executor(2) as executor:
        pooled = run_stages(STAGES, separable, BOUNDS, X0, executor=executor)
    assert pooled.parameters == inline.parameters and pooled.evaluations == inline.evaluations


class SeparableOnLanes:
    """``separable`` with ``lanes`` and ``batch(items, stage)``, as lane_batch.StageFitness: the chunks it got."""
    lanes = 4

    def __init__(self):
        self.chunks = []

    def __call__(self, params, stage):
        return separable(params, stage)

    def batch(self, items, stage):
        self.chunks.append((stage.name, len(items)))
        return [separable(params, stage) for params in items]


def test_stages_on_lanes_get_the_engines_blocks_in_chunks_with_the_same_result():
    """Each stage's blocks reach ``batch`` with the fixed parameters merged in; the path is the scalar one's."""
    scalar = run_stages(STAGES, separable, BOUNDS, X0)
    on_lanes = SeparableOnLanes()
    lanes = run_stages(STAGES, on_lanes, BOUNDS, X0)
    assert lanes.parameters == scalar.parameters and lanes.evaluations == scalar.evaluations
    assert {name for name, _ in on_lanes.chunks} == {"first", "second"}
    assert max(size for _, size in on_lanes.chunks) > 1


def test_records_per_stage_and_resume(tmp_path):
    r = run_stages(STAGES, separable, BOUNDS, X0, record_dir=tmp_path / "run")
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["1-first.jsonl", "2-second.jsonl"]
    CALLS.clear()
    again = run_stages(STAGES, separable, BOUNDS, X0, record_dir=tmp_path / "run", resume=True)
    assert CALLS == [] and again.parameters == r.parameters  # replayed from the records
    with pytest.raises(FileExistsError):
        run_stages(STAGES, separable, BOUNDS, X0, record_dir=tmp_path / "run")


@pytest.mark.parametrize("stages, message", [
    ([], "no stages"),
    ([Stage("s", ["a"]), Stage("s", ["b"])], "unique"),
    ([Stage("s", ["zz"])], "['zz'] have no bounds"),
    ([Stage("s", ["a"], method="simplex")], "method 'simplex'"),
    ([Stage("s", ["a"], options={"tol": 1})], "unknown options ['tol']"),
])
def test_run_stages_rejects_bad_stages(stages, message):
    with pytest.raises(ValueError) as err:
        run_stages(stages, separable, BOUNDS, X0)
    assert message in str(err.value)


GOOD = """\
format: vehiclertm-stages 1
stages:
  - name: first
    parameters: [a, b]
    weights: {m: {a: 1.0, b: 2}}
    options: {poll: mads, max_evaluations: 50}
  - name: second
    parameters: [c, d]
"""


def test_load_stages(tmp_path):
    path = tmp_path / "stages.yaml"
    path.write_text(GOOD)
    stages = load_stages(path, parameters=BOUNDS, indices=INDICES)
    assert stages == [Stage("first", ["a", "b"], {"m": {"a": 1.0, "b": 2.0}}, None,
                            {"poll": "mads", "max_evaluations": 50}),
                      Stage("second", ["c", "d"])]


@pytest.mark.parametrize("old, new, message", [
    ("format: vehiclertm-stages 1", "format: other 2", "format: 'other 2'"),
    ("stages:", "extra: 1\nstages:", "top level: unknown key(s) ['extra']"),
    ("    parameters: [c, d]", "    parameters: [c, dd]", "stages[1].parameters[1]: unknown parameter 'dd'"),
    ("    parameters: [c, d]", "    parameters: [c, c]", "stages[1].parameters[1]: 'c' listed twice"),
    ("    parameters: [c, d]", "    parameters: []", "stages[1].parameters: expected a non-empty list"),
    ("    parameters: [c, d]", "    parameters: [c, d]\n    weight: {}", "stages[1]: unknown key(s) ['weight']"),
    ("  - name: second", "  - name: first", "stages[1].name: 'first', expected a unique"),
    ("  - name: second\n", "  - \n", "stages[1]: missing key 'name'"),
    ("{m: {a: 1.0, b: 2}}", "{m: {a: 1.0, q: 2}}", "stages[0].weights.m.q: unknown index"),
    ("{m: {a: 1.0, b: 2}}", "{x: {a: 1.0}}", "stages[0].weights.x: unknown manoeuvre"),
    ("{m: {a: 1.0, b: 2}}", "{m: {a: -1}}", "stages[0].weights.m.a: -1, expected a finite weight"),
    ("{m: {a: 1.0, b: 2}}", "{m: {a: 0}}", "stages[0].weights: expected at least one positive weight"),
    ("poll: mads,", "pole: mads,", "stages[0].options: unknown option(s) ['pole']"),
    ("    options:", "    method: genetic\n    options:", "stages[0].method: 'genetic'"),
    ("    options:", "    method: nomad\n    options:", "stages[0].options: unknown option(s) ['poll'] for nomad"),
    ("[a, b]\n", "[a, b\n", "not valid YAML"),
])
def test_bad_stage_file_names_file_and_key(tmp_path, old, new, message):
    assert old in GOOD
    path = tmp_path / "bad.yaml"
    path.write_text(GOOD.replace(old, new, 1))
    with pytest.raises(StageConfigError) as err:
        load_stages(path, parameters=BOUNDS, indices=INDICES)
    assert str(err.value).startswith(str(path)) and message in str(err.value)


def test_stages_follow_the_runs_method_and_share_its_budget():
    """A stage without ``method`` runs with the run's method and settings; an explicit other method
    keeps its own settings; every stage without its own budget gets an equal share of the run's."""
    from pybridge.identify.vehicle import SearchOptions, staged_with_defaults

    stages = [Stage("a", ["a"]), Stage("b", ["b"], method="pattern-search", options={"poll": "mads"}),
              Stage("c", ["c"], options={"max_evaluations": 7})]
    run = SearchOptions(method="nomad", max_evaluations=90, seed=3)
    a, b, c = staged_with_defaults(stages, run)
    assert (a.method, a.options["max_evaluations"], a.options["seed"]) == ("nomad", 30, 3)
    assert "poll" not in a.options  # the run's pattern-search-only settings do not reach NOMAD
    assert a.options["min_frame"] == run.min_mesh and "min_mesh" not in a.options
    assert b.method == "pattern-search" and b.options == {"max_evaluations": 30, "poll": "mads"}
    assert c.method == "nomad" and c.options["max_evaluations"] == 7
    assert Stage("d", ["d"]).engine == "pattern-search"  # run_stages alone


def test_missing_stage_file_and_default_indices(tmp_path):
    with pytest.raises(StageConfigError, match="cannot read"):
        load_stages(tmp_path / "none.yaml")
    path = tmp_path / "kpi.yaml"
    path.write_text("format: vehiclertm-stages 1\nstages:\n  - {name: roll, parameters: [k],"
                    " weights: {ramp_steer: {roll: 1.0}}}\n")
    assert load_stages(path)[0].weights == {"ramp_steer": {"roll": 1.0}}  # pybridge.evaluate.kpi's indices
    path.write_text(path.read_text().replace("roll: 1.0", "rol: 1.0"))
    with pytest.raises(StageConfigError, match="rol: unknown index"):
        load_stages(path)
