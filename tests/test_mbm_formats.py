"""K&C results CSV, mass table CSV and driveline YAML (pybridge.mbm.kc_results, mass_table, driveline_data)."""
from __future__ import annotations

import contextlib
import math
import re
import zlib

import numpy as np
import pandas as pd
import pytest
import yaml

from pybridge import fileio
from pybridge.mbm.driveline_data import (
    BrakeData,
    DrivelineData,
    EngineData,
    GearboxData,
    driveline_from_dict,
    read_driveline,
    write_driveline,
    yaml_key_lines,
)
from pybridge.mbm.errors import MBMDataError
from pybridge.mbm.kc_results import (
    TESTS,
    KCResults,
    kc_channel_names,
    read_kc_results,
    required_channels,
    write_kc_results,
)
from pybridge.mbm.mass_table import MassTable, read_mass_table, write_mass_table

DEG = math.pi / 180

# line 5: the column names, lines 6-10: the rows
KC_PARALLEL = """\
# format: vehiclertm-kc 1
# test: parallel_travel
# axle: front
# source: lcv35 MBM, Adams/Car 2023
wheel_travel_left [mm],wheel_travel_right [mm],wheel_load_left [N],wheel_load_right [N],toe_left [deg],toe_right [deg],camber_left [deg],camber_right [deg],spring_length_left [mm]
-100.0,-100.2,1200,1210,0.5,0.52,-1.2,-1.25,380
-50.0,-50.0,3200,3210,0.2,0.21,-0.8,-0.82,355
0,0,5200,5210,0.0,0.0,-0.5,-0.5,330
50.0,50.1,7200,7210,-0.3,-0.31,-0.1,-0.12,305
100.0,100.0,9200,9210,-0.7,-0.72,0.3,0.31,280
"""
COLUMN_LINE, FIRST_ROW = 5, 6

KC_COMPLIANCE = """\
# format: vehiclertm-kc 1
# test: compliance_fy
# axle: rear
# loaded_side: left
wheel_travel_left [mm],wheel_travel_right [mm],wheel_load_left [kN],wheel_load_right [kN],fx_left [N],fy_left [kN],mz_left [N m],toe_left [rad],toe_right [rad],camber_left [deg],camber_right [deg],wheel_centre_y_left [m]
1.2,-0.4,5.1,5.0,0,-4,12,0.002,-0.001,-0.3,-0.1,0.801
0.6,-0.2,5.1,5.0,0,-2,6,0.001,-0.0005,-0.2,-0.1,0.8005
0,0,5.1,5.0,0,0,0,0,0,-0.1,-0.1,0.8
-0.6,0.2,5.1,5.0,0,2,-6,-0.001,0.0005,0.0,-0.1,0.7995
"""

MASSES = """\
# format: vehiclertm-masses 1
# vehicle: lcv35
# frame: ISO 8855 vehicle axes at design position, origin on the ground below the front axle centre
body,class,axle,side,mass [kg],x [mm],y [mm],z [mm],ixx [kg m^2],iyy [kg m^2],izz [kg m^2],ixy [kg m^2],ixz [kg m^2],iyz [kg m^2]
ges_body,sprung,none,centre,1850,1620,0,780,520,2300,2450,0,-35,0
hub_fl,unsprung,front,left,32,0,820,330,0.4,0.6,0.4,0,0,0
hub_fr,unsprung,front,right,32,10,-820,330,0.4,0.6,0.4,0.01,0,0
lca_fl,linkage,front,left,6,20,600,250,0.02,0.05,0.06,0.001,0,0
rear_axle,unsprung,rear,centre,140,3500,0,340,60,4,60,0,0,0
"""
MASS_COLUMN_LINE = 4

