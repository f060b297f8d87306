"""pybridge export: a parameter set baked into the RTM FMU reproduces the set applied to the original."""
from __future__ import annotations

import zipfile

import numpy as np
import pytest
from lxml import etree

from conftest import REPO

STEP_STEER = REPO / "scenarios" / "manoeuvres" / "step_steer.yaml"
MANIFEST = REPO / "scenarios" / "mbm" / "lcv35" / "manifest.yaml"


@pytest.fixture(scope="module")
def changed_set(session, tmp_path_factory):
    """A set that moves the step steer: yaw inertia, CoG height, a kinematic map, and a parameter bound
    to another one in the model (steering.ratio = chassis.steeringRatio) pinned to its own value."""
    from pybridge.parameters import ParameterSet, read_parameter_set

    d = session.defaults()
    table = "frontAxleData.kinematics.tx"
    params = ParameterSet(model=d.model, scalars={
        "chassis.Izz": d.scalars["chassis.Izz"] * 1.2, "chassis.cogHeight": d.scalars["chassis.cogHeight"] * 1.05,
        "chassis.steeringRatio": d.scalars["chassis.steeringRatio"] * 1.1,
        "steering.ratio": d.scalars["chassis.steeringRatio"] * 0.9}, tables={table: d.tables[table] * 1.1},
        metadata={"source": "tests/test_export.py"})
    folder = tmp_path_factory.mktemp("set")
    params.write(folder)
    return folder, read_parameter_set(folder)


@pytest.fixture(scope="module")
def baked(rtm_fmu, changed_set, tmp_path_factory):
    from pybridge.rig.export import export_fmu

    folder, params = changed_set
    return export_fmu(params, rtm_fmu, tmp_path_factory.mktemp("export") / "van.fmu", params_path=folder)


def test_baked_fmu_reproduces_the_set_on_the_original(rtm_fmu, baked, changed_set):
    from pybridge.simulate.manoeuvres import ManifestReferences, run_scenario

    _, params = changed_set
    resolve = ManifestReferences(MANIFEST)
    applied = run_scenario(rtm_fmu, STEP_STEER, params, resolve)
    alone = run_scenario(baked, STEP_STEER, None, resolve)
    original = run_scenario(rtm_fmu, STEP_STEER, None, resolve)
    for channel in ("yaw_rate", "ay", "roll", "sideslip", "speed"):
        scale = np.max(np.abs(applied[channel]))
        assert np.max(np.abs(alone[channel] - applied[channel])) <= 1e-9 * scale, channel
    # the set matters: without it the original FMU answers differently
    assert np.max(np.abs(original["yaw_rate"] - applied["yaw_rate"])) > 1e-3 * np.max(np.abs(applied["yaw_rate"]))


def test_baked_fmu_validates_and_records_provenance(rtm_fmu, baked, changed_set, monkeypatch):
    """fmpy's whole validation (schema, model structure, units, start values), except its variable-name
    grammar, which parses each of the 5900 names with an Earley parser (~40 s here): the names are
    asserted identical to the source FMU's, which tests/test_fmu_build.py validates in full."""
    import fmpy.validation
    from fmpy import read_model_description
    from fmpy.validation import validate_fmu

    from pybridge.rig.export import parameter_set_digest

    folder, params = changed_set
    new, old = read_model_description(str(baked)), read_model_description(str(rtm_fmu))
    assert [v.name for v in new.modelVariables] == [v.name for v in old.modelVariables]
    monkeypatch.setattr(fmpy.validation, "_validate_variable_names", lambda description: [])
    assert validate_fmu(str(baked)) == []
    assert new.guid != old.guid
    starts = {v.name: v for v in new.modelVariables}
    assert float(starts["chassis.Izz"].start) == params.scalars["chassis.Izz"]
    assert float(starts["frontAxleData.kinematics.tx[2,3]"].start) == params.tables["frontAxleData.kinematics.tx"][1, 2]
    # a parameter bound to a set one carries the value it runs with
    bound = float(starts["frontAxle.data.kinematics.tx[2,3]"].start)
    assert bound == params.tables["frontAxleData.kinematics.tx"][1, 2]
    with zipfile.ZipFile(baked) as archive:
        root = etree.fromstring(archive.read("modelDescription.xml"))
    record = root.find("VendorAnnotations/Tool[@name='pybridge export']/Provenance")
    assert record.get("sha256") == parameter_set_digest(folder)
    assert record.get("sourceGuid") == old.guid and record.get("parameterSet") == str(folder)
    assert parameter_set_digest(folder) in root.get("description")


def test_an_fmu_without_native_sources_is_refused_with_the_reason(rtm_fmu, changed_set, tmp_path):
    from pybridge.rig.export import ExportError, export_fmu

    stripped = tmp_path / "om.fmu"
    with zipfile.ZipFile(rtm_fmu) as source, zipfile.ZipFile(stripped, "w") as target:
        for item in source.infolist():
            if item.filename != "sources/model_variables.h":
                target.writestr(item, source.read(item))
    with pytest.raises(ExportError, match=r"om\.fmu: sources/model_variables.h is missing.*OpenModelica.*--ssp"):
        export_fmu(changed_set[1], stripped, tmp_path / "van.fmu")
    # the SSP route takes it: the FMU goes in unchanged, the set as its .ssv
    from pybridge.cli import main
    from pybridge.rig.ssp import read_ssv

    assert main(["export", "--params", str(changed_set[0]), "--fmu", str(stripped), "--ssp", str(tmp_path / "om.ssp"),
                 "--quiet"]) == 0
    with zipfile.ZipFile(tmp_path / "om.ssp") as archive:
        assert archive.read("resources/vehicle.fmu") == stripped.read_bytes()
        archive.extract("resources/vehicle.ssv", tmp_path)
    assert read_ssv(tmp_path / "resources" / "vehicle.ssv").scalars == changed_set[1].scalars


def test_an_exported_fmu_is_not_exported_again(baked, changed_set, tmp_path):
    """Its preset parameters would mix two sets: export from the native build instead."""
    from pybridge.rig.export import ExportError, export_fmu

    with pytest.raises(ExportError, match=r"van\.fmu: sources/fmu_info.h: expected one FMU_GUID define and no preset"):
        export_fmu(changed_set[1], baked, tmp_path / "again.fmu")
