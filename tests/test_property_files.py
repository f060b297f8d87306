"""Adams TeimOrbit property files of springs, dampers, bump and rebound stops (pybridge.mbm.property_files)."""
from __future__ import annotations

import os
import re
import zlib

import numpy as np
import pytest

from pybridge import fileio
from pybridge.mbm import property_files
from pybridge.mbm.property_files import (
    PropertyCurve,
    PropertyFileError,
    read_property_file,
    write_property_file,
)
from pybridge.mbm.teimorbit import TeimOrbitError, parse_teimorbit

# line numbers are those of the file (line 1 = "$ spring ...")
SPRING_MM = """\
$ spring of a test axle
[MDI_HEADER]
FILE_TYPE = 'spr'
FILE_VERSION = 4.0
FILE_FORMAT = 'ASCII'
(COMMENTS)
{comment_string}
'hand-made test spring'
[UNITS]
LENGTH = 'mm'
ANGLE = 'degrees'
FORCE = 'newton'
MASS = 'kg'
TIME = 'second'
[SPRING_DATA]
FREE_LENGTH = 312.5   $ mm
[CURVE]
{ disp force }
-50.0  -1250.0
0.0     0.0     ! the design position
50.0    1250.0
100.0   2600.0
"""
FILE_TYPE_LINE, LENGTH_LINE, UNITS_LINE, FREE_LENGTH_LINE, CURVE_LINE, TABLE_LINE = 3, 10, 9, 16, 17, 18
FIRST_ROW = 19
EOF_LINE = SPRING_MM.count("\n")

