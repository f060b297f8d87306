"""Failures are failures (issue 27, items 1, 2, 9): failed evaluations reach the optimizers as failed points,
a failing start point stops the run before any optimizer starts, NOMAD cannot take the process down, option
values are checked before an optimizer sees them, and the internal step is chosen per parameter set. No FMU
here: analytic objectives and a stand-in problem."""
from __future__ import annotations

import faulthandler
import json
import math
import os
import re
import signal

import pytest
import yaml

from pybridge.evaluate.objective import FitnessResult
from pybridge.identify import nomad as nomad_module
from pybridge.identify.evaluations import StartPointFailed
from pybridge.identify.executor import make_executor
from pybridge.identify.nomad import OptimizerFailed, nomad_search
from pybridge.identify.nomad_options import NomadOptionError, check_nomad_options
from pybridge.identify.pattern_search import pattern_search
from pybridge.identify.sensitivity import SensitivityFailed, sensitivity_analysis
from pybridge.identify.staged import StageConfigError, load_stages
from pybridge.identify.step_choice import choose_step, fastest_modes
from pybridge.identify.vehicle import SearchOptions
from pybridge.simulate.divergence import SimulationDiverged, diverged

BOUNDS = {"k": (1.0, 2.0), "c": (10.0, 30.0)}
DIVERGED = "diverged at t = 0.07 s: tireRR.tanAlpha = -inf"


def bowl(p):
    return (p["k"] - 1.5) ** 2 + ((p["c"] - 20.0) / 10) ** 2


def diverging_above(limit):
    """An objective as VehicleProblem.evaluate gives it: a FitnessResult whose value is the failure value
    1e6 where a manoeuvre diverged (k > limit)."""
    def objective(p):
        if p["k"] > limit:
            return FitnessResult(1.0e6, {}, {"ramp_steer": DIVERGED})
        return FitnessResult(bowl(p), {}, {})
    return objective


def _entries(path):
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


@pytest.mark.parametrize("engine", [nomad_search, pattern_search])
def test_a_diverged_evaluation_is_a_failed_point_never_the_failure_value(engine, tmp_path):
    pytest.importorskip("PyNomad")
    record = tmp_path / "record.jsonl"
    result = engine(diverging_above(1.7), BOUNDS, {"k": 1.2, "c": 15.0}, max_evaluations=40, record=record,
                    progress=False)
    entries = _entries(record)
    failed = [e for e in entries if e["x"]["k"] > 1.7]
    assert failed, "the search never went where the model diverges"
    assert all(e["status"] == "failed" and e["fitness"] is None and e["message"] == f"ramp_steer: {DIVERGED}"
               for e in failed)
    assert all(e["fitness"] is not None and e["fitness"] < 1e6 for e in entries if e["x"]["k"] <= 1.7)
    assert result.fitness < bowl({"k": 1.2, "c": 15.0})


def test_nomad_gets_no_output_for_a_failed_point(monkeypatch):
    """The child process sets NOMAD's output only for points the parent answered with a value."""
    answers = nomad_module._Blackbox(lambda us: [0.5, None, math.inf], lambda: None)([[0.1], [0.2], [0.3]])
    assert answers == [0.5, None, None]


@pytest.mark.parametrize("engine", [nomad_search, pattern_search])
def test_a_failing_start_point_stops_the_run_before_any_optimizer_starts(engine, tmp_path):
    pytest.importorskip("PyNomad")
    record = tmp_path / "record.jsonl"
    with pytest.raises(StartPointFailed, match=f"start point .* failed, so no optimizer starts: ramp_steer: {DIVERGED}"):
        engine(diverging_above(1.0), BOUNDS, {"k": 1.5, "c": 20.0}, max_evaluations=40, record=record,
               progress=False)
    assert len(_entries(record)) == 1


