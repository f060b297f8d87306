"""Adams xrf result files (pybridge.mbm.xrf): hand-written files to the published layout, a public file
written by Adams 2022, bad input, and the writer."""
import math
from pathlib import Path

import numpy as np
import pytest

from pybridge.mbm.xrf import XrfError, XrfWriter, read_xrf

DATA = Path(__file__).parent / "data" / "xrf"
PUBLIC = DATA / "adams2022_aview_hpc_test.res"
INCH = 0.0254

# A suspension analysis and a full-vehicle run in one file, written by hand to the layout of the public
# files: ids out of declaration order, an entity name with dots, units as Adams spells them, a
# modelInput and an initialConditions block before the output.
HAND = """<?xml version="1.0" encoding="UTF-8"?>
<Results xmlns="http://www.mscsoftware.com/:xrf10">
<Bibliography>
<File URI="file://C:/work/van_parallel_travel.res" schema="xrf" version="2.0.0.0" publicationDate="2024-01-05 10:00:00+01:00" />
<Corporation author="MSC.Software" URI="http://www.mscsoftware.com/" />
</Bibliography>
<Analysis name="van_parallel_travel" executionDate="2024-01-05 10:00:00" Solver="Adams 2023.1  Adams Solver (C++)" script="-unknown-">
<Bibliography>
<Application name="Adams Car" version="2023.1.0" />
</Bibliography>
<ModelInfo title="Adams Car testrig" />
<Units angle="deg" length="mm" mass="kg" time="sec" />
<StepMap name="map_001">
<Entity name="time">
<Component name="TIME" unitsValue="sec" id="1" />
</Entity>
<Entity name="toe_angle" entity="toe_angle" entType="Request" objectId="7">
<Component name="left" unitsValue="deg" id="4" />
<Component name="right" unitsValue="deg" id="5" />
</Entity>
<Entity name="wheel_travel" entity="wheel_travel" entType="Request" objectId="8">
<Component name="left" unitsValue="mm" id="2" />
<Component name="right" unitsValue="mm" id="3" />
</Entity>
<Entity name="testrig.left_tire_forces" entity="testrig.left_tire_forces" entType="Request">
<Component name="normal" unitsValue="newton" id="6" />
</Entity>
</StepMap>
<Data name="modelInput_001" id="1">
<Step type="input">
0 0 0 0 0 0
</Step>
</Data>
<Data name="initialConditions_001" id="2">
<Step type="initialConditions">
0 5 5 9 9 0
</Step>
</Data>
<Data name="quasiStatic_001" id="3">
<Step type="quasiStatic">
0
-50 -50
-0.5 0.5
3000
</Step>
<Step type="quasiStatic">
1
0 0
0 0
4000
</Step>
<Step type="quasiStatic">
2
50 50
0.5 -0.5
5000
</Step>
</Data>
<TerminationStatus runTermObject="" runStatus="Successful" />
</Analysis>
<Analysis name="van_step_steer" executionDate="2024-01-05 10:05:00" Solver="Adams 2023.1  Adams Solver (C++)" script="-unknown-">
<Bibliography>
<Application name="Adams Car" version="2023.1.0" />
</Bibliography>
<Units angle="deg" length="mm" mass="kg" time="sec" />
<StepMap name="map_001">
<Entity name="time">
<Component name="TIME" unitsValue="sec" id="1" />
</Entity>
<Entity name="chassis_accelerations" entType="Request">
<Component name="lateral" unitsValue="meter/second**2" id="2" />
<Component name="longitudinal" unitsValue="g" id="3" />
</Entity>
<Entity name="chassis_velocities" entType="Request">
<Component name="yaw" unitsValue="deg/sec" id="4" />
</Entity>
</StepMap>
<Data name="static_001" id="1">
<Step type="static">
0 0 0 0
</Step>
</Data>
<Data name="dynamic_001" id="2">
<Step type="dynamic">
0.01 1.5 0.1 2
</Step>
<Step type="dynamic">
0.02 3.0E+00 -1.0000000000000001E-01 4
</Step>
</Data>
</Analysis>
</Results>
"""