DRIVELINE = """\
format: vehiclertm-driveline 1
engine:
  speed: {unit: rpm, values: [800, 1200, 1600, 2000, 2400, 2800, 3200, 3600, 4000]}
  throttle: {unit: "1", values: [0, 0.25, 0.5, 0.75, 1]}
  torque:
    unit: N m
    values:
      - [-20, -25, -30, -35, -40, -45, -50, -55, -60]
      - [60, 70, 75, 78, 76, 70, 62, 50, 30]
      - [120, 140, 150, 155, 150, 140, 125, 100, 60]
      - [180, 210, 225, 232, 226, 210, 188, 150, 90]
      - [240, 280, 300, 310, 300, 280, 250, 200, 120]
  idle_speed: {unit: rpm, value: 800}
  max_speed: {unit: rpm, value: 4000}
  inertia: {unit: kg m^2, value: 0.3}
gearbox:
  ratios: [5.0, 2.8, 1.7, 1.2, 1.0, 0.8]
  final_drive: 4.1
  efficiency: 0.92
  upshift_speed: {unit: rpm, value: 3200}
  downshift_speed: {unit: rpm, value: 1300}
  driven_axle: rear
brakes:
  front_torque_per_pedal: {unit: N m, value: 9000}   # per wheel at pedal = 1
  rear_torque_per_pedal: {unit: N m, value: 6000}
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def _replace_line(text, number, new):
    lines = text.splitlines()
    lines[number - 1] = new
    return "\n".join(lines) + "\n"


def _replace_cell(text, line, column, new):
    cells = text.splitlines()[line - 1].split(",")
    cells[column - 1] = new
    return _replace_line(text, line, ",".join(cells))


@contextlib.contextmanager
def _raises_at(path, line, column=None, pattern=""):
    """An MBMDataError ``path:line[:column]: ...pattern...`` that says what is expected."""
    place = f"{line}" if column is None else f"{line}:{column}"
    with pytest.raises(MBMDataError, match=rf"^{re.escape(str(path))}:{place}: .*{pattern}") as info:
        yield info
    assert " — expected " in str(info.value)


def _listing(folder):
    return sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------------------------
# K&C results: reading, units, round trips
# --------------------------------------------------------------------------------------------

def test_kc_read_in_si(tmp_path):
    path = _write(tmp_path, "front_parallel.csv", KC_PARALLEL)
    kc = read_kc_results(path)
    assert (kc.test, kc.axle, kc.loaded_side, kc.path) == ("parallel_travel", "front", None, path)
    assert kc.metadata == {"source": "lcv35 MBM, Adams/Car 2023"}
    assert kc.units["toe_left"] == "deg" and kc.units["wheel_load_left"] == "N"
    assert kc.sweep == "wheel_travel_left"
    np.testing.assert_allclose(kc.data["wheel_travel_left"], [-0.1, -0.05, 0.0, 0.05, 0.1], rtol=1e-15)
    assert kc.data["toe_left"][0] == pytest.approx(0.008726646259971648, rel=1e-15)  # 0.5 deg
    assert kc.data["spring_length_left"][0] == pytest.approx(0.38, rel=1e-15)
    assert list(kc.data["wheel_load_right"]) == [1210.0, 3210.0, 5210.0, 7210.0, 9210.0]


def test_kc_compliance_file(tmp_path):
    kc = read_kc_results(_write(tmp_path, "rear_fy.csv", KC_COMPLIANCE))
    assert (kc.test, kc.axle, kc.loaded_side, kc.sweep) == ("compliance_fy", "rear", "left", "fy_left")
    assert list(kc.data["fy_left"]) == [-4000.0, -2000.0, 0.0, 2000.0]
    assert list(kc.data["wheel_load_left"]) == [5100.0] * 4
    assert kc.data["camber_left"][0] == pytest.approx(-0.3 * DEG, rel=1e-15)
    assert kc.data["toe_left"][0] == 0.002


def test_kc_file_in_m_rad_equals_file_in_mm_deg(tmp_path):
    rows = [[float(v) for v in line.split(",")] for line in KC_PARALLEL.splitlines()[FIRST_ROW - 1:]]
    si_rows = []
    for row in rows:
        si_rows.append([row[0] / 1000, row[1] / 1000, row[2] / 1000, row[3] / 1000,
                        *np.deg2rad(row[4:8]).tolist(), row[8] / 1000 / 0.0254])
    header = ("wheel_travel_left [m],wheel_travel_right [m],wheel_load_left [kN],wheel_load_right [kN],"
              "toe_left [rad],toe_right [rad],camber_left [rad],camber_right [rad],spring_length_left [in]")
    text = "\n".join(KC_PARALLEL.splitlines()[:COLUMN_LINE - 1] + [header]
                     + [",".join(repr(v) for v in row) for row in si_rows]) + "\n"
    in_si = read_kc_results(_write(tmp_path, "si.csv", text))
    in_mm = read_kc_results(_write(tmp_path, "mm.csv", KC_PARALLEL))
    pd.testing.assert_frame_equal(in_si.data, in_mm.data, rtol=1e-12, atol=0)
    assert in_si.units["toe_left"] == "rad" and in_si.units["spring_length_left"] == "in"


def _kc_frame(test, rng, n=7):
    """Random, valid data of a test (SI), with the metadata in attrs."""
    sweep = np.sort(rng.uniform(-1, 1, n)) * rng.choice([1, -1])
    data = {c: rng.normal(0, 1, n) * scale for c, scale in
            (("wheel_load_left", 5e3), ("wheel_load_right", 5e3), ("toe_left", 0.01), ("toe_right", 0.01),
             ("camber_left", 0.02), ("camber_right", 0.02), ("damper_length_right", 0.4),
             ("kingpin_inclination_left", 0.2), ("spring_force_left", 1e4))}
    travel = 0.1 * sweep
    data["wheel_travel_left"] = travel
    data["wheel_travel_right"] = {"parallel_travel": travel + rng.uniform(-4e-4, 4e-4, n),
                                  "opposite_travel": -travel}.get(test, rng.normal(0, 0.01, n))
    side = None
    if test == "rack_travel":
        data["rack_travel"] = 0.08 * sweep
        data["wheel_travel_left"] = rng.normal(0, 0.01, n)
    if test.startswith("compliance"):
        side = str(rng.choice(["left", "right"]))
        for name, scale in (("fx", 3e3), ("fy", 3e3), ("mz", 300)):
            data[f"{name}_{side}"] = rng.normal(0, scale, n)
        data[f"{test.removeprefix('compliance_')}_{side}"] = 4e3 * sweep
        data["wheel_travel_left"] = rng.normal(0, 0.01, n)
    frame = pd.DataFrame(data)
    frame.attrs.update(test=test, axle=str(rng.choice(["front", "rear"])), source="random test data",
                       model="lcv35")
    if side:
        frame.attrs["loaded_side"] = side
    return frame


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("units", [None, {"length": "in", "angle": "rad", "force": "lbf", "moment": "kN m"},
                                   {"length": "cm", "toe_left": "rad", "force": "kN", "moment": "Nm"}])
def test_kc_round_trip(tmp_path, test, units):
    rng = np.random.default_rng(zlib.crc32(f"{test}{units}".encode()))
    frame = _kc_frame(test, rng)
    path = write_kc_results(frame, tmp_path / "kc.csv", units=units)
    back = read_kc_results(path)
    assert (back.test, back.axle, back.loaded_side) == (test, frame.attrs["axle"], frame.attrs.get("loaded_side"))
    assert back.metadata == {"source": "random test data", "model": "lcv35"}
    pd.testing.assert_frame_equal(back.data, frame, rtol=1e-9, atol=0, check_like=False)
    expected_length = (units or {}).get("length", "mm")
    assert back.units["wheel_travel_left"] == expected_length
    # a KCResults writes back the same
    again = read_kc_results(write_kc_results(back, tmp_path / "again.csv", units=units))
    pd.testing.assert_frame_equal(again.data, back.data, rtol=1e-9, atol=0)


def test_kc_channel_names_and_required_channels():
    names = kc_channel_names()
    assert "toe_left" in names and "rack_travel" in names and "rack_travel_left" not in names
    assert len(names) == len(set(names)) == 20 * 2 + 1
    assert "rack_travel" in required_channels("rack_travel")
    assert {"fx_right", "fy_right", "mz_right"} <= set(required_channels("compliance_mz", "right"))
    assert "fx_left" not in required_channels("parallel_travel")


# --------------------------------------------------------------------------------------------
# K&C results: malformed files
# --------------------------------------------------------------------------------------------

def _kc_header_with(column, new):
    cells = KC_PARALLEL.splitlines()[COLUMN_LINE - 1].split(",")
    cells[column - 1] = new
    return _replace_line(KC_PARALLEL, COLUMN_LINE, ",".join(cells))


@pytest.mark.parametrize("text, line, column, pattern", [
    (_replace_line(KC_PARALLEL, 1, "# format: vehiclertm-kc 2"), 1, None,
     r"format 'vehiclertm-kc 2' — expected 'vehiclertm-kc 1'"),
    (_replace_line(KC_PARALLEL, 1, "# exported by hand"), COLUMN_LINE, None,
     r"no '# format:' line before the column names — expected '# format: vehiclertm-kc 1'"),
    (_replace_line(KC_PARALLEL, 2, "#"), COLUMN_LINE, None, r"no '# test:' line .* expected '# test: '"),
    (_replace_line(KC_PARALLEL, 2, "# test: parallel_trave"), 2, None,
     r"test 'parallel_trave' — expected one of parallel_travel, opposite_travel"),
    (_replace_line(KC_PARALLEL, 3, "# axle: middle"), 3, None, r"axle 'middle' — expected one of front, rear"),
    (_replace_line(KC_PARALLEL, 3, "# some note"), COLUMN_LINE, None, r"no '# axle:' line"),
    (_replace_line(KC_PARALLEL, 4, "# axle: rear"), 4, None,
     r"duplicate header key 'axle' \(first on line 3\) — expected each key once"),
    (_replace_line(KC_PARALLEL, 4, "# loaded_side: left"), 4, None,
     r"loaded_side in the parallel_travel test — expected it only in the compliance tests"),
    (_replace_line(KC_COMPLIANCE, 4, "# no side"), COLUMN_LINE, None,
     r"no '# loaded_side:' line .* expected .*left, right"),
    (_replace_line(KC_COMPLIANCE, 4, "# loaded_side: both"), 4, None,
     r"loaded_side 'both' — expected one of left, right"),
])
def test_kc_bad_header(tmp_path, text, line, column, pattern):
    path = _write(tmp_path, "kc.csv", text)
    with _raises_at(path, line, column, pattern):
        read_kc_results(path)


@pytest.mark.parametrize("column, new, pattern", [
    (5, "tow_left [deg]", r"unknown channel 'tow_left' \(did you mean toe_left\?\) — expected one of .*toe_left"),
    (5, "toe_left [grad]", r"unit 'grad' of toe_left — expected a unit of angle: 'deg' or 'rad'"),
    (5, "toe_left [mm]", r"unit 'mm' of toe_left — expected a unit of angle"),
    (3, "wheel_load_left [N m]", r"unit 'N m' of wheel_load_left — expected a unit of force: 'n', 'kn' or 'lbf'"),
    (1, "wheel_travel_left [1]",
     r"unit '1' of wheel_travel_left — expected a unit of length: 'mm', 'cm', 'm' or 'in'"),
    (5, "toe_left", r"column toe_left has no unit — expected 'toe_left \[unit\]'"),
    (5, "toe left [deg]", r"column name 'toe left \[deg\]' — expected 'name \[unit\]'"),
    (6, "toe_left [deg]", r"duplicate column toe_left \(first in column 5\) — expected each column once"),
])
def test_kc_bad_column(tmp_path, column, new, pattern):
    path = _write(tmp_path, "kc.csv", _kc_header_with(column, new))
    with _raises_at(path, COLUMN_LINE, column, pattern):
        read_kc_results(path)


def test_kc_missing_required_channel(tmp_path):
    path = _write(tmp_path, "kc.csv", _kc_header_with(8, "caster_right [deg]"))
    with _raises_at(path, COLUMN_LINE, None, r"no column camber_right — expected the channels .*camber_right"):
        read_kc_results(path)
    text = KC_COMPLIANCE.replace("mz_left [N m]", "mz_right [N m]")
    path = _write(tmp_path, "fy.csv", text)
    with _raises_at(path, COLUMN_LINE, None, r"no column mz_left — expected .* in the compliance_fy test"):
        read_kc_results(path)


@pytest.mark.parametrize("column, value, pattern", [
    (5, "NaN", r"toe_left is NaN — expected a finite number"),
    (7, "inf", r"camber_left is inf — expected a finite number"),
    (3, "", r"empty cell in column wheel_load_left — expected a number"),
    (9, "3o5", r"spring_length_left '3o5' is not a number — expected a real number"),
])
def test_kc_bad_cell(tmp_path, column, value, pattern):
    path = _write(tmp_path, "kc.csv", _replace_cell(KC_PARALLEL, FIRST_ROW + 2, column, value))
    with _raises_at(path, FIRST_ROW + 2, column, pattern):
        read_kc_results(path)


def test_kc_bad_rows(tmp_path):
    path = _write(tmp_path, "short.csv", _replace_line(KC_PARALLEL, 8, "0,0,5200,5210,0.0,0.0,-0.5,-0.5"))
    with _raises_at(path, 8, None, r"8 values — expected 9, one per column of line 5"):
        read_kc_results(path)
    one_row = "\n".join(KC_PARALLEL.splitlines()[:FIRST_ROW]) + "\n"
    path = _write(tmp_path, "one.csv", one_row)
    with _raises_at(path, FIRST_ROW, None, r"1 data row — expected at least 2"):
        read_kc_results(path)
    path = _write(tmp_path, "none.csv", "# format: vehiclertm-kc 1\n# test: rack_travel\n")
    with _raises_at(path, 2, None, r"no column names up to the end of the file — expected"):
        read_kc_results(path)


@pytest.mark.parametrize("left, right, pattern", [
    ("-60.0", "-60.0", r"wheel_travel_left turns or stalls here .* expected a strictly monotonic sweep"),
    ("-50.0", "-50.0", r"turns or stalls"),
])
def test_kc_sweep_not_monotonic(tmp_path, left, right, pattern):
    text = _replace_cell(_replace_cell(KC_PARALLEL, FIRST_ROW + 2, 1, left), FIRST_ROW + 2, 2, right)
    path = _write(tmp_path, "kc.csv", text)
    with _raises_at(path, FIRST_ROW + 2, 1, pattern):
        read_kc_results(path)


def test_kc_compliance_sweep_not_monotonic(tmp_path):
    path = _write(tmp_path, "fy.csv", _replace_cell(KC_COMPLIANCE, 8, 6, "-3"))
    with _raises_at(path, 8, 6, r"fy_left turns or stalls here"):
        read_kc_results(path)


def test_kc_left_right_inconsistent(tmp_path):
    # parallel: 50 mm against 52 mm exceeds 0.5 mm + 1 % (1.02 mm); 50.1 (line 9 as shipped) is within it
    path = _write(tmp_path, "par.csv", _replace_cell(KC_PARALLEL, FIRST_ROW + 3, 2, "52"))
    with _raises_at(path, FIRST_ROW + 3, 2, r"expected wheel_travel_left = wheel_travel_right \(within 0.5 mm"):
        read_kc_results(path)
    # an opposite travel test needs left = -right: the first row already fails
    path = _write(tmp_path, "opp.csv", KC_PARALLEL.replace("parallel_travel", "opposite_travel"))
    with _raises_at(path, FIRST_ROW, 2, r"expected wheel_travel_left = -wheel_travel_right .* opposite_travel"):
        read_kc_results(path)


def test_kc_unreadable_file(tmp_path):
    with pytest.raises(MBMDataError, match=r"missing\.csv: cannot read the file .* expected a readable"):
        read_kc_results(tmp_path / "missing.csv")


# --------------------------------------------------------------------------------------------
# K&C results: writing refuses bad data and never loses the old file
# --------------------------------------------------------------------------------------------

def _bad_kc_frames():
    good = _kc_frame("parallel_travel", np.random.default_rng(1))
    nan = good.copy()
    nan.loc[3, "toe_left"] = np.nan
    turn = good.copy()
    turn.loc[4, ["wheel_travel_left", "wheel_travel_right"]] = good.loc[2, "wheel_travel_left"]
    typo = good.rename(columns={"toe_left": "tow_left"})
    no_side = _kc_frame("compliance_fx", np.random.default_rng(2))
    no_side.attrs.pop("loaded_side")
    return [(nan, None, r"row 3, column toe_left is nan — expected finite numbers"),
            (turn, None, r"row 4, column wheel_travel_left: .* expected a strictly monotonic sweep"),
            (typo, None, r"unknown channel 'tow_left' — expected one of"),
            (no_side, None, r"loaded_side None in the compliance_fx test — expected left or right"),
            (good, {"angle": "grad"}, r"unit 'grad' for toe_left — expected a unit of angle"),
            (good, {"lenght": "m"}, r"units for 'lenght' — expected a channel name or one of length")]


@pytest.mark.parametrize("frame, units, pattern", _bad_kc_frames())
def test_kc_write_refuses_bad_data_and_keeps_the_old_file(tmp_path, frame, units, pattern):
    path = _write(tmp_path, "old.csv", KC_PARALLEL)
    with pytest.raises(MBMDataError, match=rf"^{re.escape(str(path))}: .*{pattern}"):
        write_kc_results(frame, path, units=units)
    assert path.read_text() == KC_PARALLEL and _listing(tmp_path) == ["old.csv"]


def test_failed_writes_leave_old_files_and_no_temporary_files(tmp_path, monkeypatch):
    kc = read_kc_results(_write(tmp_path, "kc.csv", KC_PARALLEL))
    masses = read_mass_table(_write(tmp_path, "m.csv", MASSES))
    driveline = read_driveline(_write(tmp_path, "d.yaml", DRIVELINE))

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", broken_replace)
    for write, data, name, text in ((write_kc_results, kc, "kc.csv", KC_PARALLEL),
                                    (write_mass_table, masses, "m.csv", MASSES),
                                    (write_driveline, driveline, "d.yaml", DRIVELINE)):
        with pytest.raises(OSError):
            write(data, tmp_path / name)
        assert (tmp_path / name).read_text() == text
    assert _listing(tmp_path) == ["d.yaml", "kc.csv", "m.csv"]


# --------------------------------------------------------------------------------------------
# Mass table
# --------------------------------------------------------------------------------------------

def test_mass_table_in_si_and_helpers(tmp_path):
    path = _write(tmp_path, "masses.csv", MASSES)
    table = read_mass_table(path)
    assert table.metadata["vehicle"] == "lcv35" and table.metadata["frame"].startswith("ISO 8855")
    assert table.units["x"] == "mm" and table.units["ixx"] == "kg m^2" and table.path == path
    assert list(table.data["body"]) == ["ges_body", "hub_fl", "hub_fr", "lca_fl", "rear_axle"]
    assert table.data.loc[1, "y"] == 0.82 and table.data.loc[0, "ixz"] == -35.0
    assert table.total_mass == 2060.0
    x = (1850 * 1.62 + 32 * 0.01 + 6 * 0.02 + 140 * 3.5) / 2060
    np.testing.assert_allclose(table.centre_of_gravity,
                               [x, 6 * 0.6 / 2060, (1850 * 0.78 + 64 * 0.33 + 6 * 0.25 + 140 * 0.34) / 2060],
                               rtol=1e-12)
    classes = table.by_class()
    assert list(classes.index) == ["sprung", "unsprung", "linkage"]
    assert classes.loc["linkage", "mass"] == 6.0 and classes.loc["unsprung", "mass"] == 204.0
    # unsprung about its own centre of gravity, by the parallel-axis theorem written out
    rows = table.data[table.data["class"] == "unsprung"]
    m, px, py, pz = (rows[c].to_numpy() for c in ("mass", "x", "y", "z"))
    cx, cy, cz = (m @ p / m.sum() for p in (px, py, pz))
    ixx = np.sum(rows["ixx"] + m * ((py - cy) ** 2 + (pz - cz) ** 2))
    ixy = np.sum(rows["ixy"] + m * (px - cx) * (py - cy))
    assert classes.loc["unsprung", "ixx"] == pytest.approx(ixx, rel=1e-12)
    assert classes.loc["unsprung", "ixy"] == pytest.approx(ixy, rel=1e-12)
    assert classes.loc["unsprung", "x"] == pytest.approx(cx, rel=1e-12)


def test_mass_table_units(tmp_path):
    header = ("body,class,axle,side,mass [t],x [m],y [cm],z [in],ixx [kg mm^2],iyy [kg*mm**2],izz [kg mm^2],"
              "ixy [kg mm^2],ixz [kg mm^2],iyz [kg mm^2]")
    row = "hub_fl,unsprung,front,left,0.032,0.01,82,{z!r},4e5,6e5,4e5,1e4,0,0"
    text = (MASSES.splitlines()[0] + "\n" + header + "\n" + row.format(z=330 / 25.4) + "\n"
            + row.replace("hub_fl", "hub_fr").format(z=330 / 25.4) + "\n")
    odd = read_mass_table(_write(tmp_path, "odd.csv", text)).data
    plain = read_mass_table(_write(tmp_path, "plain.csv", MASSES)).data.iloc[[2]].reset_index(drop=True)
    plain["x"], plain["y"] = 0.01, 0.82
    pd.testing.assert_frame_equal(odd.iloc[[0]].drop(columns=["body", "side"]),
                                  plain.drop(columns=["body", "side"]), rtol=1e-12, atol=0)


def _random_bodies(rng, n=6):
    rows = []
    for i in range(n):
        second_moments = rng.uniform(0.0, 1.0, 3)  # ∫x² dm, ∫y² dm, ∫z² dm of a real body
        principal = second_moments.sum() - second_moments
        rotation = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        tensor = rotation @ np.diag(principal * 10 ** rng.uniform(-2, 3)) @ rotation.T
        cls, axle = [("sprung", "none"), ("unsprung", "front"), ("linkage", "rear")][i % 3]
        rows.append({"body": f"part_{i}", "class": cls, "axle": axle, "side": ["left", "right", "centre"][i % 3],
                     "mass": rng.uniform(0.5, 2000), "x": rng.uniform(-1, 4), "y": rng.uniform(-1, 1),
                     "z": rng.uniform(0, 1.5), "ixx": tensor[0, 0], "iyy": tensor[1, 1], "izz": tensor[2, 2],
                     "ixy": -tensor[0, 1], "ixz": -tensor[0, 2], "iyz": -tensor[1, 2]})
    frame = pd.DataFrame(rows)
    frame.attrs.update(vehicle="random", frame="ISO 8855")
    return frame


@pytest.mark.parametrize("units", [None, {"mass": "t", "length": "in", "inertia": "kg mm^2"},
                                   {"length": "m", "z": "cm", "inertia": "t mm^2", "mass": "g"}])
def test_mass_table_round_trip(tmp_path, units):
    frame = _random_bodies(np.random.default_rng(len(str(units))))
    back = read_mass_table(write_mass_table(frame, tmp_path / "m.csv", units=units))
    pd.testing.assert_frame_equal(back.data, frame, rtol=1e-9, atol=0)
    assert back.metadata == {"vehicle": "random", "frame": "ISO 8855"}
    again = read_mass_table(write_mass_table(back, tmp_path / "again.csv"))
    pd.testing.assert_frame_equal(again.data, back.data, rtol=1e-9, atol=0)
    assert isinstance(again, MassTable) and again.units["mass"] == "kg"


@pytest.mark.parametrize("line, column, value, pattern", [
    (6, 2, "sprng", r"class 'sprng' — expected one of sprung, unsprung, linkage"),
    (6, 3, "middle", r"axle 'middle' — expected one of front, rear, none"),
    (6, 4, "center", r"side 'center' — expected one of left, right, centre"),
    (6, 1, "", r"empty body — expected a body name"),
    (6, 5, "0", r"mass of 'hub_fl' is 0.0 kg — expected a positive mass"),
    (6, 5, "-3", r"mass of 'hub_fl' is -3.0 kg — expected a positive mass"),
    (6, 8, "nan", r"z is nan — expected a finite number"),
    (6, 6, "", r"empty cell in column x — expected a number"),
    (6, 3, "none", r"unsprung body 'hub_fl' has axle none — expected front or rear"),
    (8, 3, "none", r"linkage body 'lca_fl' has axle none — expected front or rear"),
    (7, 1, "hub_fl", r"duplicate body 'hub_fl' \(first at .*:6:1\) — expected unique body names"),
    (6, 9, "-0.4", r"inertia of 'hub_fl' is not physically possible .*negative principal moment.* — expected"),
    (6, 11, "1.5", r"inertia of 'hub_fl' .*triangle inequality\) — expected principal moments ≥ 0"),
    (6, 12, "0.6", r"inertia of 'hub_fl' is not physically possible"),
])
def test_mass_table_bad_row(tmp_path, line, column, value, pattern):
    path = _write(tmp_path, "m.csv", _replace_cell(MASSES, line, column, value))
    expected_column = 9 if "inertia" in pattern else column
    with _raises_at(path, line, expected_column, pattern):
        read_mass_table(path)


@pytest.mark.parametrize("column, name, pattern", [
    (5, "mas [kg]", r"unknown column 'mas' — expected one of body, class"),
    (5, "mass [mm]", r"unit 'mm' of mass — expected 'mass \[unit\]' with a unit of mass: 'kg', 'g' or 't'"),
    (9, "ixx [kg m]", r"unit 'kg m' of ixx — expected .* unit of inertia: 'kg m\^2'"),
    (6, "x", r"unit None of x — expected 'x \[unit\]'"),
    (2, "class [1]", r"column class has a unit \[1\] — expected plain 'class'"),
])
def test_mass_table_bad_column(tmp_path, column, name, pattern):
    path = _write(tmp_path, "m.csv", _replace_cell(MASSES, MASS_COLUMN_LINE, column, name))
    with _raises_at(path, MASS_COLUMN_LINE, column, pattern):
        read_mass_table(path)


def test_mass_table_missing_column_and_format(tmp_path):
    text = "\n".join(line.rsplit(",", 1)[0] for line in MASSES.splitlines()) + "\n"
    text = text.replace("# frame: ISO 8855 vehicle axes at design position", "# frame: ISO 8855")
    path = _write(tmp_path, "m.csv", text)
    with _raises_at(path, MASS_COLUMN_LINE, None, r"no column iyz — expected the columns body, class"):
        read_mass_table(path)
    path = _write(tmp_path, "f.csv", MASSES.replace("vehiclertm-masses 1", "vehiclertm-kc 1"))
    with _raises_at(path, 1, None, r"format 'vehiclertm-kc 1' — expected 'vehiclertm-masses 1'"):
        read_mass_table(path)


def test_mass_table_write_refuses_bad_data(tmp_path):
    path = _write(tmp_path, "old.csv", MASSES)
    frame = _random_bodies(np.random.default_rng(5))
    frame.loc[2, "axle"] = "none"
    with pytest.raises(MBMDataError, match=rf"^{re.escape(str(path))}: row 2, column axle: .*expected front or rear"):
        write_mass_table(frame, path)
    with pytest.raises(MBMDataError, match=r"unknown \['colour'\] — expected exactly body, class"):
        write_mass_table(frame.assign(colour="red"), path)
    with pytest.raises(MBMDataError, match=r"unit 'lb' for mass — expected a unit of mass"):
        write_mass_table(_random_bodies(np.random.default_rng(5)), path, units={"mass": "lb"})
    assert path.read_text() == MASSES and _listing(tmp_path) == ["old.csv"]


# --------------------------------------------------------------------------------------------
# Driveline and brakes
# --------------------------------------------------------------------------------------------

def test_driveline_in_si(tmp_path):
    path = _write(tmp_path, "driveline.yaml", DRIVELINE)
    data = read_driveline(path)
    engine, gearbox, brakes = data.engine, data.gearbox, data.brakes
    assert data.source == str(path)
    np.testing.assert_allclose(engine.speed, np.arange(800, 4001, 400) * 2 * math.pi / 60, rtol=1e-15)
    assert engine.idle_speed == pytest.approx(83.77580409572781, rel=1e-15)
    assert engine.torque.shape == (5, 9) and engine.torque[4, 3] == 310.0 and engine.torque[0, 0] == -20.0
    assert list(engine.throttle) == [0, 0.25, 0.5, 0.75, 1] and engine.inertia == 0.3
    assert list(gearbox.ratios) == [5.0, 2.8, 1.7, 1.2, 1.0, 0.8]
    assert (gearbox.final_drive, gearbox.efficiency, gearbox.driven_axle) == (4.1, 0.92, "rear")
    assert gearbox.upshift_speed == pytest.approx(3200 * math.pi / 30, rel=1e-15)
    assert (brakes.front_torque_per_pedal, brakes.rear_torque_per_pedal) == (9000.0, 6000.0)


def test_driveline_other_units_give_the_same_data(tmp_path):
    text = (DRIVELINE
            .replace("{unit: rpm, values: [800, 1200, 1600, 2000, 2400, 2800, 3200, 3600, 4000]}",
                     "{unit: rad/s, values: [%s]}" % ", ".join(repr(r * math.pi / 30) for r in range(800, 4001, 400)))
            .replace('{unit: "1", values: [0, 0.25, 0.5, 0.75, 1]}', "{unit: '%', values: [0, 25, 50, 75, 100]}")
            .replace("unit: kg m^2, value: 0.3", "unit: kg*mm**2, value: 3.0e+5")
            .replace("{unit: N m, value: 9000}", "{unit: kN m, value: 9}"))
    odd, plain = (read_driveline(_write(tmp_path, name, t)) for name, t in (("o.yaml", text), ("p.yaml", DRIVELINE)))
    np.testing.assert_allclose(odd.engine.speed, plain.engine.speed, rtol=1e-15)
    np.testing.assert_allclose(odd.engine.throttle, plain.engine.throttle, rtol=1e-15)
    assert odd.engine.inertia == pytest.approx(0.3, rel=1e-15)
    assert odd.brakes.front_torque_per_pedal == 9000.0


def _random_driveline(rng):
    speed = np.cumsum(rng.uniform(20, 60, 7)) + 60
    throttle = np.sort(rng.choice(np.linspace(0, 1, 11), 4, replace=False))
    ratios = np.sort(rng.uniform(0.6, 5.5, 5))[::-1]
    idle, top = speed[0] + rng.uniform(0, 5), speed[-1] - rng.uniform(0, 5)
    return DrivelineData(
        EngineData(speed, throttle, rng.normal(150, 80, (4, 7)), idle, top, rng.uniform(0.1, 0.6)),
        GearboxData(ratios, rng.uniform(3, 5), rng.uniform(0.8, 1.0), top - 30, idle + 40, "rear"),
        BrakeData(rng.uniform(2e3, 2e4), rng.uniform(2e3, 2e4)))


@pytest.mark.parametrize("units", [None, {"speed": "rad/s", "moment": "kN m", "inertia": "kg mm^2",
                                          "dimensionless": "%"}])
def test_driveline_round_trip(tmp_path, units):
    data = _random_driveline(np.random.default_rng(11 if units else 12))
    back = read_driveline(write_driveline(data, tmp_path / "d.yaml", units=units))
    for part in ("engine", "gearbox", "brakes"):
        original, read = getattr(data, part), getattr(back, part)
        for name, value in vars(original).items():
            if isinstance(value, str):
                assert getattr(read, name) == value
            else:
                np.testing.assert_allclose(getattr(read, name), value, rtol=1e-9, atol=0, err_msg=name)
    assert yaml.safe_load((tmp_path / "d.yaml").read_text())["format"] == "vehiclertm-driveline 1"


@pytest.mark.parametrize("old, new, line, pattern", [
    ("  final_drive: 4.1", "  final_driv: 4.1", 18,
     r"gearbox\.final_driv: unknown key 'final_driv' — expected one of ratios, final_drive"),
    ("  efficiency: 0.92\n", "", 16, r"gearbox: no key 'efficiency' — expected ratios"),
    ("{unit: rpm, value: 800}", "{unit: rps, value: 800}", 13,
     r"engine\.idle_speed\.unit: unit 'rps' — expected a unit of speed: 'rpm' or 'rad/s'"),
    ("{unit: rpm, value: 800}", "800", 13, r"engine\.idle_speed: int 800 — expected a mapping with unit, value"),
    ("{unit: rpm, value: 800}", "{unit: rpm, values: [800]}", 13,
     r"engine\.idle_speed\.values: unknown key 'values' — expected one of unit, value"),
    ("1200, 1600", "1200, 1100", 3, r"engine\.speed\.values\[2\]: .* expected strictly increasing values"),
    ("[0, 0.25, 0.5, 0.75, 1]", "[0, 0.25, 0.5, 0.75, 1.5]", 4,
     r"engine\.throttle\.values: .*expected values within 0\.\.1"),
    ("      - [240, 280, 300, 310, 300, 280, 250, 200, 120]\n", "", 7,
     r"engine\.torque\.values: 4 rows — expected 5, one per throttle value"),
    ("[60, 70, 75, 78, 76, 70, 62, 50, 30]", "[60, 70, 75, 78, 76, 70, 62, 50]", 9,
     r"engine\.torque\.values\[1\]: 8 values — expected 9, one per engine speed"),
    ("[120, 140, 150,", "[120, 140, abc,", 10, r"engine\.torque\.values\[2\]\[2\]: 'abc' — expected a number"),
    ("value: 0.3", "value: .nan", 15, r"engine\.inertia\.value: nan — expected a finite number"),
    ("value: 0.3", "value: true", 15, r"engine\.inertia\.value: True — expected a number"),
    ("value: 0.3", "value: 0", 15, r"engine\.inertia: 0\.0 — expected a positive value"),
    ("{unit: rpm, value: 4000}", "{unit: rpm, value: 700}", 14,
     r"engine\.max_speed: 700 rpm ≤ idle_speed 800 rpm — expected idle_speed < max_speed"),
    ("[5.0, 2.8, 1.7", "[5.0, 2.8, 2.8", 17,
     r"gearbox\.ratios\[2\]: 2\.8 after 2\.8 .* expected strictly decreasing values \(first gear first\)"),
    ("[5.0, 2.8, 1.7", "[5.0, 2.8, -1.7", 17, r"gearbox\.ratios\[2\]: -1\.7 — expected positive gear ratios"),
    ("efficiency: 0.92", "efficiency: 1.2", 19, r"gearbox\.efficiency: 1\.2 — expected a value in \(0, 1\]"),
    ("{unit: rpm, value: 1300}", "{unit: rpm, value: 3300}", 21,
     r"gearbox\.downshift_speed: 3300 rpm ≥ upshift_speed 3200 rpm — expected downshift_speed < upshift_speed"),
    ("{unit: rpm, value: 3200}", "{unit: rpm, value: 4200}", 20,
     r"gearbox\.upshift_speed: 4200 rpm above engine\.max_speed 4000 rpm — expected"),
    ("driven_axle: rear", "driven_axle: middle", 22, r"gearbox\.driven_axle: 'middle' — expected one of front, rear"),
    ("{unit: N m, value: 6000}", "{unit: N, value: 6000}", 25,
     r"brakes\.rear_torque_per_pedal\.unit: unit 'N' — expected a unit of moment"),
    ("format: vehiclertm-driveline 1", "format: vehiclertm-driveline 2", 1,
     r"format: 'vehiclertm-driveline 2' — expected 'vehiclertm-driveline 1'"),
    ("format: vehiclertm-driveline 1", "# no format", 1,
     r"no 'format' key — expected 'format: vehiclertm-driveline 1'"),
    ("brakes:", "brake:", 23, r"brake: unknown key 'brake' — expected one of engine, gearbox, brakes"),
])
def test_driveline_bad_file(tmp_path, old, new, line, pattern):
    assert old in DRIVELINE
    path = _write(tmp_path, "d.yaml", DRIVELINE.replace(old, new, 1))
    with _raises_at(path, line, None, pattern):
        read_driveline(path)


def test_driveline_yaml_syntax_error_names_line_and_column(tmp_path):
    path = _write(tmp_path, "d.yaml", DRIVELINE.replace("  final_drive: 4.1", "  final_drive: [4.1"))
    with pytest.raises(MBMDataError, match=rf"^{re.escape(str(path))}:19:13: not valid YAML \(expected ','"):
        read_driveline(path)


def test_driveline_embedded_in_another_file(tmp_path):
    body = "\n".join("  " + line for line in DRIVELINE.splitlines()[1:])
    text = f"vehicle: lcv35\nmass: 2060\npowertrain:\n{body}\n"
    document = yaml.safe_load(text)
    lines = yaml_key_lines(text)
    embedded = driveline_from_dict(document["powertrain"], "vehicle.yaml", "powertrain", lines)
    plain = read_driveline(_write(tmp_path, "d.yaml", DRIVELINE))
    np.testing.assert_array_equal(embedded.engine.torque, plain.engine.torque)
    assert embedded.gearbox.downshift_speed == plain.gearbox.downshift_speed
    bad = yaml.safe_load(text.replace("[5.0, 2.8, 1.7", "[5.0, 2.8, 2.9"))
    with _raises_at("vehicle.yaml", 3 + 16, None, r"powertrain\.gearbox\.ratios\[2\]: .* expected strictly decreasing"):
        driveline_from_dict(bad["powertrain"], "vehicle.yaml", "powertrain", lines)
    # without line numbers the key path still says where
    with pytest.raises(MBMDataError, match=r"^<dict>: gearbox\.ratios\[2\]: .* — expected strictly decreasing"):
        driveline_from_dict(bad["powertrain"])


def test_driveline_write_refuses_bad_data(tmp_path):
    path = _write(tmp_path, "old.yaml", DRIVELINE)
    data = _random_driveline(np.random.default_rng(3))
    data.engine.torque[2, 1] = np.nan
    with pytest.raises(MBMDataError,
                       match=rf"^{re.escape(str(path))}: engine\.torque\.values\[2\]\[1\]: nan — expected"):
        write_driveline(data, path)
    data = _random_driveline(np.random.default_rng(3))
    with pytest.raises(MBMDataError, match=r"units 'speed': 'rps' — expected 'rpm' or 'rad/s'"):
        write_driveline(data, path, units={"speed": "rps"})
    data.gearbox.ratios = data.gearbox.ratios[::-1]
    with pytest.raises(MBMDataError, match=r"gearbox\.ratios\[1\]: .* expected strictly decreasing"):
        write_driveline(data, path)
    assert path.read_text() == DRIVELINE and _listing(tmp_path) == ["old.yaml"]


def test_kc_results_dataclass_writes_like_a_frame(tmp_path):
    kc = read_kc_results(_write(tmp_path, "kc.csv", KC_COMPLIANCE))
    assert isinstance(kc, KCResults)
    text = write_kc_results(kc, tmp_path / "out.csv").read_text()
    assert text.startswith("# format: vehiclertm-kc 1\n# test: compliance_fy\n# axle: rear\n# loaded_side: left\n")
    assert "fy_left [N]" in text and "toe_left [deg]" in text
    assert text.splitlines()[5].split(",")[5] == "-4000"
