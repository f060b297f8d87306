"""``pybridge mbm import``: the shipped van through .res and back, mapping files, bad result folders."""
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pybridge.cli import main
from pybridge.evaluate.kpi import evaluate_indices, index_functions
from pybridge.mbm.channel_map import ChannelMap, load_channel_map
from pybridge.mbm.dataset import read_mbm
from pybridge.mbm.importer import MBMImportError, import_results
from pybridge.mbm.kc_results import read_kc_results
from pybridge.reference.xrf_export import write_dataset_res
from pybridge.simulate.manoeuvres import ManifestReferences
from pybridge.traces import find_trace, read_trace

SHIPPED = Path(__file__).resolve().parents[1] / "scenarios" / "mbm" / "lcv35"
MANOEUVRES = ["step_steer", "ramp_steer"]


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The shipped set's K&C tests and two manoeuvres as .res (plus its property files), imported."""
    results = tmp_path_factory.mktemp("results")
    write_dataset_res(SHIPPED, results, MANOEUVRES)
    for path in (SHIPPED / "mbm").iterdir():
        if path.is_file():
            shutil.copyfile(path, results / path.name)
    out = tmp_path_factory.mktemp("imported") / "van"
    return results, import_results(results, out)


def _relative(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def test_imported_kc_tables_equal_the_shipped_ones(imported):
    _, report = imported
    shipped = sorted(p.name for p in (SHIPPED / "mbm" / "kc").glob("*.csv"))
    assert sorted(f"{n}.csv" for n in report.kc) == shipped and len(shipped) == 17
    for name in shipped:
        a, b = read_kc_results(report.dataset / "mbm" / "kc" / name), read_kc_results(SHIPPED / "mbm" / "kc" / name)
        assert (a.test, a.axle, a.loaded_side) == (b.test, b.axle, b.loaded_side)
        assert list(a.data.columns) == list(b.data.columns), name
        for column in b.data.columns:
            assert _relative(a.data[column].to_numpy(), b.data[column].to_numpy()) <= 1e-9, (name, column)
    data = read_mbm(report.dataset / "mbm")  # the whole set's cross-checks pass
    assert len(data.kc) == 17 and data.masses.total_mass > 0


def test_imported_traces_equal_the_shipped_ones_and_score_alike(imported):
    _, report = imported
    assert sorted(report.traces) == sorted(MANOEUVRES)
    for manoeuvre in MANOEUVRES:
        a, _ = read_trace(find_trace(report.dataset, manoeuvre))
        b, _ = read_trace(find_trace(SHIPPED, manoeuvre))
        assert list(a.columns) == list(b.columns) and len(a) == len(b)
        for column in b.columns:
            assert _relative(a[column].to_numpy(), b[column].to_numpy()) <= 1e-9, (manoeuvre, column)
        # a candidate off the reference by a few per cent scores the same against both sets
        candidate = b.copy()
        for channel in ("yaw_rate", "ay", "roll", "sideslip"):
            candidate[channel] = 1.03 * b[channel] + 0.02 * np.sin(b["time"])
        names = list(index_functions[manoeuvre])
        ours = evaluate_indices(manoeuvre, candidate, a, names)
        theirs = evaluate_indices(manoeuvre, candidate, b, names)
        assert [r.value_percent for r in ours] == pytest.approx([r.value_percent for r in theirs], rel=1e-9)
        assert any(abs(r.value_percent) > 0.1 for r in theirs)  # the comparison is not trivially zero
    resolve = ManifestReferences(report.dataset)
    assert resolve("ramp_steer_at_ay", 3.92266) == pytest.approx(
        ManifestReferences(SHIPPED)("ramp_steer_at_ay", 3.92266), rel=1e-9)


def test_manifest_records_each_source_file(imported):
    results, report = imported
    manifest = report.manifest
    assert manifest["generator"].startswith("pybridge mbm import") and manifest["vehicle"] == "lcv35"
    step = next(s for s in manifest["sources"] if s["file"] == "lcv35_step_steer.res")
    assert len(step["sha256"]) == 64 and step["bibliography"]["File.version"] == "2.0.0.0"
    (analysis,) = step["analyses"]
    assert analysis["name"] == "lcv35_step_steer" and analysis["tool"] == "pybridge.reference"
    assert analysis["kind"] == "dynamic" and analysis["became"] == "traces/step_steer.csv"
    assert manifest["traces"]["step_steer"]["rows"] == 1201
    assert "mbm/kc/front_parallel_travel.csv" in manifest["mbm_files"] and "mbm/masses.csv" in manifest["mbm_files"]
    assert report.absent_everywhere()["trace"][:2] == ["ax_sensor", "ax_sprung"]


# ------------------------------------------------------------------ a foreign tool's names via --map

VICRT = """<?xml version="1.0" encoding="UTF-8"?>
<Results xmlns="http://www.mscsoftware.com/:xrf10">
<Bibliography>
<File schema="xrf" version="2.0.0.0" />
<Corporation author="VI-Grade" URI="http://www.vi-grade.com/" />
</Bibliography>
<Analysis name="DefaultRun" executionDate="2025-03-01 09:00:00" script="">
<ModelInfo title="VI-CarRealTime Vehicle Model" />
<Units angle="rad" length="m" mass="kg" time="sec" />
<StepMap name="map_001">
<Entity name="time" entType="Request">
<Component name="TIME" unitsValue="sec" id="1" />
</Entity>
<Entity name="Animator_Widget" entity="Animator_Widget" entType="Request">
<Component name="longitudinal_speed" unitsValue="" plotLabel="Velocity (km/h)" id="2" />
</Entity>
<Entity name="Gyro" entity="Gyro" entType="Request">
<Component name="gyro_ACCY" unitsValue="meter/second**2" plotLabel="" id="3" />
<Component name="yaw_rate" unitsValue="radian/second" plotLabel="" id="4" />
</Entity>
<Entity name="Steering.Wheel" entity="Steering.Wheel" entType="Request">
<Component name="angle" unitsValue="radian" plotLabel="" id="5" />
</Entity>
</StepMap>
<Data name="dynamic_001" id="1">
<Step type="dynamic">
0 100 0 0 0
</Step>
<Step type="dynamic">
0.01 100 0.5 0.01 0.1
</Step>
<Step type="dynamic">
0.02 99 1.0 0.02 0.2
</Step>
</Data>
</Analysis>
</Results>
"""
MAP = """format: vehiclertm-map 1
manoeuvres: {step_steer: "*defaultrun*"}
traces:
  speed: {source: Animator_Widget.longitudinal_speed, unit: km/h}
  ay_sensor: Gyro.gyro_ACCY
  yaw_rate: {source: Gyro.yaw_rate, scale: -1}
  steering_wheel_angle: Steering.Wheel.angle
"""


def test_cli_import_with_a_map_of_another_tools_names(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "run_001.res").write_text(VICRT)
    (tmp_path / "map.yaml").write_text(MAP)
    assert main(["mbm", "import", str(tmp_path / "in"), "-o", str(tmp_path / "out")]) == 0
    assert "not recognised (no K&C test or manoeuvre by its name)" in capsys.readouterr().out
    assert not (tmp_path / "out" / "traces").exists()
    code = main(["mbm", "import", str(tmp_path / "in"), "-o", str(tmp_path / "out2"), "--map", str(tmp_path / "map.yaml")])
    out = capsys.readouterr().out
    assert code == 0 and "traces: step_steer" in out and "trace channels of the map found in no file: ax," in out
    trace, meta = read_trace(tmp_path / "out2" / "traces" / "step_steer.csv")
    assert list(trace.columns) == ["time", "speed", "yaw_rate", "ay_sensor", "steering_wheel_angle"]
    np.testing.assert_allclose(trace["speed"], [100 / 3.6, 100 / 3.6, 99 / 3.6])
    np.testing.assert_allclose(trace["yaw_rate"], [0, -0.01, -0.02])
    assert meta["source"] == "run_001.res, analysis DefaultRun (VI-CarRealTime Vehicle Model unknown)"


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('<Component name="TIME" unitsValue="sec" id="1" />', '<Component name="T" unitsValue="sec" id="1" />'),
     r"run_001.res: analysis 'DefaultRun' \(step_steer\) lacks time <- time.TIME — expected these channels"),
    (lambda t: t.replace('plotLabel="Velocity (km/h)"', 'plotLabel="x"'), None),
    (lambda t: t.replace("0.02 99", "0.005 99"), r"run_001.res:\d+: TIME 0.005 after 0.01"),
])
def test_import_errors_name_file_and_analysis(tmp_path, edit, message):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "run_001.res").write_text(edit(VICRT))
    (tmp_path / "map.yaml").write_text(MAP if message else MAP.replace(", unit: km/h", ""))
    cmap = ChannelMap.default().overlaid(load_channel_map(tmp_path / "map.yaml"))
    with pytest.raises(MBMImportError if message and "lacks" in message else ValueError,
                       match=message or r"Animator_Widget.longitudinal_speed .*has no unitsValue"):
        import_results(tmp_path / "in", tmp_path / "out", cmap)
    assert not (tmp_path / "out").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["in", "map.yaml"]


