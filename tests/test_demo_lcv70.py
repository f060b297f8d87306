"""The main job on the 7 t van, shortened as tests/test_demo.py's: `pybridge demo --vehicle lcv70` converts the
shipped 7 t data set into the QuadTor / multi-leaf / dual-tyre variant of the RTM and runs every step."""
from __future__ import annotations

import sys

import pytest
import yaml

from pybridge.cli import main
from pybridge.demo import STEPS

MODEL = "VehicleRTM.Vehicles.Variants.QuadTorMultiLeaf"
EVALUATIONS = 10
CORNER_EVALUATIONS = 56   # the smallest budget the corner homotopy takes for 12 parameters (3 stages)


@pytest.fixture(scope="module")
def demo70(native_fmu, tmp_path_factory):
    """Morris with 2 trajectories, 10 pattern-search evaluations, the reference vehicle unimportable; the
    manoeuvres are those the data set's manifest offers (pybridge.coverage)."""
    root = tmp_path_factory.mktemp("demo70")
    config = root / "short.yaml"
    config.write_text(yaml.safe_dump({"sensitivity": {"samples": 2},
                                      "pattern_search": {"max_evaluations": EVALUATIONS},
                                      "corners": {"max_evaluations": CORNER_EVALUATIONS}}))
    run = root / "run"
    with pytest.MonkeyPatch.context() as patch:
        for name in ("exudyn", "pybridge.reference"):
            patch.setitem(sys.modules, name, None)
        code = main(["demo", "--vehicle", "lcv70", "--config", str(config), "--fmu", str(native_fmu(MODEL)),
                     "-o", str(run), "--workers", "2", "--quiet"])
    return code, run


def test_the_7_t_demo_runs_every_step_on_its_variant(demo70):
    code, run = demo70
    assert code == 0
    info = yaml.safe_load((run / "run.yaml").read_text())
    assert [s["step"] for s in info["steps"]] == list(STEPS)
    assert "front quadtor" in info["steps"][0]["variant"] and "rear multileaf" in info["steps"][0]["variant"]
    converted = yaml.safe_load((run / "params_converted" / "params.yaml").read_text())
    assert converted["model"] == MODEL
    assert converted["scalars"]["chassis.rearTiresPerWheel"]["value"] == 2
    assert (run / "report" / "report.html").is_file()


def test_the_7_t_demo_identifies_within_its_budget(demo70):
    _, run = demo70
    result = yaml.safe_load((run / "result.yaml").read_text())
    assert result["evaluations"] <= EVALUATIONS
    assert result["optimized"]["fitness"] <= result["nominal"]["fitness"]
    comparison = yaml.safe_load((run / "comparison.yaml").read_text())
    assert "step_steer" in comparison["manoeuvres"]
    for manoeuvre, entry in comparison["manoeuvres"].items():
        assert not entry["failed"], manoeuvre
