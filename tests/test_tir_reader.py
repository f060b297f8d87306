"""The TeimOrbit .tir reader and the Modelica records generated from it."""
from __future__ import annotations

import re

import pytest

from conftest import REPO, TIR_FILE
from pybridge.mbm.tir import (
    MF_PARAMETERS,
    TirError,
    parse_tir,
    read_tir,
    render_coefficients_record,
    render_data_record,
)

TIRES_DIR = REPO / "modelica" / "VehicleRTM" / "Tires"
DATA_DIR = REPO / "modelica" / "VehicleRTM" / "Data" / "Tires"
UAZ_ORIGIN = ("Origin: Project Chrono data/vehicle/uaz/tire/UAZBUS_Pac02Tire.tir, BSD-3-Clause, "
              "Copyright (c) projectchrono.org")

MINIMAL = """\
$ a comment
[UNITS]
LENGTH = 'meter'
FORCE = 'newton'
ANGLE = 'radians'
MASS = 'kg'
TIME = 'second'
[MODEL]
PROPERTY_FILE_FORMAT = 'PAC2002'   $ trailing comment
USE_MODE = 4
[DIMENSION]
UNLOADED_RADIUS = 0.3
[VERTICAL]
FNOMIN = 4000 ! other comment style
"""


def test_real_file_parses_with_the_right_values():
    data = read_tir(TIR_FILE)
    assert data.source == "UAZBUS_Pac02Tire.tir"
    assert data.sections["MODEL"]["PROPERTY_FILE_FORMAT"] == "PAC2002"
    assert data.sections["MODEL"]["USE_MODE"] == 4 and isinstance(data["USE_MODE"], int)
    assert data["TYRESIDE"] == "LEFT"
    assert data["LONGVL"] == 16.6
    assert data["UNLOADED_RADIUS"] == 0.379
    assert data["VERTICAL_STIFFNESS"] == 222954.5455
    assert data["FNOMIN"] == 4000
    assert data["LFZO"] == 1.449275362
    assert data["PDX3"] == -2.2142e-5          # Fortran-style exponent "-2.2142e-005"
    assert data["PKY1"] == -19.797
    assert data["RCX1"] == 1.07816
    assert data["QDZ1"] == 0.062582           # description with a double quote
    assert data["MBELT"] == 4.9
    assert data.mf_version == 52
    assert "CONTACT_MODEL" not in data        # commented out with '!'
    flat = data.flat()
    assert len(flat) == 153   # 5 units, 3 [MODEL] switches, 145 coefficients
    assert data.lines[("LATERAL_COEFFICIENTS", "PKY1")] == 122


def test_every_record_key_of_the_uaz_file_is_known():
    """All numeric keys of the UAZ file land in the record (only [MODEL] strings stay out)."""
    known = {p.key for p in MF_PARAMETERS}
    flat = read_tir(TIR_FILE).flat()
    units = set(read_tir(TIR_FILE).sections["UNITS"])
    left = {k for k in flat if k not in known and k not in units}
    assert left == {"PROPERTY_FILE_FORMAT", "USE_MODE", "TYRESIDE"}


def test_minimal_file_and_comments():
    data = parse_tir(MINIMAL, "mini.tir")
    assert data["PROPERTY_FILE_FORMAT"] == "PAC2002"
    assert data["FNOMIN"] == 4000
    assert data.lines[("VERTICAL", "FNOMIN")] == 14


def test_tables_are_read():
    text = MINIMAL + "[SHAPE]\n{radial width}\n 1.0 0.0\n 1.0 0.4 $ comment\n"
    data = parse_tir(text, "shape.tir")
    assert data.tables["SHAPE"] == [[1.0, 0.0], [1.0, 0.4]]


def test_malformed_line_names_file_and_line():
    text = MINIMAL + "PKY1 -19.797\n"
    with pytest.raises(TirError, match=r"^bad\.tir:15: expected KEY = value"):
        parse_tir(text, "bad.tir")


def test_bad_value_names_file_and_line():
    with pytest.raises(TirError, match=r"^bad\.tir:15: expected a number or a quoted string"):
        parse_tir(MINIMAL + "PKY1 = -19.7.97\n", "bad.tir")
    with pytest.raises(TirError, match=r"^bad\.tir:15: expected a closing '"):
        parse_tir(MINIMAL + "TYRESIDE = 'LEFT\n", "bad.tir")
    with pytest.raises(TirError, match=r"^bad\.tir:15: expected one value"):
        parse_tir(MINIMAL + "PKY1 = 1 2\n", "bad.tir")