def test_import_refuses_ambiguity_missing_axle_side_and_a_full_folder(tmp_path, imported):
    results, _ = imported
    one = tmp_path / "one"
    one.mkdir()
    shutil.copyfile(results / "lcv35_front_parallel_travel.res", one / "lcv35_front_parallel_travel.res")
    shutil.copyfile(results / "lcv35_front_parallel_travel.res", one / "copy.res")
    with pytest.raises(MBMImportError, match=r"lcv35_front_parallel_travel.res: analysis 'lcv35_front_parallel_travel' "
                                           r"gives front_parallel_travel, as does analysis .* of .*copy.res — expected"):
        import_results(one, tmp_path / "out")
    (one / "copy.res").unlink()
    text = (results / "lcv35_front_compliance_fy_left.res").read_text()
    (one / "x.res").write_text(text.replace("lcv35_front_compliance_fy_left", "lcv35_compliance_fy"))
    with pytest.raises(MBMImportError, match=r"x.res: analysis 'lcv35_compliance_fy' is a compliance_fy test of no "
                                           r"axle — expected its name or the file's to match kc.axles"):
        import_results(one, tmp_path / "out")
    (one / "x.res").write_text(text.replace("lcv35_front_compliance_fy_left", "front_compliance_fy"))
    with pytest.raises(MBMImportError, match=r"is a compliance_fy test without a loaded side"):
        import_results(one, tmp_path / "out")
    (one / "x.res").unlink()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(MBMImportError, match=r"full: exists and is not an empty folder"):
        import_results(one, tmp_path / "full")
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"
    with pytest.raises(MBMImportError, match=r"no \*.res file"):
        import_results(tmp_path / "full", tmp_path / "out")
    assert main(["mbm", "import", str(tmp_path / "nowhere"), "-o", str(tmp_path / "out")]) == 2


