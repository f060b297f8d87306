"""A user's own Modelica package on the Modelica path (MODELICAPATH, --modelica-path): the worked
example examples/MyVan builds natively (a data-only variant of RTM14DoF), and so does a variant that
changes equations (the native backend generates its C from the Modelica)."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from fmu_build.cli import main
from fmu_build.modelica import use_modelica_path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(autouse=True)
def _no_leftover_path():
    yield
    use_modelica_path([])


@pytest.fixture(scope="module")
def my_van(tmp_path_factory, fmu_cache):
    """MyVan.MyVanModel built through $MODELICAPATH, as the example's documentation says."""
    out = tmp_path_factory.mktemp("my-van")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MODELICAPATH", str(EXAMPLES))
        code = main(["MyVan.MyVanModel", "--backend", "native", "--fmi-type", "cs", "-o", str(out),
                     "--cache-dir", str(fmu_cache)])
    assert code == 0
    return out / "MyVan_MyVanModel.fmu"


def _start(fmu: Path, name: str) -> float:
    description = zipfile.ZipFile(fmu).read("modelDescription.xml").decode()
    return float(re.search(rf'name="{re.escape(name)}"[^>]*>\s*<Real[^>]*start="([^"]+)"', description).group(1))


def test_modelicapath_finds_the_users_package_and_its_data_reaches_the_fmu(my_van):
    assert my_van.is_file()
    # FirmFront's damper (1.3 x QuadLeaf's 5500 N at 1.5 m/s), bound into the axle as in RTM14DoF
    assert _start(my_van, "frontAxleData.damper.force[7]") == pytest.approx(7150.0)
    from fmpy import simulate_fmu

    result = simulate_fmu(str(my_van), stop_time=0.2, output_interval=0.01, output=["vx"])
    assert abs(result["vx"][-1] - result["vx"][0]) < 1.0


def test_the_modelica_path_flag_finds_it_too(my_van, tmp_path, fmu_cache, monkeypatch, capsys):
    monkeypatch.delenv("MODELICAPATH", raising=False)
    out = tmp_path / "out"
    assert main(["MyVan.MyVanModel", "--modelica-path", str(EXAMPLES), "--backend", "native", "--fmi-type", "cs",
                 "-o", str(out), "--cache-dir", str(fmu_cache)]) == 0
    assert (out / "MyVan_MyVanModel.fmu").read_bytes() == my_van.read_bytes()
    assert main(["MyVan.MyVanModel", "--backend", "native", "-o", str(out)]) == 1
    assert "package 'MyVan' not found on the Modelica path" in capsys.readouterr().err


def test_an_equation_changing_variant_builds_natively_from_its_modelica(tmp_path, fmu_cache):
    """A user class that adds an equation: the native backend generates its C from the Modelica, so the
    new variable is in the FMU and follows its equation."""
    from fmpy import simulate_fmu

    package = tmp_path / "lib" / "Probe"
    package.mkdir(parents=True)
    (package / "package.mo").write_text("within;\npackage Probe\nend Probe;\n")
    (package / "package.order").write_text("StiffRig\n")
    (package / "StiffRig.mo").write_text(
        "within Probe;\nmodel StiffRig\n  extends VehicleRTM.QuarterCars.KCRig;\n"
        "  output Real extra(unit = \"m\");\nequation\n  extra = 2*z;\nend StiffRig;\n")
    out = tmp_path / "out"
    assert main(["Probe.StiffRig", "--modelica-path", str(tmp_path / "lib"), "--backend", "native", "--fmi-type", "cs",
                 "-o", str(out), "--cache-dir", str(fmu_cache)]) == 0
    result = simulate_fmu(out / "Probe_StiffRig.fmu", stop_time=0.2, output_interval=0.01, output=["z", "extra"])
    assert result["extra"] == pytest.approx(2 * result["z"], abs=1e-12)


def test_open_sized_axle_maps_have_no_defaults_and_take_their_size_from_the_variant():
    """Audit item 1: OpenModelica sizes a ':' array from its own default when it has one."""
    records = Path(__file__).resolve().parents[1] / "modelica" / "VehicleRTM" / "Suspensions"
    for name in ("KinematicMaps", "ComplianceMaps", "StiffnessMaps", "DamperMap", "StopMap"):
        text = (records / f"{name}.mo").read_text()
        assert not re.search(r"\[:\]\s*=", text), name
        assert not re.search(r"\[size\(\w+, 1\)(, size\(\w+, 1\))?\]\s*=\s*\{", text), name
    from fmu_build.modelica import load_model

    flat = load_model("VehicleRTM.Vehicles.RTM14DoF").to_dict("flat")["variables"]
    assert flat["frontAxle.data.kinematics.toe"]["dims"] == [9, 9]
    assert flat["frontAxle.data.kinematics.toe"]["binding"]["VarRef"]["name"]["name"] == "frontAxleData.kinematics.toe"
    assert flat["rearAxle.data.bumpStop.force"]["dims"] == flat["rearAxleData.bumpStop.force"]["dims"]