def test_duplicate_key_and_key_before_section():
    with pytest.raises(TirError, match=r"^dup\.tir:15: duplicate key FNOMIN in \[VERTICAL\] \(first on line 14\)"):
        parse_tir(MINIMAL + "FNOMIN = 1\n", "dup.tir")
    with pytest.raises(TirError, match=r"^x\.tir:1: expected a \[SECTION\] header before FNOMIN"):
        parse_tir("FNOMIN = 1\n" + MINIMAL, "x.tir")


@pytest.mark.parametrize("section", ["UNITS", "MODEL", "DIMENSION"])
def test_missing_section_is_refused(section):
    text = re.sub(rf"\[{section}\]\n(?:[A-Z_]+ *=.*\n)*", "", MINIMAL)
    with pytest.raises(TirError, match=rf"^nosec\.tir: missing \[{section}\] section"):
        parse_tir(text, "nosec.tir")


def test_non_si_units_are_refused():
    text = MINIMAL.replace("'meter'", "'mm'")
    with pytest.raises(TirError, match=r"^mm\.tir:3: non-SI unit LENGTH = 'mm'"):
        parse_tir(text, "mm.tir")
    text = MINIMAL.replace("'radians'", "'degree'")
    with pytest.raises(TirError, match=r"non-SI unit ANGLE = 'degree'"):
        parse_tir(text, "deg.tir")
    text = MINIMAL.replace("MASS = 'kg'\n", "")
    with pytest.raises(TirError, match=r"\[UNITS\] has no MASS"):
        parse_tir(text, "nomass.tir")


def test_byte_order_mark_and_crlf_are_accepted(tmp_path):
    path = tmp_path / "bom.tir"
    path.write_bytes(b"\xef\xbb\xbf" + MINIMAL.replace("\n", "\r\n").encode())
    assert read_tir(path)["FNOMIN"] == 4000


def test_unreadable_file_names_it(tmp_path):
    with pytest.raises(TirError, match=r"missing\.tir: cannot read the file"):
        read_tir(tmp_path / "missing.tir")


def test_mf61_version_from_fittyp():
    assert parse_tir(MINIMAL.replace("USE_MODE = 4", "FITTYP = 61"), "a.tir").mf_version == 61
    assert parse_tir(MINIMAL.replace("USE_MODE = 4", "FITTYP = 6"), "a.tir").mf_version == 52
    with pytest.raises(TirError, match=r"^a\.tir:10: unsupported FITTYP = 3"):
        _ = parse_tir(MINIMAL.replace("USE_MODE = 4", "FITTYP = 3"), "a.tir").mf_version


def test_record_text_of_the_uaz_file():
    text = render_data_record(read_tir(TIR_FILE), "UAZ")
    assert text.startswith("within VehicleRTM.Data.Tires;\nrecord UAZ ")
    assert "extends VehicleRTM.Tires.MFCoefficients(" in text
    assert "    mfVersion = 52,\n" in text
    assert "    PDX3 = -2.2142e-05,\n" in text
    assert "    VERTICAL_STIFFNESS = 222954.5455,\n" in text
    assert "    MBELT = 4.9);\n" in text
    assert len(re.findall(r"^    \w+ = ", text, re.M)) == 1 + 145   # mfVersion and 145 coefficients


def test_shipped_records_are_the_generated_ones():
    """MFCoefficients.mo and the UAZ record are generated; regenerate them instead of editing."""
    assert (TIRES_DIR / "MFCoefficients.mo").read_text() == render_coefficients_record()
    expected = render_data_record(read_tir(TIR_FILE), "UAZBUS_225_75R16",
                                  description="UAZ Bus tyre 225/75 R16, PAC2002 (from Project Chrono)",
                                  origin_html=UAZ_ORIGIN)
    assert (DATA_DIR / "UAZBUS_225_75R16.mo").read_text() == expected
    assert UAZ_ORIGIN in expected


def test_the_7t_record_is_generated_from_the_7t_tir():
    """Data.Tires.LCV7t_225_75R16C carries exactly the numbers of the .tir the 7 t reference vehicle runs on."""
    shipped = (DATA_DIR / "LCV7t_225_75R16C.mo").read_text()
    tir = read_tir(REPO / "scenarios" / "tires" / "LCV7t_225_75R16C_Pac02Tire.tir")
    generated = render_data_record(tir, "LCV7t_225_75R16C")
    assert shipped[shipped.index("extends"):shipped.index("annotation")] == \
        generated[generated.index("extends"):generated.index("annotation")]
    assert "FNOMIN = 5755," in shipped and "FZMAX = 26000," in shipped