DAMPER_CM_KN_MS = """\
[MDI_HEADER]
FILE_TYPE = 'dpr'
[UNITS]
LENGTH = 'cm'
FORCE = 'kN'
TIME = 'millisecond'
[CURVE]
{ vel force }
-0.1 -3.5
0 0.25
0.1 2
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def _raises_at(path, line, pattern=""):
    """Context: a PropertyFileError whose message starts with ``path:line:`` and matches ``pattern``."""
    return pytest.raises(PropertyFileError, match=rf"^{re.escape(str(path))}:{line}: .*{pattern}")


def _curve(kind, rng, n=9):
    x = np.sort(rng.uniform(-0.2, 0.2, n))
    x = np.unique(np.round(x, rng.integers(3, 17)))
    force = rng.normal(0.0, 3000.0, len(x))
    scalars = {"spring": {"free_length": float(rng.uniform(0.2, 0.4))},
               "bumpstop": {"clearance": float(rng.uniform(0.0, 0.05))},
               "reboundstop": {"clearance": float(rng.uniform(0.0, 0.05))},
               "damper": {}}[kind]
    return PropertyCurve(kind, x, force, **scalars)


# --------------------------------------------------------------------------------------------
# Reading and unit conversion against hand values
# --------------------------------------------------------------------------------------------

def test_spring_in_mm_converted_to_si(tmp_path):
    path = _write(tmp_path, "front.spr", SPRING_MM)
    curve = read_property_file(path)
    assert curve.kind == "spring"
    assert curve.source == str(path)
    assert curve.columns == ("disp", "force")
    assert curve.x_unit == "m"
    np.testing.assert_array_equal(curve.x, [-0.05, 0.0, 0.05, 0.1])
    np.testing.assert_array_equal(curve.force, [-1250.0, 0.0, 1250.0, 2600.0])
    assert curve.free_length == 0.3125
    assert curve.clearance is None


def test_damper_in_cm_kilonewton_millisecond(tmp_path):
    curve = read_property_file(_write(tmp_path, "d.dpr", DAMPER_CM_KN_MS))
    assert curve.kind == "damper" and curve.x_unit == "m/s"
    # 1 cm/ms = 10 m/s, 1 kN = 1000 N; a curve not through (0, 0) is accepted (friction offset)
    np.testing.assert_array_equal(curve.x, [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(curve.force, [-3500.0, 250.0, 2000.0])


def test_stops_with_clearance_in_metres(tmp_path):
    for ext, kind, block in (("bum", "bumpstop", "BUMPSTOP_DATA"), ("reb", "reboundstop", "REBOUNDSTOP_DATA")):
        text = (f"[MDI_HEADER]\nFILE_TYPE = '{ext}'\n[UNITS]\nLENGTH = 'meter'\nFORCE = 'newton'\n"
                f"[{block}]\nCLEARANCE = 0.025\n[CURVE]\n{{ disp force }}\n0 0\n0.01 500\n0.02 4000\n")
        curve = read_property_file(_write(tmp_path, f"s.{ext}", text))
        assert curve.kind == kind and curve.clearance == 0.025 and curve.free_length is None
        np.testing.assert_array_equal(curve.force, [0.0, 500.0, 4000.0])


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["spring", "damper", "bumpstop", "reboundstop"])
@pytest.mark.parametrize("units", [{"LENGTH": "mm", "FORCE": "newton"},
                                   {"LENGTH": "m", "FORCE": "newton"},
                                   {"LENGTH": "cm", "FORCE": "kN", "TIME": "ms"}])
def test_round_trip_is_exact(tmp_path, kind, units):
    rng = np.random.default_rng(zlib.crc32(f"{kind}{sorted(units.items())}".encode()))
    curve = _curve(kind, rng)
    path = tmp_path / f"part.{property_files.EXTENSIONS[kind]}"
    write_property_file(curve, path, units=units)
    back = read_property_file(path)
    assert back.kind == kind
    np.testing.assert_array_equal(back.x, curve.x)
    np.testing.assert_array_equal(back.force, curve.force)
    assert back.free_length == curve.free_length
    assert back.clearance == curve.clearance
    # and the file is in the units asked for
    text = path.read_text()
    assert f"LENGTH = '{units['LENGTH']}'" in text and f"FORCE = '{units['FORCE']}'" in text


def test_round_trip_of_a_read_file(tmp_path):
    curve = read_property_file(_write(tmp_path, "a.spr", SPRING_MM))
    out = write_property_file(curve, tmp_path / "b.spr")  # default units: mm, newton
    assert "FREE_LENGTH = 312.5" in out.read_text()
    assert "-50 -1250" in out.read_text()
    again = read_property_file(out)
    np.testing.assert_array_equal(again.x, curve.x)
    np.testing.assert_array_equal(again.force, curve.force)
    assert again.free_length == curve.free_length


# --------------------------------------------------------------------------------------------
# Malformed files: file name, line and expectation in one line
# --------------------------------------------------------------------------------------------

def _replace_line(text, number, new):
    lines = text.splitlines()
    lines[number - 1] = new
    return "\n".join(lines) + "\n"


def _drop_lines(text, first, last):
    lines = text.splitlines()
    return "\n".join(lines[:first - 1] + lines[last:]) + "\n"


@pytest.mark.parametrize("block, first, last", [("MDI_HEADER", 2, 8), ("UNITS", 9, 14), ("CURVE", 17, 22)])
def test_missing_block(tmp_path, block, first, last):
    text = _drop_lines(SPRING_MM, first, last)
    path = _write(tmp_path, "m.spr", text)
    with _raises_at(path, text.count("\n"), rf"no \[{block}\] block .* expected"):
        read_property_file(path)


def test_file_type_not_matching_extension(tmp_path):
    path = _write(tmp_path, "front.dpr", SPRING_MM)
    with _raises_at(path, FILE_TYPE_LINE, r"FILE_TYPE = 'spr' .* expected FILE_TYPE = 'dpr'"):
        read_property_file(path)
    path = _write(tmp_path, "nt.spr", _replace_line(SPRING_MM, FILE_TYPE_LINE, "FILE_VERSION_X = 1"))
    with _raises_at(path, 2, r"no FILE_TYPE"):
        read_property_file(path)


def test_unknown_extension(tmp_path):
    path = _write(tmp_path, "front.txt", SPRING_MM)
    with pytest.raises(PropertyFileError, match=r"front\.txt: unknown property file extension .* \.spr"):
        read_property_file(path)


@pytest.mark.parametrize("line, pattern", [
    ("LENGTH = 'inch'", r"unknown LENGTH unit 'inch' — expected 'mm', 'cm' or 'm'"),
    ("LENGTH = 25.4", r"unknown LENGTH unit 25\.4"),
])
def test_unknown_length_unit(tmp_path, line, pattern):
    path = _write(tmp_path, "u.spr", _replace_line(SPRING_MM, LENGTH_LINE, line))
    with _raises_at(path, LENGTH_LINE, pattern):
        read_property_file(path)


def test_unknown_force_and_missing_time(tmp_path):
    path = _write(tmp_path, "f.spr", _replace_line(SPRING_MM, 12, "FORCE = 'lbf'"))
    with _raises_at(path, 12, r"unknown FORCE unit 'lbf' — expected 'newton'/'N' or 'kilonewton'/'kN'"):
        read_property_file(path)
    text = DAMPER_CM_KN_MS.replace("TIME = 'millisecond'\n", "")
    path = _write(tmp_path, "t.dpr", text)
    with _raises_at(path, 3, r"\[UNITS\] has no TIME — expected"):
        read_property_file(path)
    path = _write(tmp_path, "t2.dpr", DAMPER_CM_KN_MS.replace("'millisecond'", "'hour'"))
    with _raises_at(path, 6, r"unknown TIME unit 'hour'"):
        read_property_file(path)


@pytest.mark.parametrize("row, pattern", [
    ("50.0 abc", r"expected a row of numbers"),
    ("50.0 'x'", r"expected a row of numbers"),
    ("50.0 nan", r"force is nan — expected a finite number"),
    ("NaN 1250.0", r"disp is NaN — expected a finite number"),
    ("50.0 inf", r"expected a finite number"),
    ("50.0", r"1 values — expected two"),
    ("50.0 1250.0 3", r"3 values — expected two"),
    ("0.0 1250.0", r"does not increase — expected strictly increasing"),
    ("-60.0 1250.0", r"does not increase — expected strictly increasing"),
])
def test_bad_table_row(tmp_path, row, pattern):
    line = FIRST_ROW + 2
    path = _write(tmp_path, "r.spr", _replace_line(SPRING_MM, line, row))
    with _raises_at(path, line, pattern):
        read_property_file(path)


def test_too_few_points_and_no_table(tmp_path):
    text = _drop_lines(SPRING_MM, FIRST_ROW + 1, FIRST_ROW + 3)
    path = _write(tmp_path, "one.spr", text)
    with _raises_at(path, FIRST_ROW, r"1 point — expected at least 2"):
        read_property_file(path)
    path = _write(tmp_path, "none.spr", _drop_lines(SPRING_MM, FIRST_ROW, FIRST_ROW + 3))
    with _raises_at(path, TABLE_LINE, r"0 points — expected at least 2"):
        read_property_file(path)
    path = _write(tmp_path, "notable.spr", _drop_lines(SPRING_MM, TABLE_LINE, FIRST_ROW + 3))
    with _raises_at(path, CURVE_LINE, r"\[CURVE\] has no table — expected \{ disp force \}"):
        read_property_file(path)
    path = _write(tmp_path, "cols.spr", _replace_line(SPRING_MM, TABLE_LINE, "{ disp force extra }"))
    with _raises_at(path, TABLE_LINE, r"3 columns .* expected two"):
        read_property_file(path)


def test_bad_scalars(tmp_path):
    path = _write(tmp_path, "k.spr", _replace_line(SPRING_MM, FREE_LENGTH_LINE, "CLEARANCE = 3"))
    with _raises_at(path, FREE_LENGTH_LINE, r"unknown key CLEARANCE in \[SPRING_DATA\] — expected FREE_LENGTH"):
        read_property_file(path)
    path = _write(tmp_path, "s.spr", _replace_line(SPRING_MM, FREE_LENGTH_LINE, "FREE_LENGTH = 'long'"))
    with _raises_at(path, FREE_LENGTH_LINE, r"expected a length"):
        read_property_file(path)
    path = _write(tmp_path, "v.spr", _replace_line(SPRING_MM, FREE_LENGTH_LINE, "FREE_LENGTH = 1.2.3"))
    with _raises_at(path, FREE_LENGTH_LINE, r"expected a number or a quoted string"):
        read_property_file(path)


def test_syntax_errors_are_property_file_errors(tmp_path):
    path = _write(tmp_path, "x.spr", _replace_line(SPRING_MM, 13, "MASS 'kg'"))
    with _raises_at(path, 13, r"expected KEY = value"):
        read_property_file(path)
    path = _write(tmp_path, "y.spr", _replace_line(SPRING_MM, 13, "LENGTH = 'm'"))
    with _raises_at(path, 13, r"duplicate key LENGTH in \[UNITS\] \(first on line 10\)"):
        read_property_file(path)


def test_unreadable_file(tmp_path):
    with pytest.raises(PropertyFileError, match=r"missing\.bum: cannot read the file"):
        read_property_file(tmp_path / "missing.bum")


# --------------------------------------------------------------------------------------------
# Writing: validation and no partial files
# --------------------------------------------------------------------------------------------

def _listing(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("curve, units, pattern", [
    (PropertyCurve("spring", [0.0, np.nan], [0.0, 1.0]), None, r"NaN or infinite"),
    (PropertyCurve("spring", [0.0, 0.0], [0.0, 1.0]), None, r"strictly increasing"),
    (PropertyCurve("spring", [0.0], [0.0]), None, r"at least 2"),
    (PropertyCurve("spring", [0.0, 1.0], [0.0]), None, r"same length"),
    (PropertyCurve("spring", [0.0, 1.0], [0.0, 1.0]), {"LENGTH": "inch"}, r"unknown LENGTH unit 'inch'"),
    (PropertyCurve("damper", [0.0, 1.0], [0.0, 1.0]), None, r"expected the extension \.dpr"),
])
def test_write_refuses_bad_curves_and_keeps_the_old_file(tmp_path, curve, units, pattern):
    path = tmp_path / "old.spr"
    path.write_text(SPRING_MM)
    with pytest.raises(PropertyFileError, match=rf"old\.spr: .*{pattern}"):
        write_property_file(curve, path, units=units)
    assert path.read_text() == SPRING_MM
    assert _listing(tmp_path) == ["old.spr"]


def test_failed_write_leaves_no_partial_file(tmp_path, monkeypatch):
    path = tmp_path / "old.spr"
    path.write_text(SPRING_MM)
    good = PropertyCurve("spring", [0.0, 0.1], [0.0, 2000.0], free_length=0.3)

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", broken_replace)
    with pytest.raises(OSError):
        write_property_file(good, path)
    assert path.read_text() == SPRING_MM
    assert _listing(tmp_path) == ["old.spr"]
    monkeypatch.undo()
    write_property_file(good, path)
    assert read_property_file(path).free_length == 0.3
    assert _listing(tmp_path) == ["old.spr"]
    assert os.stat(path).st_mode & 0o777 == 0o644


# --------------------------------------------------------------------------------------------
# The generic TeimOrbit layer
# --------------------------------------------------------------------------------------------

def test_teimorbit_subblocks_text_tables_and_columns():
    data = parse_teimorbit(SPRING_MM, "s.spr")
    assert data.table_info["MDI_HEADER(COMMENTS)"].text == [["hand-made test spring"]]
    assert "MDI_HEADER(COMMENTS)" not in data.tables
    curve = data.table_info["CURVE"]
    assert curve.columns == ["disp", "force"] and curve.line == TABLE_LINE
    assert curve.row_lines == [19, 20, 21, 22]
    assert curve.tokens[0] == ["-50.0", "-1250.0"]
    assert data.tables["CURVE"][3] == [100.0, 2600.0]
    assert data.raw[("SPRING_DATA", "FREE_LENGTH")] == "312.5"
    assert data.section_lines["UNITS"] == UNITS_LINE
    with pytest.raises(TeimOrbitError, match=r"^t:3: expected a row of numbers in the table of \[A\]"):
        parse_teimorbit("[A]\n{ a b }\n1 x\n", "t")
    with pytest.raises(TeimOrbitError, match=r"^t:5: expected a row of quoted strings"):
        parse_teimorbit("[A]\n(C)\n{ s }\n'x'\n1\n", "t")
