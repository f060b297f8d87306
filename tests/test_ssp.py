"""SSP 1.0: SSV round trip, schema validity of the archive, and libcosim applying the archive's SSV."""
from __future__ import annotations

import zipfile

import numpy as np
import pytest
from lxml import etree

from pybridge.rig.ssp import SSC, SSV, Component, SSPError, read_ssv, validate_ssp, write_ssp, write_ssv

RTM = "VehicleRTM.Vehicles.RTM14DoF"


@pytest.fixture(scope="module")
def full_set(session):
    """Every parameter of the RTM FMU (5000+ values, tables of 1 and 2 dimensions), with the extras a
    converted and identified set carries."""
    params = session.defaults()
    params.metadata = {"source": "tests/test_ssp.py", "created": "2026-01-01T00:00:00Z"}
    params.origins["chassis.Izz"] = "masses.csv: sum of the sprung bodies"
    params.mark_uncertain("chassis.Izz")
    return params


def test_ssv_round_trip_is_exact(full_set, tmp_path):
    first = write_ssv(full_set, tmp_path / "a.ssv")
    back = read_ssv(first)
    assert back == full_set
    assert {n: t.shape for n, t in back.tables.items()} == {n: t.shape for n, t in full_set.tables.items()}
    second = write_ssv(back, tmp_path / "b.ssv")

    def parameters(path):
        return etree.tostring(etree.parse(str(path)).getroot().find(f"{{{SSV}}}Parameters"))
    assert parameters(first) == parameters(second)


def test_ssv_from_another_tool_groups_table_elements(full_set, tmp_path):
    """Without the project's annotation (an SSV edited elsewhere) the name[i,j] elements become tables."""
    path = write_ssv(full_set, tmp_path / "a.ssv")
    tree = etree.parse(str(path))
    root = tree.getroot()
    root.remove(root.find(f"{{{SSV}}}Annotations"))
    root.find(f"{{{SSV}}}Parameters/{{{SSV}}}Parameter[@name='chassis.Izz']/{{{SSV}}}Real").set("value", "2222.5")
    tree.write(str(path))
    back = read_ssv(path)
    assert back.scalars["chassis.Izz"] == 2222.5
    name = "frontAxleData.kinematics.toe"
    assert np.array_equal(back.tables[name], full_set.tables[name])
    assert back.units[name] == full_set.units[name]


def test_bad_ssv_value_names_file_line_and_parameter(full_set, tmp_path):
    path = write_ssv(full_set, tmp_path / "a.ssv")
    text = path.read_text().replace('name="chassis.Izz">\n      <ssv:Real value="',
                                    'name="chassis.Izz">\n      <ssv:Real value="x', 1)
    path.write_text(text)
    with pytest.raises(SSPError, match=r"a\.ssv:\d+: parameter chassis\.Izz: value 'x.*' is not a Real"):
        read_ssv(path)


def test_ssp_archive_is_valid_against_the_ssp_schemas(rtm_fmu, full_set, tmp_path):
    ssp = write_ssp(tmp_path / "van.ssp", [Component("vehicle", rtm_fmu, full_set)], name="van", stop_time=1.0,
                    step=1e-3)
    assert validate_ssp(ssp) == []
    with zipfile.ZipFile(ssp) as archive:
        names = set(archive.namelist())
        ssd = etree.fromstring(archive.read("SystemStructure.ssd"))
    assert {"SystemStructure.ssd", "resources/vehicle.fmu", "resources/vehicle.ssv"} <= names
    units = {u.get("name") for u in ssd.iter(f"{{{SSC}}}Unit")}
    assert {"rad", "m/s", "N"} <= units
    # the schemas are really applied: a connector kind SSP does not know is reported
    broken = tmp_path / "broken.ssp"
    with zipfile.ZipFile(ssp) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "SystemStructure.ssd":
                data = data.replace(b'kind="input"', b'kind="sideways"', 1)
            target.writestr(item, data)
    problems = validate_ssp(broken)
    assert problems and "SystemStructure.ssd" in problems[0] and "sideways" in problems[0]


def test_libcosim_opens_the_ssp_and_applies_its_ssv(rtm_fmu, session, tmp_path):
    """The SSV of a changed set, applied by libcosim to the unchanged FMU, gives what FMUSession.apply gives."""
    pytest.importorskip("libcosimpy", reason="libcosimpy (PyPI) is not installed")
    from pybridge.rig.cosim import cosimulate
    from pybridge.parameters import ParameterSet

    d = session.defaults()
    params = ParameterSet(model=RTM, scalars={"initialSpeed": 15.0,
                                              "chassis.cogHeight": d.scalars["chassis.cogHeight"] * 1.1},
                          tables={"frontAxleData.kinematics.tx": d.tables["frontAxleData.kinematics.tx"] * 1.1})
    ssp = write_ssp(tmp_path / "van.ssp", [Component("vehicle", rtm_fmu, params)], name="van", step=1e-3)
    result = cosimulate(ssp, 0.5)
    session.apply(params)
    direct = session.simulate(None, 0.5, 1e-3, ["speed", "ax", "pitch"])
    for channel in ("speed", "ax", "pitch"):
        assert np.allclose(result.trace[f"vehicle.{channel}"], direct[channel], rtol=1e-12, atol=1e-12), channel
    assert result.trace["vehicle.speed"].iloc[0] == pytest.approx(15.0, abs=0.05)


def test_ssv_command_writes_the_parameter_set(full_set, tmp_path, capsys):
    from pybridge.cli import main
    from pybridge.parameters import read_parameter_set

    ssv = write_ssv(full_set, tmp_path / "vehicle.ssv")
    assert main(["ssv", str(ssv), "-o", str(tmp_path / "set")]) == 0
    assert read_parameter_set(tmp_path / "set") == full_set
    assert main(["ssv", str(tmp_path / "missing.ssv"), "-o", str(tmp_path / "x")]) == 2
    assert "missing.ssv: not a readable XML file" in capsys.readouterr().err


def test_a_parameter_the_fmu_does_not_have_is_refused(rtm_fmu, tmp_path):
    from pybridge.parameters import ParameterSet

    wrong = ParameterSet(model=RTM, scalars={"initialSped": 20.0})
    with pytest.raises(SSPError, match=r"van\.ssp: component vehicle: initialSped is not a parameter of .*\.fmu"):
        write_ssp(tmp_path / "van.ssp", [Component("vehicle", rtm_fmu, wrong)])


def test_an_incomplete_table_is_refused(full_set, tmp_path):
    path = write_ssv(full_set, tmp_path / "a.ssv")
    tree = etree.parse(str(path))
    parameters = tree.getroot().find(f"{{{SSV}}}Parameters")
    parameters.remove(parameters.find(f"{{{SSV}}}Parameter[@name='frontAxleData.kinematics.toe[2,3]']"))
    tree.write(str(path))
    with pytest.raises(SSPError, match=r"a\.ssv: table frontAxleData\.kinematics\.toe: .* do not fill a grid"):
        read_ssv(path)
