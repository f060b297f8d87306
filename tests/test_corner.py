"""SLEKQ corners of the MBM: K&C polynomial fits, identify-corner's run folder and resume, four-post check.

The command runs on the first 2 s of the shipped FL corner sweep with a small budget; the four-post
comparison on the first 10 s of the heave test.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from pybridge.cli import SHIPPED_SET, main
from pybridge.convert_corner import _damper, convert_corner, damper_eq1, fit_polynomial

MBM = SHIPPED_SET / "mbm"


# ---------------------------------------------------------------------------------------------------
# K&C polynomial fits
# ---------------------------------------------------------------------------------------------------

def test_polynomial_fit_recovers_a_cubic_and_reports_residuals():
    z = np.linspace(-0.08, 0.08, 33)
    coefficients, residuals = fit_polynomial(z, 0.01 - 0.2 * z + 3.0 * z ** 2 - 40.0 * z ** 3)
    assert coefficients == pytest.approx([0.01, -0.2, 3.0, -40.0], rel=1e-9)
    assert np.max(np.abs(residuals)) < 1e-12
    through_origin, residuals = fit_polynomial(z, 0.5 * z + np.cos(40 * z) - 1.0, constant=False)
    assert len(through_origin) == 3 and np.max(np.abs(residuals)) > 1e-3   # a cosine is not a cubic


def test_damper_fit_recovers_eq1_and_eq1_is_continuous():
    truth = (3000.0, 0.12, 1500.0, 7000.0, 0.2, 3500.0)
    v = np.linspace(-1.0, 1.0, 201)
    d, residuals = _damper(v, damper_eq1(v, truth), 0.6)
    assert d == pytest.approx(truth, rel=0.05) and np.max(np.abs(residuals)) < 20.0
    for knee in (-truth[1], 0.0, truth[4]):   # no jump at the knees
        assert damper_eq1(np.array([knee - 1e-9]), truth)[0] == pytest.approx(damper_eq1(np.array([knee + 1e-9]), truth)[0],
                                                                           abs=1e-3)


@pytest.mark.parametrize("corner, coupled", [("FL", False), ("RL", True)])
def test_shipped_corners_convert_with_small_residuals(corner, coupled):
    c = convert_corner(MBM, corner)
    assert ("solid axle" in c.kinematics_from) is coupled
    for name in ("x", "y"):
        assert c.fits[name]["max"] < 0.1, name               # mm
    for name in ("toe", "camber"):
        assert c.fits[name]["max"] < 0.02, name              # deg
    assert c.fits["strut_length"]["max"] < 3.0               # mm over ±80 mm travel
    assert c.fits["spring_force"]["max"] < 0.01 * c.corner_load
    rates = c.rates
    # the single-wheel corner: the mean of parallel and opposite (superposition of the two K&C tests)
    assert rates["single_wheel"] == pytest.approx((rates["parallel"] + rates["opposite"]) / 2, rel=0.02)
    assert c.corner_load == pytest.approx(7091.2 if corner == "FL" else 7251.0, abs=1.0)
    assert c.unsprung["lower_paper"] < c.data["data.mUnsprung"] < c.unsprung["upper_paper"]
    assert c.data["data.mSprung"] == pytest.approx(c.corner_load / 9.81 - c.data["data.mUnsprung"])


def test_unknown_corner_is_refused():
    with pytest.raises(ValueError, match="expected one of FL, FR, RL, RR"):
        convert_corner(MBM, "XX")


# ---------------------------------------------------------------------------------------------------
# pybridge identify-corner: run folder and resume
# ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def kc_fmu(native_fmu):
    return native_fmu("VehicleRTM.QuarterCars.KCRig", "cs")


def _lines(path: Path) -> int:
    return sum(1 for _ in path.open())


def test_identify_corner_run_folder_and_resume(kc_fmu, tmp_path, capsys):
    run = tmp_path / "FL"
    argv = ["identify-corner", "--corner", "FL", "--duration", "2", "--max-evaluations", "130", "--fmu", str(kc_fmu),
            "-o", str(run), "--quiet"]
    assert main(argv) == 0
    for name in ("corner.yaml", "record.jsonl", "result.yaml", "sweep.csv", "params_start/params.yaml",
                 "params_identified/params.yaml", Path(kc_fmu).name):
        assert (run / name).exists(), name
    result = yaml.safe_load((run / "result.yaml").read_text())
    assert result["evaluations"] == 130 and _lines(run / "record.jsonl") == 131
    assert result["fitness"]["identified"] < result["fitness"]["start"]
    assert result["wheel_travel_nrmse_percent"]["identified"] < result["wheel_travel_nrmse_percent"]["start"]
    assert [p["lambda"] for p in result["lambda_path"]][-1] == 0.0
    assert "other wheel of the axle held" in result["represents"]
    assert result["wheel_rate_N_per_mm"]["slekq_start"] == pytest.approx(result["wheel_rate_N_per_mm"]["single_wheel"],
                                                                          rel=0.01)
    assert "wheel-travel NRMSE" in capsys.readouterr().out
    # a second run into the same folder is refused; --resume replays the record without new evaluations
    assert main(argv) == 2
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    assert _lines(run / "record.jsonl") == 131
    again = yaml.safe_load((run / "result.yaml").read_text())
    assert again["parameters"] == result["parameters"]
    # a killed run: cut the record, resume, and only the missing evaluations are made
    lines = (run / "record.jsonl").read_text().splitlines()[:12]
    (run / "record.jsonl").write_text("\n".join(lines) + "\n")
    assert main([*argv, "--resume"]) == 0
    assert _lines(run / "record.jsonl") == 131
    assert yaml.safe_load((run / "result.yaml").read_text())["parameters"] == result["parameters"]
    evaluation = json.loads((run / "record.jsonl").read_text().splitlines()[1])
    assert set(evaluation["x"]) == set(result["parameters"]) and "lambda" in evaluation


def test_identify_corner_without_its_trace_names_it(kc_fmu, tmp_path, capsys):
    assert main(["identify-corner", "--corner", "FR", "--fmu", str(kc_fmu), "-o", str(tmp_path / "FR"), "--quiet"]) == 2
    assert "corner_force_sweep_FR" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------
# Four-post comparison on a shortened trace
# ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def four_post(native_fmu, kc_fmu):
    from pybridge.simulate.fmu import FMUSession
    from pybridge.identify.corner import CornerProblem
    from pybridge.traces import find_trace, read_trace

    corners = {c: CornerProblem(SHIPPED_SET, c, kc_fmu) for c in ("FL", "RL")}
    reference = read_trace(find_trace(SHIPPED_SET, "four_post_heave"))[0]
    reference = reference[reference["time"] <= 10.0].reset_index(drop=True)
    with FMUSession(native_fmu("VehicleRTM.Vehicles.FourPost10DoF", "cs")) as session:
        yield corners, reference, session


def test_four_post_comparison_on_a_short_heave_test(four_post):
    from pybridge.four_post import axle_equivalent, compare_four_post, four_post_parameters, four_post_run

    corners, reference, session = four_post
    equivalent = [axle_equivalent(corners[c].base, corners[c].conversion.rates) for c in ("FL", "RL")]
    params, body = four_post_parameters(*equivalent, MBM)
    summary = yaml.safe_load((MBM / "mbm_summary.yaml").read_text())
    total = sum(summary["static_corner_load"].values()) / 9.81
    assert body["mass_kg"] + 2 * (body["unsprung_front_kg"] + body["unsprung_rear_kg"]) == pytest.approx(total)
    model = four_post_run(session, params, reference, body)
    # the model starts at rest at design ride height under the MBM's static corner loads
    assert abs(model["heave"].iloc[0]) < 1e-9
    for c in ("fl", "fr", "rl", "rr"):
        assert model[f"fz_{c}"].iloc[0] == pytest.approx(summary["static_corner_load"][c.upper()], rel=1e-6)
    result = compare_four_post(model, reference, "four_post_heave")
    heave = result["indices"]["heave"]
    assert set(result["indices"]) == {"heave", "pitch", "fz_fl", "fz_fr", "fz_rl", "fz_rr"}   # no travels in the MBM trace
    assert heave["rmse_at_rest_percent"] < 10.0
    assert result["frf"]["heave"]["frequency_Hz"] and max(result["frf"]["heave"]["mbm"]) > 1.0
    # the comparison sees a wrong body: 30 % too heavy is far worse
    heavy = params.with_values({"body.m": 1.3 * params.scalars["body.m"]})
    worse = compare_four_post(four_post_run(session, heavy, reference, body), reference, "four_post_heave")
    assert worse["indices"]["heave"]["rmse_at_rest_percent"] > 1.5 * heave["rmse_at_rest_percent"]
