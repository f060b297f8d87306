"""The identification's step choice is made once per process for a given nominal candidate (the demo's
sensitivity step chooses it, then identify_vehicle asks again with fewer uncertain parameters): the same
nominal values reuse it, a changed value, table or file chooses again. Quick: a stand-in choice."""
from __future__ import annotations

import dataclasses

from pybridge.identify import problem as problem_module
from pybridge.identify import step_choice
from pybridge.identify.problem import VehicleProblem
from pybridge.parameters import ParameterSet


def _problem(tmp_path, params) -> VehicleProblem:
    made = VehicleProblem.__new__(VehicleProblem)   # no FMU or data set: the choice itself is a stand-in
    for name, value in dict(params=params, reference_dir=tmp_path, fmu=tmp_path / "van.fmu",
                            objective_file=tmp_path / "objective.yaml", internal_step=10e-3, inputs="recorded",
                            _objectives={}).items():
        setattr(made, name, value)
    return made


def test_the_step_is_chosen_once_per_nominal_candidate(tmp_path, monkeypatch):
    calls = []

    def choose(problem, speeds):
        calls.append(problem.params.scalars["a"])
        problem.internal_step = 5e-3
        return {"step_s": 5e-3, "reason": "stand-in", "checked": [{"step_s": 10e-3}]}

    monkeypatch.setattr(step_choice, "choose_step", choose)
    monkeypatch.setattr(VehicleProblem, "speeds", property(lambda self: [20.0]))
    monkeypatch.setattr(problem_module, "_STEPS", {})
    (tmp_path / "van.fmu").write_bytes(b"fmu")
    params = ParameterSet("Van", scalars={"a": 1.0, "b": 2.0}, tables={"t": [[0.0, 1.0]]},
                          uncertain={"a": (1.0, 0.8, 1.2), "b": (2.0, 1.6, 2.4)})
    first = _problem(tmp_path, params)
    choice = first.choose_step()
    assert choice["step_s"] == 5e-3 and first.internal_step == 5e-3 and calls == [1.0]
    choice["checked"][0]["step_s"] = None                      # a caller's edit does not reach the kept choice
    narrowed = dataclasses.replace(params, uncertain={"b": (2.0, 1.9, 2.1)})
    again = _problem(tmp_path, narrowed)
    assert again.choose_step()["checked"] == [{"step_s": 10e-3}] and again.internal_step == 5e-3
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "van.fmu").write_bytes(b"fmu")           # identify_vehicle's copy in its run folder
    copied = _problem(tmp_path, narrowed)
    copied.fmu = tmp_path / "run" / "van.fmu"
    assert copied.choose_step()["step_s"] == 5e-3 and calls == [1.0]
    _problem(tmp_path, dataclasses.replace(params, scalars={"a": 1.1, "b": 2.0},
                                           uncertain={"a": (1.1, 0.8, 1.2)})).choose_step()
    _problem(tmp_path, dataclasses.replace(params, tables={"t": [[0.0, 2.0]]})).choose_step()
    (tmp_path / "van.fmu").write_bytes(b"another fmu")
    _problem(tmp_path, params).choose_step()
    assert calls == [1.0, 1.1, 1.0, 1.0]