def _write(tmp_path, text, name="hand.res"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_hand_written_file_two_analyses_in_si(tmp_path):
    path = _write(tmp_path, HAND)
    res = read_xrf(path, ["time.TIME", "wheel_travel.left", "toe_angle.right", "testrig.left_tire_forces.normal",
                          "chassis_accelerations.lateral", "chassis_accelerations.longitudinal",
                          "chassis_velocities.yaw"])
    assert [a.name for a in res.analyses] == ["van_parallel_travel", "van_step_steer"]
    assert res.bibliography["Corporation.author"] == "MSC.Software"
    susp, full = res.analyses
    assert (susp.kind, susp.steps, susp.tool, susp.version) == ("quasiStatic", 3, "Adams Car", "2023.1.0")
    assert susp.units == {"angle": "deg", "length": "mm", "mass": "kg", "time": "sec"}
    np.testing.assert_allclose(susp.data["wheel_travel.left"], [-0.05, 0.0, 0.05], rtol=1e-15)
    np.testing.assert_allclose(susp.data["toe_angle.right"], np.radians([0.5, 0.0, -0.5]), rtol=1e-15)
    np.testing.assert_allclose(susp.data["testrig.left_tire_forces.normal"], [3000, 4000, 5000])
    assert susp.channels["toe_angle.left"].id == 4 and susp.channels["toe_angle.left"].unit == "deg"
    assert susp.data_units == {"time.TIME": "s", "wheel_travel.left": "m", "toe_angle.right": "rad",
                               "testrig.left_tire_forces.normal": "N"}
    assert sorted(susp.missing) == ["chassis_accelerations.lateral", "chassis_accelerations.longitudinal",
                                    "chassis_velocities.yaw"]
    assert full.kind == "static+dynamic" and full.steps == 3
    np.testing.assert_allclose(full.data["time.TIME"], [0, 0.01, 0.02])
    np.testing.assert_allclose(full.data["chassis_accelerations.longitudinal"], [0, 0.980665, -0.980665])
    np.testing.assert_allclose(full.data["chassis_velocities.yaw"], np.radians([0, 2, 4]), rtol=1e-15)
    assert full.data_units["chassis_velocities.yaw"] == "rad/s"


def test_declarations_only_and_a_chooser_per_analysis(tmp_path):
    path = _write(tmp_path, HAND)
    res = read_xrf(path)  # () : declarations only
    assert all(a.data == {} for a in res.analyses)
    assert len(res.analysis("van_parallel_travel").channels) == 6
    seen = []
    res = read_xrf(path, lambda a: seen.append(a.name) or ({"toe_angle.left": "rad"} if "travel" in a.name else {}))
    assert seen == ["van_parallel_travel", "van_step_steer"]
    np.testing.assert_allclose(res.analyses[0].data["toe_angle.left"], [-0.5, 0, 0.5])  # unit given: rad
    with pytest.raises(XrfError, match="analysis 'nope' — expected one of van_parallel_travel, van_step_steer"):
        res.analysis("nope")


def test_public_adams_2022_file_channels_units_and_hand_read_values():
    res = read_xrf(PUBLIC, None)
    analysis = res.analysis()
    assert (analysis.name, analysis.tool, analysis.version) == ("ANALYSIS_01", "Adams View", "2022.01.00")
    assert analysis.attributes["Solver"].split()[:2] == ["Adams", "2022.1"]
    assert res.bibliography["File.version"] == "2.0.0.0"
    listing = {c.source: c.unit for c in analysis.channels.values()}
    assert len(listing) == 19
    assert listing["time.TIME"] == "sec" and listing["PART_2_XFORM.Y"] == "inch"
    assert listing["PART_2_XFORM.ACCY"] == "inch/sec**2" and listing["PART_2_XFORM.WX"] == "rad/sec"
    assert analysis.kind == "dynamic" and analysis.steps == 25   # modelInput and initialConditions skipped
    assert analysis.data["time.TIME"][0] == 0.01 and analysis.data["time.TIME"][-1] == 0.25
    # hand-read from the XML, last Step (time 0.25): Y = -12.06541299259351163 inch, VY = -96.52214567500006126
    # inch/sec, ACCY = -386.08858270000007451 inch/sec**2
    assert analysis.data["PART_2_XFORM.Y"][-1] == pytest.approx(-12.06541299259351163 * INCH, rel=1e-15)
    assert analysis.data["PART_2_XFORM.VY"][-1] == pytest.approx(-96.52214567500006126 * INCH, rel=1e-15)
    assert analysis.data["PART_2_XFORM.ACCY"][-1] == pytest.approx(-9.80665, rel=1e-9)
    assert analysis.data_units["PART_2_XFORM.ACCY"] == "m/s^2"


def _broken(text, old, new):
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("change, message", [
    (lambda t: t[: t.index("<Step type=\"quasiStatic\">") + 60], r"hand.res:\d+: not well-formed XML .* truncated"),
    (lambda t: _broken(t, 'name="left" unitsValue="mm" id="2"', 'name="left" id="2"'),
     r"Component wheel_travel.left \(line 22\) has no unitsValue — expected a unit"),
    (lambda t: _broken(t, "<Step type=\"dynamic\">\n0.02", "<Step type=\"dynamic\">\n0.005"),
     r"hand.res:\d+: TIME 0.005 after 0.01 \(line \d+\) in analysis 'van_step_steer' — expected time that does not"),
    (lambda t: _broken(t, "0\n-50 -50\n", "0\n-50\n"), r"hand.res:40: Step has 5 values — expected 6"),
    (lambda t: _broken(t, "0\n-50 -50\n", "0\n-50 abc\n"), r"hand.res:40: Step value 'abc' is not a number"),
    (lambda t: _broken(t, "0\n-50 -50\n", "0\nnan -50\n"), r"hand.res:40: wheel_travel.left is nan — expected a finite"),
    (lambda t: _broken(t, 'name="normal" unitsValue="newton" id="6"', 'name="normal" unitsValue="newton" id="5"'),
     r"hand.res:26: Component testrig.left_tire_forces.normal id 5 \(already toe_angle.right\) — expected a unique"),
    (lambda t: _broken(t, 'name="normal" unitsValue="newton" id="6"', 'name="normal" unitsValue="newton" id="7"'),
     r"StepMap 'map_001' has no Component with id 6 — expected ids 1..7 without gaps"),
    (lambda t: _broken(t, '<Component name="right" unitsValue="deg" id="5" />', '<Component name="left" unitsValue="deg" id="5" />'),
     r"hand.res:13: Component toe_angle.left declared 2 times \(ids 4, 5\) — expected each ENTITY.COMPONENT once"),
    (lambda t: _broken(t, "</StepMap>\n<Data name=\"modelInput_001\"", "</StepMap>\n<StepMap name=\"m2\"></StepMap>\n<Data name=\"modelInput_001\""),
     r"hand.res:29: a second StepMap in analysis 'van_parallel_travel'"),
    (lambda t: _broken(t, 'unitsValue="mm" id="2"', 'unitsValue="furlong" id="2"'),
     r"Component wheel_travel.left: unit 'furlong': 'furlong' is not a unit name"),
    (lambda t: _broken(_broken(t, "<Results xmlns", "<Resultate xmlns"), "</Results>", "</Resultate>"),
     r"hand.res:2: root element <Resultate> — expected <Results"),
])
def test_bad_files_give_one_line_naming_file_place_and_expectation(tmp_path, change, message):
    path = _write(tmp_path, change(HAND))
    with pytest.raises(XrfError, match=message) as info:
        read_xrf(path, ["wheel_travel.left", "toe_angle.left", "testrig.left_tire_forces.normal"])
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_a_component_without_units_is_fine_until_asked_for_and_a_unit_can_be_given(tmp_path):
    # VI-CarRealTime writes unitsValue="" with the unit only in plotLabel
    text = _broken(HAND, 'name="normal" unitsValue="newton" id="6"', 'name="normal" unitsValue="" plotLabel="(kN)" id="6"')
    path = _write(tmp_path, text)
    assert read_xrf(path, ["toe_angle.left"]).analyses[0].channels["testrig.left_tire_forces.normal"].unit is None
    with pytest.raises(XrfError, match="normal .*has no unitsValue"):
        read_xrf(path, ["testrig.left_tire_forces.normal"])
    res = read_xrf(path, ["testrig.left_tire_forces.normal"], units={"testrig.left_tire_forces.normal": "kN"})
    np.testing.assert_allclose(res.analyses[0].data["testrig.left_tire_forces.normal"], [3e6, 4e6, 5e6])


def test_missing_file_and_empty_file(tmp_path):
    with pytest.raises(XrfError, match="no such file"):
        read_xrf(tmp_path / "none.res")
    with pytest.raises(XrfError, match="empty.res:1: not well-formed XML"):
        read_xrf(_write(tmp_path, "", "empty.res"))


def test_writer_round_trip_units_and_several_analyses(tmp_path):
    path = tmp_path / "out" / "w.res"
    t = np.linspace(0.0, 1.0, 101)
    toe = 0.01 * np.sin(7 * t)
    with XrfWriter(path, tool="pybridge", version="9") as out:
        out.begin_analysis("a_parallel_travel", [("time", "TIME", "sec"), ("toe_angle", "left", "deg"),
                                                 ("wheel_travel", "left", "mm"), ("toe_angle", "right", "deg")],
                           kind="quasiStatic")
        out.steps(np.c_[t, toe, t - 0.5, -toe][:50])
        out.steps(np.c_[t, toe, t - 0.5, -toe][50:])
        out.end_analysis()
        out.begin_analysis("b_step_steer", [("time", "TIME", "sec"), ("ch.x", "lateral", "g")])
        out.steps(np.c_[t, 3 * t])
        out.end_analysis()
    res = read_xrf(path, None)
    a, b = res.analyses
    assert (a.name, a.kind, a.steps, a.tool, a.version) == ("a_parallel_travel", "quasiStatic", 101, "pybridge", "9")
    assert a.channels["toe_angle.right"].id == 3 and a.channels["wheel_travel.left"].id == 4  # grouped by entity
    np.testing.assert_allclose(a.data["toe_angle.left"], toe, rtol=1e-15, atol=1e-18)
    np.testing.assert_allclose(a.data["toe_angle.right"], -toe, rtol=1e-15, atol=1e-18)
    np.testing.assert_allclose(a.data["wheel_travel.left"], t - 0.5, rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(b.data["ch.x.lateral"], 3 * t, rtol=1e-15)
    assert b.kind == "dynamic"


def test_writer_is_atomic_and_refuses_bad_rows(tmp_path):
    path = tmp_path / "w.res"
    path.write_text("old")
    with pytest.raises(XrfError, match="3 values per step — expected 2"):
        with XrfWriter(path) as out:
            out.begin_analysis("x", [("time", "TIME", "sec"), ("a", "b", "mm")])
            out.steps([[0.0, 1.0, 2.0]])
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["w.res"]
    with pytest.raises(XrfError, match="NaN or infinite"):
        with XrfWriter(path) as out:
            out.begin_analysis("x", [("time", "TIME", "sec"), ("a", "b", "mm")])
            out.steps([[0.0, math.nan]])
    with pytest.raises(XrfError, match=r"channel a.b: unit 'parsec'"):
        with XrfWriter(path) as out:
            out.begin_analysis("x", [("time", "TIME", "sec"), ("a", "b", "parsec")])
    assert path.read_text() == "old"


def test_cli_show_lists_every_channel_with_its_unit_and_plots_one(tmp_path, capsys):
    from pybridge.cli import main
    png = tmp_path / "y.png"
    assert main(["mbm", "show", str(PUBLIC), "--plot", "PART_2_XFORM.Y", "-o", str(png)]) == 0
    out = capsys.readouterr().out
    assert "analysis ANALYSIS_01: Adams View 2022.01.00, dynamic, 25 steps, 19 channels" in out
    assert "  PART_2_XFORM.ACCY [inch/sec**2]" in out and "  time.TIME [sec]" in out
    assert sum(line.startswith("  PART_2_XFORM.") for line in out.splitlines()) == 18
    assert png.stat().st_size > 5000 and png.read_bytes()[:4] == b"\x89PNG"
    assert main(["mbm", "show", str(PUBLIC), "--plot", "PART_9.Y", "-o", str(png)]) == 2
    assert "no channel PART_9.Y — expected ENTITY.COMPONENT" in capsys.readouterr().err