def _crashing_nomad(conn, parent, output, x0, lower, upper, parameters, seed):
    """A NOMAD that answers one block and then dies as a segfaulting library would."""
    faulthandler.disable()  # no stack dump of the child in the test's output
    conn.send(("block", [x0, [0.25] * len(x0)]))
    conn.recv()
    os.kill(os.getpid(), signal.SIGSEGV)


def off_centre(p):
    return (p["k"] - 1.3) ** 2 + ((p["c"] - 24.0) / 10) ** 2


def test_a_nomad_that_dies_is_one_error_and_the_run_resumes(monkeypatch, tmp_path):
    pytest.importorskip("PyNomad")
    record = tmp_path / "record.jsonl"
    with monkeypatch.context() as patch:
        patch.setattr(nomad_module, "_nomad_process", _crashing_nomad)
        with pytest.raises(OptimizerFailed, match="ended by SIGSEGV"):
            nomad_search(off_centre, BOUNDS, max_evaluations=30, record=record, progress=False)
    kept = record.read_text().splitlines()
    assert len(kept) == 3  # the header and both points the dead NOMAD asked for
    result = nomad_search(off_centre, BOUNDS, max_evaluations=30, record=record, resume=True, progress=False)
    assert result.evaluations == 30 and result.extra["replayed"] >= 1
    assert record.read_text().splitlines()[:3] == kept


def test_nomads_own_segfault_is_contained(tmp_path, capfd):
    """NOMAD 4.6 throws 'ArrayOfDouble: Array is not defined' and segfaults on a 2-parameter problem whose
    start point is its exact optimum (its quadratic-model poll direction is undefined): the issue's crash."""
    pytest.importorskip("PyNomad")
    record = tmp_path / "record.jsonl"
    with pytest.raises(OptimizerFailed, match="ended by SIGSEGV after printing: .*ArrayOfDouble: Array is not defined"):
        nomad_search(bowl, BOUNDS, max_evaluations=30, record=record, progress=False)
    assert _entries(record)[0]["fitness"] == 0.0
    assert "ArrayOfDouble" not in capfd.readouterr().out


def test_an_error_thrown_inside_nomad_is_one_error(monkeypatch):
    pytest.importorskip("PyNomad")
    monkeypatch.setattr(nomad_module, "check_nomad_options", lambda lines: list(lines))  # as if unchecked
    with pytest.raises(OptimizerFailed, match="NOMAD"):
        nomad_search(bowl, BOUNDS, max_evaluations=20, nomad_options=["DIRECTION_TYPE BOGUS"], progress=False)


@pytest.mark.parametrize("line, message", [
    ("BB_EXE '$python bb.py'", "quotes"),
    ("BB_EXE bb.exe", "run a program"),
    ("HISTORY_FILE /tmp/x", "read or write files"),
    ("SOLUTION_FILE sol.txt", "read or write files"),
    ("MAX_BB_EVAL 5", "setting 'max_evaluations'"),
    ("DIRECTION_TYPES ORTHO 2N", "accepted: ANISOTROPIC_MESH"),
    ("DIRECTION_TYPE ORTHO 3N", "expected one of"),
    ("NM_SEARCH maybe", "yes or no"),
    ("MAX_ITERATIONS -3", "whole number >= 1"),
])
def test_nomad_options_are_checked_before_nomad_sees_them(line, message):
    with pytest.raises(NomadOptionError, match=message) as error:
        check_nomad_options([line], "stages.yaml: stages[0].options.nomad_options")
    assert str(error.value).startswith("stages.yaml: stages[0].options.nomad_options[0]: ")
    assert check_nomad_options(["direction_type ORTHO 2N", "NM_SEARCH no"]) == ["DIRECTION_TYPE ORTHO 2N",
                                                                                 "NM_SEARCH no"]


