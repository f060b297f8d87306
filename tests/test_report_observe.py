"""The report section of a ``pybridge observe`` run folder: ``pybridge report RUN`` renders the estimates against
the log's truth with the baselines, and names a broken run folder in one line."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from pybridge.cli import main
from pybridge.onboard.observe import score
from pybridge.onboard.sensors import read_log

LOG = Path(__file__).parent / "data" / "observer" / "slalom_short.csv.gz"


def _run_folder(folder: Path) -> Path:
    """A small observe run folder on the shipped short log: estimates near the truth, written as observe does."""
    log, metadata = read_log(LOG)
    rng = np.random.default_rng(5)
    n = len(log)
    estimates = pd.DataFrame({"time": log["time"], "sideslip": log["true_sideslip"] + 1e-3 * rng.standard_normal(n),
                              "sideslip_sd": np.full(n, 1e-3), "fy_front": log["true_fy_front"] + 50.0,
                              "fy_front_sd": np.full(n, 80.0), "fy_rear": log["true_fy_rear"] - 50.0,
                              "fy_rear_sd": np.full(n, 80.0), "mu": np.linspace(0.7, 0.98, n),
                              "mu_sd": np.full(n, 0.05),
                              "sideslip_bicycle_kf": log["true_sideslip"] * 1.5, "sideslip_kinematic": np.zeros(n)})
    folder.mkdir()
    estimates.to_csv(folder / "estimates.csv", index=False)
    summary = {"log": str(LOG), "manoeuvre": metadata.get("manoeuvre"), "params": "params", "fmu": "rtm.fmu",
               "samples": n, "cost_per_update_us": {"median": 3000.0, "p99.9": 6000.0, "max": 9000.0,
                                                    "clock": "thread CPU time", "load": 2.0},
               "errors": score(log, estimates)}
    (folder / "summary.yaml").write_text(yaml.safe_dump(summary, sort_keys=False))
    return folder


def test_report_of_an_observe_run_compares_estimates_with_the_truth(tmp_path, capsys):
    run = _run_folder(tmp_path / "observe")
    assert main(["report", str(run)]) == 0
    html = (run / "report" / "report.html").read_text()
    errors = yaml.safe_load((run / "summary.yaml").read_text())["errors"]
    assert 'id="observe"' in html and '<meta name="vehiclertm-figures" content="1">' in html
    for label, key in (("sideslip RMS error, observer", "sideslip_rms_error_deg"),
                       ("sideslip RMS error, linear bicycle KF", "sideslip_bicycle_kf_rms_error_deg"),
                       ("front axle lateral force RMS error", "fy_front_rms_error_N")):
        cell = re.search(re.escape(label) + r"</td><td>([^<]+)</td>", html)
        assert cell is not None and float(cell.group(1)) == float(f"{errors[key]:.6g}")
    assert "not judged" in html and "kinematic integration" in html  # the short log: no 3 s of excitation
    assert html.count("data:image/png;base64,") == 1 and (run / "report" / "observe_estimates.png").stat().st_size > 0


def test_report_names_a_broken_observe_run_in_one_line(tmp_path, capsys):
    run = _run_folder(tmp_path / "observe")
    frame = pd.read_csv(run / "estimates.csv").drop(columns=["mu"])
    frame.to_csv(run / "estimates.csv", index=False)
    assert main(["report", str(run)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "estimates.csv: no column 'mu'" in err[0]


def test_report_of_a_replay_run_lists_its_inputs_and_index_errors(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run = tmp_path / "replay"
    run.mkdir()
    summary = {"format": "vehiclertm-replay 1", "log": "drive.mf4", "params": "out/params", "manoeuvre": "slalom",
               "mode": "wheel_torque", "inputs": {"steeringWheelAngle": "steering_wheel_angle",
                                                  "rearWheelTorque[1]": "wheel_torque_rl"},
               "log_start_s": 0.25, "initial_speed_m_per_s": 16.6, "duration_s": 8.0,
               "index_errors_percent": {"ay": 0.26, "yaw_rate": 0.61}}
    (run / "replay.yaml").write_text(yaml.safe_dump(summary, sort_keys=False))
    fig = plt.figure(figsize=(2, 1))
    fig.savefig(run / "replay.png")
    plt.close(fig)
    assert main(["report", str(run)]) == 0
    html = (run / "report" / "report.html").read_text()
    assert 'id="replay"' in html and "<td>yaw_rate</td><td>0.61</td>" in html
    assert "rearWheelTorque[1] ← wheel_torque_rl" in html and html.count("data:image/png;base64,") == 1
    (run / "replay.png").unlink()
    assert main(["report", str(run)]) != 0  # names the missing figure
