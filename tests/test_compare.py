"""compare_parameter_sets: parameter sets simulated on the manoeuvres of the shipped LCV data set."""
from __future__ import annotations

import copy
import re
import shutil

import pytest
import yaml

from conftest import REPO
from pybridge.evaluate import compare as compare_module
from pybridge.evaluate.compare import (CompareError, compare_parameter_sets, default_manoeuvres, read_comparison,
                                      trace_path)
from pybridge.convert import convert_mbm
from pybridge.evaluate.kpi import evaluate_indices, index_functions
from pybridge.evaluate.objective import Objective
from pybridge.traces import find_trace, read_trace

SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"
MANOEUVRES = ["step_steer", "braking", "slalom"]
MASS = "chassis.sprungBodies"


@pytest.fixture(scope="module")
def fmu(rtm_fmu):
    return rtm_fmu


@pytest.fixture(scope="module")
def nominal(fmu):
    return convert_mbm(SHIPPED / "mbm", fmu=fmu)


@pytest.fixture(scope="module")
def compared(fmu, nominal, tmp_path_factory):
    """nominal, the same set under a second name, sprung mass +20 %, and an impossible (negative) mass."""
    heavy = nominal.with_values({MASS: 1.2 * nominal.scalars[MASS]})
    broken = copy.deepcopy(nominal)
    broken.scalars[MASS] = -100.0  # the FMU diverges at once
    out = tmp_path_factory.mktemp("compare")
    result = compare_parameter_sets({"nominal": nominal, "copy": nominal, "heavy": heavy, "broken": broken},
                                    SHIPPED, fmu, out, manoeuvres=MANOEUVRES, workers=2, progress=False)
    return result, out


def test_comparison_file_layout(compared):
    result, out = compared
    assert read_comparison(out) == result == yaml.safe_load((out / "comparison.yaml").read_text())
    assert result["format"] == "vehiclertm-comparison 1"
    assert result["reference"] == str(SHIPPED.resolve())
    assert result["fmu"] == "VehicleRTM_Vehicles_RTM14DoF.fmu"
    assert result["tolerance_percent"] == 5.0
    assert result["sets"] == ["nominal", "copy", "heavy", "broken"]
    assert list(result["manoeuvres"]) == MANOEUVRES
    for manoeuvre, entry in result["manoeuvres"].items():
        assert list(entry["indices"]) == list(index_functions[manoeuvre])
        for name in ("nominal", "copy", "heavy"):
            trace, metadata = read_trace(trace_path(out, name, manoeuvre))
            assert metadata["set"] == name and metadata["fmu"] == result["fmu"]
            assert metadata["manoeuvre"] == manoeuvre


def test_roles_and_weights(compared):
    manoeuvres = compared[0]["manoeuvres"]
    assert manoeuvres["step_steer"]["role"] == "objective"
    assert manoeuvres["braking"]["role"] == "objective"
    assert manoeuvres["slalom"]["role"] == "validation"
    assert manoeuvres["step_steer"]["indices"]["yaw_rate_gain"]["weight"] == 1.0
    assert manoeuvres["step_steer"]["indices"]["yaw_rate_trace"]["weight"] == 0.0
    assert all(i["weight"] == 0.0 for i in manoeuvres["slalom"]["indices"].values())


def test_same_set_under_two_names_scores_the_same(compared):
    for manoeuvre, entry in compared[0]["manoeuvres"].items():
        for name, index in entry["indices"].items():
            assert index["nominal"] is not None, (manoeuvre, name)
            assert index["copy"] == index["nominal"], (manoeuvre, name)


def test_heavier_body_scores_worse(compared):
    for manoeuvre in ("step_steer", "braking"):
        indices = compared[0]["manoeuvres"][manoeuvre]["indices"].values()
        worse = sum(i["heavy"] > i["nominal"] for i in indices)
        assert worse > len(indices) / 2, manoeuvre


def test_failed_simulation_is_reported_and_the_others_go_on(compared):
    result, out = compared
    for manoeuvre, entry in result["manoeuvres"].items():
        assert set(entry["failed"]) == {"broken"}
        # diverged (an error), or ended by an end condition on the diverging states: said as such (issue 27)
        assert re.match(r"diverged at t = [0-9.e+-]+ s: \S+ = \S+$", entry["failed"]["broken"]), entry["failed"]
        assert all(i["broken"] is None for i in entry["indices"].values())
        assert all(i["heavy"] is not None for i in entry["indices"].values())
        assert not trace_path(out, "broken", manoeuvre).exists()


def test_numbers_equal_the_indices_of_the_written_traces(compared):
    result, out = compared
    for manoeuvre in MANOEUVRES:
        reference = read_trace(find_trace(SHIPPED, manoeuvre))[0]
        for name in ("nominal", "heavy"):
            trace = read_trace(trace_path(out, name, manoeuvre))[0]
            for index in evaluate_indices(manoeuvre, trace, reference):
                stored = result["manoeuvres"][manoeuvre]["indices"][index.name][name]
                scored = Objective.from_yaml().scored(index)   # near-zero indices by their absolute rule
                assert stored == round(scored.value_percent, 4), (manoeuvre, name, index.name)


def test_default_manoeuvres_of_the_shipped_data_set():
    assert default_manoeuvres(SHIPPED) == ["ramp_steer", "sine_sweep", "step_steer", "acceleration", "braking",
                                           "slalom", "random_steer", "double_lane_change"]


def test_bad_inputs_name_what_is_expected(fmu, nominal, tmp_path):
    with pytest.raises(CompareError, match="sets: empty"):
        compare_parameter_sets({}, SHIPPED, fmu, tmp_path)
    with pytest.raises(CompareError, match="unknown manoeuvre 'drift'"):
        compare_parameter_sets({"a": nominal}, SHIPPED, fmu, tmp_path, manoeuvres=["drift"])
    with pytest.raises(CompareError, match="name 'a b'"):
        compare_parameter_sets({"a b": nominal}, SHIPPED, fmu, tmp_path)
    with pytest.raises(CompareError, match="no such FMU"):
        compare_parameter_sets({"a": nominal}, SHIPPED, tmp_path / "none.fmu", tmp_path)
    dataset = tmp_path / "dataset"
    (dataset / "traces").mkdir(parents=True)
    shutil.copy(SHIPPED / "manifest.yaml", dataset)
    with pytest.raises(CompareError) as error:
        compare_parameter_sets({"a": nominal}, dataset, fmu, tmp_path, manoeuvres=["braking"])
    assert str(dataset / "traces" / "braking.csv") in str(error.value)
    assert "reference trace" in str(error.value)
    with pytest.raises(CompareError, match="no reference trace of any manoeuvre"):
        compare_parameter_sets({"a": nominal}, dataset, fmu, tmp_path)
    assert not (tmp_path / "comparison.yaml").exists()


def test_interrupted_comparison_leaves_no_comparison_file(fmu, nominal, tmp_path, monkeypatch):
    (tmp_path / "comparison.yaml").write_text("format: vehiclertm-comparison 1\n")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(compare_module, "write_trace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        compare_parameter_sets({"a": nominal}, SHIPPED, fmu, tmp_path, manoeuvres=["braking"], workers=1,
                               progress=False)
    assert not (tmp_path / "comparison.yaml").exists()