@pytest.mark.parametrize("options, message", [
    ({"method": "nomad", "options": {"nomad_options": ["BB_EXE bb.exe"]}}, "options.nomad_options[0]: BB_EXE"),
    ({"options": {"initial_mesh": -0.5}}, "options.initial_mesh: -0.5, expected a fraction"),
    ({"options": {"max_time": -1}}, "options.max_time: -1, expected null or a number of seconds > 0"),
    ({"options": {"search": "bogus"}}, "options.search: 'bogus'"),
    ({"method": "nomad", "options": {"min_frame": 2.0}}, "options.min_frame: 2.0"),
])
def test_stage_file_options_are_checked_when_the_file_is_read(options, message, tmp_path):
    path = tmp_path / "stages.yaml"
    path.write_text(yaml.safe_dump({"format": "vehiclertm-stages 1",
                                    "stages": [{"name": "a", "parameters": ["k"], **options}]}))
    with pytest.raises(StageConfigError, match=re.escape(message)) as error:
        load_stages(path, parameters=["k", "c"])
    assert str(error.value).startswith(f"{path}: stages[0].")


@pytest.mark.parametrize("settings, message", [
    ({"initial_mesh": -0.25}, "pattern_search.initial_mesh: -0.25, expected a fraction of each range in (0, 1]"),
    ({"max_time": -10.0}, "pattern_search.max_time: -10.0"),
    ({"max_time": math.inf}, "pattern_search.max_time: inf"),
    ({"search": "bogus"}, "pattern_search.search: 'bogus'"),
    ({"method": "nomad", "min_mesh": 2.0}, "pattern_search.min_mesh: 2.0, expected a fraction"),
    ({"poll": "hexagon"}, "pattern_search.poll: 'hexagon'"),
    ({"seed": -1}, "pattern_search.seed: -1"),
])
def test_search_options_name_the_config_file_and_the_projects_key(settings, message):
    with pytest.raises(ValueError) as error:
        SearchOptions.from_settings(settings, "id.yaml")
    assert str(error.value).startswith(f"id.yaml: {message}")


def test_sensitivity_refuses_to_rank_from_failed_evaluations():
    def sometimes(p):
        if p["k"] > 1.8:
            raise SimulationDiverged(0.07, "tireRR.tanAlpha", "-inf")
        return {"e": bowl(p)}
    with pytest.raises(SensitivityFailed, match=r"\d+ of 12 sensitivity evaluations failed, and no ranking is made"
                                                r".*: diverged at t = 0.07 s: tireRR.tanAlpha = -inf"):
        sensitivity_analysis(sometimes, BOUNDS, method="morris", n=4, seed=1, map_function=make_executor(1).map)


def test_a_diverged_fmu_step_is_read_as_a_divergence():
    error = RuntimeError("van.fmu: fmi2DoStep at t = 15.46 s failed (fmi2DoStep failed with status 3 (error).): "
                         "fmi2DoStep: the simulation diverged at t = 15.470000000000001 s: tireFL.tanAlpha = -inf, "
                         "its derivative inf")
    assert str(diverged(error)) == "diverged at t = 15.47 s: tireFL.tanAlpha = -inf"
    assert diverged(RuntimeError("trace too short")) is None


TYRE = {"FNOMIN": 4000.0, "LFZO": 1.449275362, "UNLOADED_RADIUS": 0.35, "PKX1": 18.886, "PTX1": 1.85,
        "PTY1": 1.9, "PTY2": 2.25, "LSGKP": 1.0, "LSGAL": 1.0}


def _scalars(relaxation_scale: float) -> dict:
    scalars = {"chassis.frontWheelInertia": 1.3, "chassis.rearWheelInertia": 1.3}
    for axle in ("frontTire", "rearTire"):
        scalars.update({f"{axle}.{k}": v for k, v in TYRE.items()})
        scalars[f"{axle}.LSGKP"] = scalars[f"{axle}.LSGAL"] = relaxation_scale
    return scalars