@pytest.mark.slow
def test_generate_writes_res_files_that_import_back_to_its_own_data_set(tmp_path):
    """pybridge mbm generate (one manoeuvre) writes results/*.res; importing its folder gives its CSVs back."""
    pytest.importorskip("exudyn", reason="the reference vehicle needs exudyn (pip install '.[reference]')")
    from pybridge.reference.generate import generate
    manifest = generate("lcv35", tmp_path / "gen", tests=("braking",), workers=1, progress=False)
    assert "results/lcv35_braking.res" in manifest["result_files"] and len(manifest["result_files"]) == 18
    report = import_results(tmp_path / "gen", tmp_path / "imported")
    assert sorted(report.traces) == ["braking"] and len(report.kc) == 17
    for name in report.kc:
        a = read_kc_results(tmp_path / "imported" / "mbm" / "kc" / f"{name}.csv")
        b = read_kc_results(tmp_path / "gen" / "mbm" / "kc" / f"{name}.csv")
        for column in b.data.columns:
            assert _relative(a.data[column].to_numpy(), b.data[column].to_numpy()) <= 1e-9, (name, column)
    a, _ = read_trace(find_trace(tmp_path / "imported", "braking"))
    b, _ = read_trace(find_trace(tmp_path / "gen", "braking"))
    for column in b.columns:
        assert _relative(a[column].to_numpy(), b[column].to_numpy()) <= 1e-9, column
