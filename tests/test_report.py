"""write_report on a genuine (small) identification run folder, and the page rendered in headless Chromium."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import REPO
from pybridge.convert import convert_mbm
from pybridge.identify.vehicle import SearchOptions, identify_vehicle
from pybridge.report import ReportError, write_report

SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"
CHROMIUM = Path("/usr/bin/chromium")
FIGURES = ["index_errors.png", "frf_sine_sweep.png", "parameter_changes.png", "correlation.png", "convergence.png",
           "sensitivity.png", "recorded_inputs.png", *(f"traces_{m}.png" for m in ("ramp_steer", "step_steer", "acceleration", "braking",
                                                            "slalom", "random_steer", "double_lane_change"))]
SECTIONS = ["verdict", "errors", "traces", "frf", "parameters", "determined", "convergence", "metadata", "sensitivity"]
RUN_YAML = {"steps": [{"name": "convert", "wall_time_s": 0.4}, {"name": "identify", "wall_time_s": 61.2}],
            "machine": {"cores": 2, "system": "Linux"}, "versions": {"pybridge": "0.1"},
            "settings": {"max_evaluations": 6}}
SENSITIVITY_YAML = {"method": "morris", "ranking": ["chassis.cogHeight", "chassis.Izz", "chassis.Ixx"],
                    "tunable": {"chassis.cogHeight": [0.8, 1.1], "chassis.Izz": [4500.0, 6600.0]}}


@pytest.fixture(scope="module")
def run(tmp_path_factory, rtm_fmu):
    """A real run folder (6 evaluations on the shipped LCV), with a run.yaml and a sensitivity analysis."""
    root = tmp_path_factory.mktemp("report")
    fmu = rtm_fmu
    params = convert_mbm(SHIPPED / "mbm", fmu=fmu)
    folder = root / "run"
    identify_vehicle(params, SHIPPED, fmu, folder, options=SearchOptions(max_evaluations=6), workers=1,
                     progress=False)
    (folder / "run.yaml").write_text(yaml.safe_dump(RUN_YAML))
    (folder / "sensitivity.yaml").write_text(yaml.safe_dump(SENSITIVITY_YAML))
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.barh(["chassis.cogHeight", "chassis.Izz"], [1.0, 0.4])
    fig.savefig(folder / "sensitivity.png", dpi=60)
    plt.close(fig)
    return folder


@pytest.fixture(scope="module")
def report(run):
    """The report written with the comparison computed on the way (no comparison.yaml in the run yet)."""
    assert not (run / "comparison.yaml").exists()
    html = write_report(run, workers=2, progress=False)
    return html, html.read_text(encoding="utf-8")


def test_report_files(run, report):
    html, text = report
    assert html == run / "report" / "report.html"
    assert (run / "comparison.yaml").is_file()
    assert (run / "traces" / "optimized" / "ramp_steer.csv").is_file()
    for name in FIGURES:
        path = run / "report" / name
        assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    assert html.stat().st_size < 5e6


def test_report_is_self_contained(report):
    text = report[1]
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text and "<link" not in text and "@import" not in text and "url(" not in text
    sources = re.findall(r'\bsrc\s*=\s*"([^"]*)"', text)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)


def test_report_sections_figures_and_captions(report):
    text = report[1]
    positions = [text.find(f'id="{s}"') for s in SECTIONS]
    assert all(p >= 0 for p in positions), dict(zip(SECTIONS, positions))
    assert positions == sorted(positions)
    count = int(re.search(r'<meta name="vehiclertm-figures" content="(\d+)">', text).group(1))
    images = re.findall(r"<img [^>]*>", text)
    assert count == len(images) == len(FIGURES)
    assert all(re.search(r'alt="[^"]{20,}"', img) for img in images)
    assert text.count("<figcaption>") == count
    for phrase in ("Fitness (Eq. 9)", "Objective indices within TP", "Validation manoeuvres", "pattern_search",
                   "max_evaluations reached", "VehicleRTM_Vehicles_RTM14DoF.fmu", "chassis.cogHeight"):
        assert phrase in text, phrase
    assert "identify" in text and "61.2" in text and "cores" in text  # run.yaml, generically
    assert "morris" in text and "4500" in text  # sensitivity.yaml: ranking and the tunable set


def test_error_table_matches_the_comparison(run, report):
    text = report[1]
    comparison = yaml.safe_load((run / "comparison.yaml").read_text())
    tolerance = comparison["tolerance_percent"]
    rows = re.findall(r'<tr class="(\w+)" data-manoeuvre="(\w+)" data-index="(\w+)">(.*?)</tr>', text, re.S)
    expected = [(m, i) for m, e in comparison["manoeuvres"].items() for i in e["indices"]]
    assert [(m, i) for _, m, i, _ in rows] == expected
    for role, manoeuvre, index, cells in rows:
        entry = comparison["manoeuvres"][manoeuvre]
        assert role == entry["role"]
        for name in ("nominal", "optimized"):
            cell = re.search(rf'<td class="([^"]*)" data-set="{name}"[^>]*>([^<]*)</td>', cells)
            value = entry["indices"][index][name]
            if value is None:
                assert cell.group(2) == "failed"
                continue
            assert float(re.search(rf'data-set="{name}" data-value="([^"]+)"', cells).group(1)) == value
            assert float(cell.group(2)) == pytest.approx(value, abs=0.0051)
            assert ("above" in cell.group(1)) == (value > tolerance)


def test_existing_comparison_is_reused_and_out_dir_honoured(run, report, tmp_path):
    stamp = (run / "comparison.yaml").stat().st_mtime_ns
    html = write_report(run, tmp_path / "elsewhere", progress=False)
    assert html == tmp_path / "elsewhere" / "report.html"
    assert (tmp_path / "elsewhere" / "index_errors.png").is_file()
    assert (run / "comparison.yaml").stat().st_mtime_ns == stamp


def test_missing_pieces_name_the_folder(run, report, tmp_path):
    with pytest.raises(ReportError) as error:
        write_report(tmp_path / "nothing")
    assert str(tmp_path / "nothing") in str(error.value)
    folder = tmp_path / "run"
    shutil.copytree(run, folder, ignore=shutil.ignore_patterns("report", "traces", "*.fmu"))
    (folder / "result.yaml").unlink()
    with pytest.raises(ReportError) as error:
        write_report(folder)
    assert str(folder) in str(error.value) and "result.yaml missing" in str(error.value)
    shutil.copy(run / "result.yaml", folder)
    shutil.rmtree(folder / "params_optimized")
    with pytest.raises(ReportError) as error:
        write_report(folder)
    assert str(folder) in str(error.value) and "params_optimized" in str(error.value)
    assert not (folder / "report").exists()


# ---------------------------------------------------------------- headless Chromium

CHECK = """<script>
window.addEventListener("load", function () {
  var images = document.images, decoded = 0;
  for (var i = 0; i < images.length; i++) {
    if (images[i].complete && images[i].naturalWidth > 0) decoded++;
  }
  var marker = document.createElement("div");
  marker.id = "image-check";
  marker.textContent = "images=" + images.length + " decoded=" + decoded;
  document.body.appendChild(marker);
});
</script>
"""


def _chromium() -> Path:
    try:
        ok = CHROMIUM.is_file() and subprocess.run([str(CHROMIUM), "--version"], capture_output=True,
                                                   timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    if not ok:
        pytest.skip("chromium not installed (make test installs it with apt when run as root)")
    return CHROMIUM


def _headless(chromium: Path, profile: Path, *arguments: str) -> subprocess.CompletedProcess:
    command = [str(chromium), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-extensions", f"--user-data-dir={profile}", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_every_figure_renders_in_headless_chromium(report, tmp_path):
    chromium = _chromium()
    html, text = report
    count = int(re.search(r'<meta name="vehiclertm-figures" content="(\d+)">', text).group(1))
    page = tmp_path / "check.html"
    page.write_text(text.replace("</body>", CHECK + "</body>"), encoding="utf-8")
    done = _headless(chromium, tmp_path / "profile", "--virtual-time-budget=10000", "--dump-dom", page.as_uri())
    marker = re.search(r'id="image-check">images=(\d+) decoded=(\d+)<', done.stdout)
    assert marker, f"no marker in Chromium's DOM (exit {done.returncode}): {done.stderr[-2000:]}"
    assert int(marker.group(1)) == count
    assert int(marker.group(2)) == count

    shot = tmp_path / "report.png"
    done = _headless(chromium, tmp_path / "profile", "--window-size=1280,2400", "--hide-scrollbars",
                     f"--screenshot={shot}", html.as_uri())
    assert shot.is_file(), f"no screenshot (exit {done.returncode}): {done.stderr[-2000:]}"
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (2400, 1280)
    assert float(pixels.std()) > 0.05  # not a blank page
    colours = np.unique((pixels.reshape(-1, 3)[::7] * 255).astype(np.uint8), axis=0)
    assert len(colours) > 50  # text, tables and figures, not a flat error page