class _Problem:
    """A stand-in VehicleProblem whose nominal run diverges at steps above ``stable`` and whose fitness
    moves with the step as a real integrator's would."""

    def __init__(self, scalars, stable):
        self.params, self.fmu = type("Params", (), {"scalars": scalars})(), None
        self.internal_step, self.stable, self.nominal, self.runs = 10e-3, stable, {}, []

    def evaluate(self, values):
        self.runs.append(self.internal_step)
        if self.internal_step > self.stable:
            return FitnessResult(1e6, {}, {"ramp_steer": DIVERGED})
        return FitnessResult(2.0 * (1 + 0.1 * self.internal_step), {}, {})


def test_the_internal_step_follows_the_parameter_sets_fastest_mode():
    van = _Problem(_scalars(1.0), stable=20e-3)
    choice = choose_step(van, [16.7, 22.2, 27.8])
    assert choice["step_s"] == van.internal_step == 10e-3 and van.runs == [1e-3, 10e-3]
    assert "wheel spin" in choice["reason"] and "within 0.5 %" in choice["reason"]
    short = _Problem(_scalars(0.05 / 0.7746), stable=4e-3)  # lateral relaxation length 0.05 m at FNOMIN
    choice = choose_step(short, [16.7, 22.2, 27.8])
    assert choice["step_s"] == short.internal_step == 2.5e-3 and choice["rule_s"] == 2.5e-3
    assert "lateral slip relaxation" in choice["reason"] and 1e-2 not in short.runs
    assert fastest_modes(_scalars(1.0), [27.8])[0]["rate"] * 10e-3 < 1.5
    late = _Problem(_scalars(0.05 / 0.7746), stable=2e-3)   # the rule's step fails the check: refined
    assert choose_step(late, [27.8])["step_s"] == 2e-3 and late.runs == [1e-3, 2.5e-3, 2e-3]
    broken = _Problem(_scalars(1.0), stable=0.0)
    with pytest.raises(StartPointFailed, match=f"fails at the 1 ms step.*ramp_steer: {DIVERGED}"):
        choose_step(broken, [27.8])


def test_the_pressure_brakes_friction_state_is_one_of_the_modes():
    """Its rate at speed is omega/(phi + tau*omega): with the 3 ms it once had (317 1/s at 80 km/h on a 0.35 m
    wheel) the rule leaves 10 ms; with the 10 ms default of brakeSlidingLag (98 1/s) 10 ms stays."""
    omega = 22.2 / 0.35
    quick = {**_scalars(1.0), "brakeStictionAngle": 0.01, "brakeSlidingLag": 0.003}
    mode = fastest_modes(quick, [22.2])[0]
    assert mode["mode"].startswith("pressure brakes") and mode["rate"] == pytest.approx(omega / (0.01 + 0.003 * omega))
    van = _Problem(quick, stable=20e-3)
    assert choose_step(van, [22.2])["rule_s"] == 2.5e-3
    slow = [m for m in fastest_modes({**quick, "brakeSlidingLag": 0.01}, [22.2]) if m["mode"].startswith("pressure")]
    assert slow[0]["rate"] * 10e-3 <= 1.0
    assert choose_step(_Problem({**quick, "brakeSlidingLag": 0.01}, stable=20e-3), [22.2])["step_s"] == 10e-3


def test_report_shows_a_zero_nominal_without_a_percentage(tmp_path):
    from types import SimpleNamespace

    from pybridge.report.figures import plot_parameter_changes
    from pybridge.report.sections import _parameter_table

    summary = {"parameters": {
        "chassis.Ixz": {"nominal": 0.0, "optimized": 12.5, "lower": -100.0, "upper": 100.0, "change": 12.5,
                        "change_percent": None},
        "chassis.Izz": {"nominal": 5000.0, "optimized": 5500.0, "lower": 4000.0, "upper": 6000.0, "change": 500.0,
                        "change_percent": 10.0}}}
    assert plot_parameter_changes(summary, tmp_path / "changes.png").stat().st_size > 0
    table = _parameter_table(SimpleNamespace(summary=summary, nominal=SimpleNamespace(units={})))
    assert "– (nominal 0)" in table and "+10.00" in table and "12.5" in table


