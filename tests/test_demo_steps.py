"""Issue 27: the demo runs on what the data set has (steps without data skipped, recorded, reported), and
`pybridge compare`, the demo's comparison step as a command."""
from __future__ import annotations

import copy
import shutil

import pytest
import yaml

from conftest import REPO
from pybridge.cli import EXIT_FAILED, EXIT_INPUT, main

SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"
CORNER_STEP = "SLEKQ corners and four-post check"


def _cut_down(root, drop):
    """A copy of the shipped data set without the traces ``drop``."""
    shutil.copytree(SHIPPED / "mbm", root / "mbm")
    manifest = yaml.safe_load((SHIPPED / "manifest.yaml").read_text())
    for name in drop:
        del manifest["traces"][name]
    (root / "traces").mkdir()
    for entry in manifest["traces"].values():
        shutil.copy(SHIPPED / entry["file"], root / entry["file"])
    (root / "manifest.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    return root


def test_the_corner_step_runs_the_parts_the_data_set_has(tmp_path):
    from pybridge.demo_steps import StepSkipped, corner_parts

    assert corner_parts(SHIPPED) == (["FL", "RL"], {})
    no_posts = _cut_down(tmp_path / "a", ["four_post_heave", "four_post_pitch"])
    corners, skipped = corner_parts(no_posts)
    assert corners == ["FL", "RL"] and list(skipped) == ["four-post check"]
    assert skipped["four-post check"] == (f"no trace four_post_heave among the traces of {no_posts / 'manifest.yaml'}; "
                                          f"no trace four_post_pitch among the traces of {no_posts / 'manifest.yaml'}")
    front_only = _cut_down(tmp_path / "b", ["corner_force_sweep_RL"])
    (front_only / "traces" / "four_post_pitch.csv.gz").unlink()   # listed, but the file is gone
    corners, skipped = corner_parts(front_only)
    assert corners == ["FL"] and list(skipped) == ["RL corner", "four-post check"]
    assert skipped["four-post check"].startswith("it needs a front and a rear corner; no trace ")
    assert skipped["four-post check"].endswith("four_post_pitch.csv[.gz]")
    with pytest.raises(StepSkipped, match="no trace corner_force_sweep_FL .*; no trace corner_force_sweep_RL"):
        corner_parts(_cut_down(tmp_path / "c", ["corner_force_sweep_FL", "corner_force_sweep_RL"]))


@pytest.fixture(scope="module")
def no_corner_demo(rtm_fmu, tmp_path_factory):
    """The demo on the shipped data set minus its corner sweeps and four-post traces, cut down: the step steer
    in the objective, the slalom to validate, 2 Morris trajectories, 4 evaluations."""
    root = tmp_path_factory.mktemp("no_corners")
    data = _cut_down(root / "set", ["corner_force_sweep_FL", "corner_force_sweep_RL", "four_post_heave",
                                    "four_post_pitch"])
    objective = yaml.safe_load((REPO / "scenarios" / "objective.yaml").read_text())
    objective["weights"] = {"step_steer": objective["weights"]["step_steer"]}
    (root / "objective.yaml").write_text(yaml.safe_dump(objective))
    (root / "tiny.yaml").write_text(yaml.safe_dump({"sensitivity": {"samples": 2},
                                                    "pattern_search": {"max_evaluations": 4},
                                                    "validation": ["slalom"]}))
    run = root / "run"
    with pytest.MonkeyPatch.context() as patch:
        lines = []
        patch.setattr("builtins.print", lambda *a, **k: lines.append(" ".join(map(str, a))))
        code = main(["demo", "--reference", str(data), "--config", str(root / "tiny.yaml"), "--fmu", str(rtm_fmu),
                     "--objective", str(root / "objective.yaml"), "-o", str(run), "--workers", "2"])
    return code, run, data, root / "objective.yaml", lines


def test_a_demo_without_corner_sweeps_and_four_post_traces_skips_that_step_and_reports(no_corner_demo):
    code, run, data, _, lines = no_corner_demo
    assert code == 0
    info = yaml.safe_load((run / "run.yaml").read_text())
    why = (f"no trace corner_force_sweep_FL among the traces of {data / 'manifest.yaml'}; "
           f"no trace corner_force_sweep_RL among the traces of {data / 'manifest.yaml'}")
    assert info["skipped_steps"] == {CORNER_STEP: why}
    step = next(s for s in info["steps"] if s["step"] == CORNER_STEP)
    assert step["skipped"] == {CORNER_STEP: why}
    assert [line.strip() for line in lines if "skipped" in line] == [f"skipped {CORNER_STEP}: {why}"]
    assert info["steps"][-1]["step"] == "report" and "finished" in info
    html = (run / "report" / "report.html").read_text()
    assert "Skipped steps (the data set has no data for them): SLEKQ corners and four-post check: no trace " in html
    assert not (run / "corners").exists() and 'id="corners"' not in html


def test_pybridge_compare_gives_the_demo_comparison_and_its_exit_codes(no_corner_demo, rtm_fmu, tmp_path, capsys):
    from pybridge.parameters import read_parameter_set

    _, run, data, objective, _ = no_corner_demo
    out = tmp_path / "compare"
    assert main(["compare", "--params", f"nominal={run / 'params_converted'}", "--reference", str(data),
                 "--objective", str(objective), "--fmu", str(rtm_fmu), "-o", str(out), "--quiet",
                 "--manoeuvres", "step_steer", "slalom"]) == 0
    printed = capsys.readouterr().out
    demo = yaml.safe_load((run / "nominal" / "comparison.yaml").read_text())
    mine = yaml.safe_load((out / "comparison.yaml").read_text())
    assert mine["manoeuvres"] == demo["manoeuvres"] and mine["sets"] == ["nominal"]   # the demo's step, as is
    overshoot = mine["manoeuvres"]["step_steer"]["indices"]["ay_overshoot"]
    assert overshoot["rule"] == "absolute" and f"absolute: MBM {overshoot['reference_value']:g} < floor 10" in printed
    assert "objective indices within TP: nominal " in printed
    assert {p.name for p in out.glob("*.png")} == {"index_errors.png", "curves_step_steer.png", "curves_slalom.png"}
    broken = copy.deepcopy(read_parameter_set(run / "params_converted"))
    broken.scalars["chassis.sprungBodies"] = -100.0      # the FMU diverges at once
    broken.write(tmp_path / "broken")
    code = main(["compare", "--params", str(run / "params_converted"), str(tmp_path / "broken"), "--reference",
                 str(data), "--objective", str(objective), "--fmu", str(rtm_fmu), "-o", str(tmp_path / "two"),
                 "--manoeuvres", "step_steer", "--quiet"])
    assert code == EXIT_FAILED and "step_steer: broken failed: " in capsys.readouterr().out
    assert main(["compare", "--params", str(run / "params_converted"), str(tmp_path / "x" / "params_converted"),
                 "--reference", str(data), "-o", str(tmp_path / "three")]) == EXIT_INPUT
    assert "a second set named 'params_converted'; give NAME=FOLDER" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "pybridge compare --params out/demo/params_converted out/demo/params_optimized" in capsys.readouterr().out
