"""The main job end to end, shortened: `pybridge demo` on the shipped van with a small budget."""
from __future__ import annotations

import shutil
import sys

import pytest
import yaml

from conftest import REPO
from pybridge.cli import EXIT_INPUT, main
from pybridge.demo import STEPS

EVALUATIONS = 10
CORNER_EVALUATIONS = 56   # per corner; the corner homotopy needs at least 48 for its 10 parameters


@pytest.fixture(scope="module")
def demo_run(rtm_fmu, tmp_path_factory):
    """One shortened demo through the CLI: Morris with 2 trajectories, 10 pattern-search evaluations;
    Exudyn and the reference vehicle unimportable (the demo uses the shipped data set)."""
    fmu = rtm_fmu
    root = tmp_path_factory.mktemp("demo")
    config = root / "short.yaml"
    config.write_text(yaml.safe_dump({"sensitivity": {"samples": 2},
                                      "pattern_search": {"max_evaluations": EVALUATIONS},
                                      "corners": {"max_evaluations": CORNER_EVALUATIONS},
                                      "validation": ["slalom", "random_steer"]}))
    run = root / "run"
    with pytest.MonkeyPatch.context() as patch:  # the demo must run without the reference vehicle's Exudyn
        for name in ("exudyn", "pybridge.reference"):
            patch.setitem(sys.modules, name, None)  # importing either now raises ImportError
        code = main(["demo", "--config", str(config), "--fmu", str(fmu), "-o", str(run), "--workers", "2",
                     "--quiet"])
    return code, run, config, fmu


def test_demo_runs_every_step_and_writes_the_run_folder(demo_run):
    code, run, _, _ = demo_run
    assert code == 0
    info = yaml.safe_load((run / "run.yaml").read_text())
    assert [s["step"] for s in info["steps"]] == list(STEPS)
    assert all(s["wall_s"] >= 0 for s in info["steps"]) and info["total_wall_s"] > 0
    assert info["settings"]["pattern_search"]["max_evaluations"] == EVALUATIONS
    for corner in ("FL", "RL"):   # the config's corner budget reaches the corner step
        assert yaml.safe_load((run / "corners" / corner / "result.yaml").read_text())["evaluations"] <= CORNER_EVALUATIONS
    for needed in ("params_converted/params.yaml", "params_nominal/params.yaml", "params_optimized/params.yaml",
                   "record.jsonl", "result.yaml", "sensitivity.yaml", "comparison.yaml",
                   "nominal/comparison.yaml", "report/report.html"):
        assert (run / needed).is_file(), needed


def test_demo_identifies_within_its_budget_and_validates(demo_run):
    _, run, _, _ = demo_run
    result = yaml.safe_load((run / "result.yaml").read_text())
    sensitivity = yaml.safe_load((run / "sensitivity.yaml").read_text())
    assert result["evaluations"] <= EVALUATIONS
    assert len((run / "record.jsonl").read_text().splitlines()) >= result["evaluations"]
    assert set(result["parameters"]) == set(sensitivity["tunable"])
    assert result["optimized"]["fitness"] <= result["nominal"]["fitness"]
    comparison = yaml.safe_load((run / "comparison.yaml").read_text())
    roles = {m: entry["role"] for m, entry in comparison["manoeuvres"].items()}
    assert roles["slalom"] == roles["random_steer"] == "validation" and roles["step_steer"] == "objective"
    for manoeuvre, entry in comparison["manoeuvres"].items():
        assert not entry["failed"], manoeuvre
        for index, values in entry["indices"].items():
            assert values["nominal"] >= 0 and values["optimized"] >= 0, (manoeuvre, index)
    nominal_only = yaml.safe_load((run / "nominal" / "comparison.yaml").read_text())
    assert nominal_only["manoeuvres"]["slalom"]["indices"] == {  # the same nominal set scores the same
        k: {"weight": v["weight"], "nominal": v["nominal"]}
        for k, v in comparison["manoeuvres"]["slalom"]["indices"].items()}


