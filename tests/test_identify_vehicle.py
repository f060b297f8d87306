"""Synthetic identification of the full vehicle: RTM reference traces with hidden parameter values."""
from __future__ import annotations

import shutil

import pytest
import yaml

from conftest import REPO
from pybridge.cli import main
from pybridge.convert import convert_mbm
from pybridge.identify.vehicle import SearchOptions, identify_vehicle
from pybridge.simulate.manoeuvres import ManifestReferences, run_scenario
from pybridge.traces import write_trace

SHIPPED_MBM = REPO / "scenarios" / "mbm" / "lcv35"
HIDDEN = {"chassis.cogHeight": 1.06, "chassis.Izz": 0.93}  # factors on the converted nominal values
OBJECTIVE = {
    "format": "vehiclertm-objective 1", "tolerance_percent": 5.0, "penalty_factor": 2.0,
    "failure": {"value": 1.0e6, "min_duration_fraction": 0.5},
    "weights": {"step_steer": {"yaw_rate_gain": 1.0, "yaw_rate_overshoot": 1.0, "yaw_rate_peak_time": 1.0,
                               "yaw_rate_response_time": 1.0, "ay_gain": 1.0, "yaw_rate_trace": 1.0,
                               "ay_trace": 1.0},
                "ramp_steer": {"roll": 1.0, "load_transfer_total": 1.0, "sideslip": 1.0}},
}


@pytest.fixture(scope="module")
def synthetic(rtm_fmu, tmp_path_factory):
    """A data set whose traces are the RTM's own with the hidden values; uncertain = the hidden ones."""
    fmu = rtm_fmu
    params = convert_mbm(SHIPPED_MBM / "mbm", fmu=fmu)
    params.uncertain = {}
    for name in HIDDEN:
        params.mark_uncertain(name, 0.2)
    truth = {name: params.scalars[name] * factor for name, factor in HIDDEN.items()}
    root = tmp_path_factory.mktemp("synthetic")
    shutil.copy(SHIPPED_MBM / "manifest.yaml", root / "manifest.yaml")
    resolve = ManifestReferences(root / "manifest.yaml")
    for manoeuvre in OBJECTIVE["weights"]:
        trace = run_scenario(fmu, manoeuvre, params.with_values(truth), resolve)
        write_trace(trace, root / "traces" / f"{manoeuvre}.csv", {"manoeuvre": manoeuvre, "source": "RTM, hidden values"})
    objective = root / "objective.yaml"
    objective.write_text(yaml.safe_dump(OBJECTIVE))
    return fmu, params, truth, root, objective


def test_pattern_search_recovers_hidden_parameters(synthetic, tmp_path):
    fmu, params, truth, root, objective = synthetic
    options = SearchOptions(poll="gps2n", initial_mesh=0.25, min_mesh=1e-3, max_evaluations=150)
    result = identify_vehicle(params, root, fmu, tmp_path / "run", options=options, objective_file=objective,
                              workers=2, progress=False)
    summary = yaml.safe_load((tmp_path / "run" / "result.yaml").read_text())
    assert summary["optimized"]["fitness"] < summary["nominal"]["fitness"]
    for name, value in truth.items():
        assert result.parameters[name] == pytest.approx(value, rel=0.005), name
    assert (tmp_path / "run" / "params_optimized" / "params.yaml").is_file()


def test_cli_identify_reports_and_resumes(synthetic, tmp_path, capsys):
    fmu, params, truth, root, objective = synthetic
    params.write(tmp_path / "params")
    config = tmp_path / "identify.yaml"
    config.write_text(yaml.safe_dump({"objective": str(objective), "pattern_search": {"max_evaluations": 6}}))
    argv = ["identify", "--params", str(tmp_path / "params"), "--reference", str(root), "--config", str(config),
            "--fmu", str(fmu), "-o", str(tmp_path / "run"), "--workers", "1", "--quiet"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "fitness" in first and "chassis.cogHeight" in first
    records = (tmp_path / "run" / "record.jsonl").read_text().splitlines()
    assert main(argv + ["--resume", "--max-evaluations", "10"]) == 0
    resumed = (tmp_path / "run" / "record.jsonl").read_text().splitlines()
    assert resumed[:len(records)] == records and len(resumed) > len(records)
    config.write_text("pattern_search: {poll: hexagon}\n")
    assert main(argv) == 2
    assert "hexagon" in capsys.readouterr().err


def test_cli_identify_with_nomad_records_and_resumes(synthetic, tmp_path, capsys):
    pytest.importorskip("PyNomad", reason="NOMAD's Python interface (pip install pynomadbbo)")
    fmu, params, truth, root, objective = synthetic
    params.write(tmp_path / "params")
    argv = ["identify", "--params", str(tmp_path / "params"), "--reference", str(root), "--objective", str(objective),
            "--fmu", str(fmu), "-o", str(tmp_path / "run"), "--workers", "2", "--method", "nomad",
            "--max-evaluations", "8", "--quiet"]
    assert main(argv) == 0
    summary = yaml.safe_load((tmp_path / "run" / "result.yaml").read_text())
    assert summary["method"] == "nomad" and summary["poll"] is None and summary["evaluations"] == 8
    assert summary["optimized"]["fitness"] <= summary["nominal"]["fitness"]
    records = (tmp_path / "run" / "record.jsonl").read_text().splitlines()
    assert '"method": "nomad"' in records[0] and len(records) == 9
    assert main(argv[:-3] + ["--max-evaluations", "12", "--quiet", "--resume"]) == 0
    resumed = (tmp_path / "run" / "record.jsonl").read_text().splitlines()
    assert resumed[:len(records)] == records and len(resumed) == 13  # the 8 replayed, 4 new


def test_staged_identification_from_the_cli(synthetic, tmp_path):
    """Stage 1 finds the CoG height from the ramp steer's roll, stage 2 the yaw inertia from the step."""
    fmu, params, truth, root, objective = synthetic
    params.write(tmp_path / "params")
    stages = tmp_path / "stages.yaml"
    stages.write_text(yaml.safe_dump({"format": "vehiclertm-stages 1", "stages": [
        {"name": "roll", "parameters": ["chassis.cogHeight"],
         "weights": {"ramp_steer": {"roll": 1.0, "load_transfer_total": 1.0}}},
        {"name": "yaw", "parameters": ["chassis.Izz"],
         "weights": {"step_steer": {"yaw_rate_overshoot": 1.0, "yaw_rate_peak_time": 1.0,
                                    "yaw_rate_trace": 1.0}}}]}))
    config = tmp_path / "identify.yaml"
    config.write_text(yaml.safe_dump({"pattern_search": {"max_evaluations": 80, "min_mesh": 1e-4}}))
    run = tmp_path / "run"
    assert main(["identify", "--params", str(tmp_path / "params"), "--reference", str(root), "--stages", str(stages),
                 "--objective", str(objective), "--config", str(config), "--fmu", str(fmu), "-o", str(run),
                 "--workers", "1", "--quiet"]) == 0
    summary = yaml.safe_load((run / "result.yaml").read_text())
    assert [s["name"] for s in summary["stages"]] == ["roll", "yaw"]
    assert all(s["evaluations"] <= 40 for s in summary["stages"])  # the budget is shared
    assert sorted(p.name for p in (run / "stages").iterdir()) == ["1-roll.jsonl", "2-yaw.jsonl"]
    for name, value in truth.items():
        assert summary["parameters"][name]["optimized"] == pytest.approx(value, rel=0.01), name
    assert summary["optimized"]["fitness"] < summary["nominal"]["fitness"]
