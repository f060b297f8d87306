"""The main job end to end, shortened: `pybridge demo` on the shipped van with a small budget."""
from __future__ import annotations

import pytest
import yaml

from pybridge.cli import EXIT_INPUT, main
from pybridge.demo import STEPS

EVALUATIONS = 10


@pytest.fixture(scope="module")
def demo_run(native_fmu, tmp_path_factory):
    """One shortened demo through the CLI: Morris with 2 trajectories, 10 pattern-search evaluations."""
    fmu = native_fmu("VehicleRTM.Vehicles.RTM14DoF", fmi_type="cs")
    root = tmp_path_factory.mktemp("demo")
    config = root / "short.yaml"
    config.write_text(yaml.safe_dump({"sensitivity": {"samples": 2},
                                      "pattern_search": {"max_evaluations": EVALUATIONS},
                                      "validation": ["slalom", "random_steer"]}))
    run = root / "run"
    code = main(["demo", "--config", str(config), "--fmu", str(fmu), "-o", str(run), "--workers", "2", "--quiet"])
    return code, run, config, fmu


def test_demo_runs_every_step_and_writes_the_run_folder(demo_run):
    code, run, _, _ = demo_run
    assert code == 0
    info = yaml.safe_load((run / "run.yaml").read_text())
    assert [s["step"] for s in info["steps"]] == list(STEPS)
    assert all(s["wall_s"] >= 0 for s in info["steps"]) and info["total_wall_s"] > 0
    assert info["settings"]["pattern_search"]["max_evaluations"] == EVALUATIONS
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