def test_a_run_an_end_condition_cut_short_because_it_diverged_is_reported_as_diverged():
    """The issue's ramp: |ay| grew without bound, ay_above ended the run at 0.07 s ('trace too short')."""
    import pandas as pd

    from pybridge.simulate.divergence import run_checked
    from pybridge.simulate.scenarios import load_scenario

    def run(scenario):
        if not scenario.end:
            raise RuntimeError("van.fmu: fmi2DoStep at t = 0.08 s failed: fmi2DoStep: the simulation diverged at "
                               "t = 0.09 s: tireRR.tanAlpha = -inf, its derivative inf")
        trace = pd.DataFrame({"time": [0.0, 0.07]})
        trace.attrs["stopped_at"] = 0.07
        return trace

    ramp = load_scenario("ramp_steer")
    assert ramp.end
    with pytest.raises(SimulationDiverged, match=r"^diverged at t = 0.09 s: tireRR.tanAlpha = -inf$"):
        run_checked(run, ramp, min_span=10.0)
    assert run_checked(run, ramp, min_span=0.05).attrs["stopped_at"] == 0.07  # long enough: kept as it is


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf"])
def test_identify_corner_refuses_a_duration_that_is_no_length_of_time(value, tmp_path, capsys):
    from pybridge.cli import main

    with pytest.raises(SystemExit) as stop:  # refused by the flag's checked type (pybridge.flags), before any run
        main(["identify-corner", "--corner", "FL", "--duration", value, "-o", str(tmp_path / "run"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and f"argument --duration: {value}: expected a finite time > 0 s" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("method, budget, least", [("nelder-mead", 5, 11), ("homotopy", 40, 72)])
def test_a_too_small_corner_budget_is_said_in_the_projects_words(method, budget, least):
    from types import SimpleNamespace

    from pybridge.identify.corner import _method_run

    problem = SimpleNamespace(parameters=tuple(f"p{i}" for i in range(10)), corner="FL")
    with pytest.raises(ValueError) as error:
        _method_run(problem, method, {}, max_evaluations=budget, record=None, resume=False, workers=1, progress=False,
                    lambdas=(1.0, 0.5, 0.25, 0.0) if method == "homotopy" else None)
    message = str(error.value)
    assert message.startswith(f"max_evaluations (--max-evaluations): {budget} is too small for {method} on 10 "
                              "parameters") and f"give at least {least}" in message and "maxfev" not in message


@pytest.mark.parametrize("command", ["identify", "demo"])
@pytest.mark.parametrize("section, message", [
    ({"method": "nomad", "min_mesh": 2}, "pattern_search.min_mesh: 2.0, expected a fraction of each range in (0, 1)"),
    ({"seed": -1}, "pattern_search.seed: -1, expected a whole number >= 0"),
    ({"search": "bogus"}, "pattern_search.search: 'bogus', expected null, lhs or a whole number of points >= 1"),
])
def test_a_bad_optimizer_setting_names_the_config_file_before_anything_runs(command, section, message, tmp_path,
                                                                             capsys):
    from pybridge.cli import main

    config = tmp_path / "id.yaml"
    config.write_text(yaml.safe_dump({"pattern_search": section}))
    argv = [command, "--config", str(config), "-o", str(tmp_path / "run"), "--quiet"]
    if command == "identify":
        argv += ["--params", str(tmp_path / "params"), "--reference", str(tmp_path / "set")]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"pybridge {command}: error: {config}: {message}"
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("engine", [nomad_search, pattern_search])
@pytest.mark.parametrize("max_time", [-1.0, 0.0, math.nan, math.inf])
def test_the_engines_refuse_a_max_time_that_is_no_length_of_time(engine, max_time):
    pytest.importorskip("PyNomad")
    with pytest.raises(ValueError, match="max_time must be a number of seconds > 0"):
        engine(bowl, BOUNDS, max_evaluations=5, max_time=max_time, progress=False)