def test_demo_refuses_to_overwrite_a_run_and_keeps_it(demo_run, capsys):
    _, run, config, fmu = demo_run
    before = (run / "result.yaml").read_bytes()
    assert main(["demo", "--config", str(config), "--fmu", str(fmu), "-o", str(run), "--quiet"]) == EXIT_INPUT
    assert "--resume" in capsys.readouterr().err
    assert (run / "result.yaml").read_bytes() == before


SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"
LONGITUDINAL = ("acceleration", "braking")


@pytest.fixture(scope="module")
def lateral_set(tmp_path_factory):
    """A cut-down copy of the shipped data set: no driveline.yaml, no acceleration or braking traces."""
    root = tmp_path_factory.mktemp("lateral") / "set"
    shutil.copytree(SHIPPED / "mbm", root / "mbm")
    (root / "mbm" / "driveline.yaml").unlink()
    manifest = yaml.safe_load((SHIPPED / "manifest.yaml").read_text())
    for name in LONGITUDINAL:
        del manifest["traces"][name]
    (root / "traces").mkdir()
    for entry in manifest["traces"].values():
        shutil.copy(SHIPPED / entry["file"], root / entry["file"])
    (root / "manifest.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    return root


def test_demo_on_a_lateral_only_data_set_skips_what_it_lacks(lateral_set, rtm_fmu, tmp_path, capsys):
    fmu = rtm_fmu
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({"sensitivity": {"samples": 2}, "pattern_search": {"max_evaluations": 4},
                                      "corners": {"max_evaluations": CORNER_EVALUATIONS}, "validation": ["slalom"]}))
    run = tmp_path / "run"
    code = main(["demo", "--reference", str(lateral_set), "--config", str(config), "--fmu", str(fmu), "-o", str(run),
                 "--workers", "2"])
    output = capsys.readouterr().out
    assert code == 0
    info = yaml.safe_load((run / "run.yaml").read_text())
    assert sorted(info["skipped"]) == sorted(LONGITUDINAL)
    assert all("manifest.yaml" in why for why in info["skipped"].values())
    for name in LONGITUDINAL:
        assert output.count(f"skipped {name}:") == 1
    comparison = yaml.safe_load((run / "comparison.yaml").read_text())
    assert set(comparison["manoeuvres"]) == {"ramp_steer", "sine_sweep", "step_steer", "slalom"}
    assert not any(entry["failed"] for entry in comparison["manoeuvres"].values())
    result = yaml.safe_load((run / "result.yaml").read_text())
    assert set(result["parameters"]) <= {"chassis.frontLinkSplit", "chassis.rearLinkSplit", "chassis.cogHeight"}
    assert "engine" not in " ".join(result["nominal"]["indices"])


def test_a_manoeuvre_asked_for_by_name_is_an_error_when_the_data_set_lacks_it(lateral_set, rtm_fmu, tmp_path,
                                                                            capsys):
    from pybridge.coverage import CoverageError, choose

    assert choose(["step_steer", "braking"], lateral_set) == (["step_steer"], {
        "braking": f"not among the traces of {lateral_set / 'manifest.yaml'}"})
    with pytest.raises(CoverageError, match=r"braking: asked for by name, but not among the traces of .*manifest"):
        choose(["step_steer", "braking"], lateral_set, named=["braking"])
    config = tmp_path / "named.yaml"
    config.write_text(yaml.safe_dump({"validation": ["double_lane_change"]}))
    (lateral_set / "traces" / "double_lane_change.csv").rename(tmp_path / "dlc.csv")
    try:
        code = main(["demo", "--reference", str(lateral_set), "--config", str(config), "-o", str(tmp_path / "run"),
                     "--fmu", str(rtm_fmu), "--quiet"])
    finally:
        (tmp_path / "dlc.csv").rename(lateral_set / "traces" / "double_lane_change.csv")
    assert code == EXIT_INPUT
    assert "double_lane_change: asked for by name, but no trace" in capsys.readouterr().err
