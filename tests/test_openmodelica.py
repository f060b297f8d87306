"""The library compiles with OpenModelica too (runs only where the omc compiler is on PATH)."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from fmu_build.modelica import LIBRARY_DIR, LIBRARY_NAME, library_classes

OMC = shutil.which("omc")
pytestmark = pytest.mark.skipif(OMC is None, reason="OpenModelica's omc is not on PATH (it cannot be installed "
                                                    "on these machines); rumoca checks the library instead")
MODELS = [c.name for c in library_classes() if c.kind in ("model", "block") and not c.partial]


def _omc(script: str, tmp_path) -> str:
    path = tmp_path / "check.mos"
    path.write_text(script)
    return subprocess.run([OMC, str(path)], capture_output=True, text=True, timeout=600, check=True).stdout


@pytest.mark.openmodelica
def test_every_model_passes_omc_check_model(tmp_path):
    package = (LIBRARY_DIR / LIBRARY_NAME / "package.mo").as_posix()
    lines = [f'loadFile("{package}"); getErrorString();']
    for name in MODELS:
        lines.append(f'print("@@{name}@@" + checkModel({name}) + getErrorString() + "\\n");')
    output = _omc("\n".join(lines), tmp_path)
    for name in MODELS:
        section = output.split(f"@@{name}@@", 1)[1].split("@@", 1)[0]
        assert "completed successfully" in section and "Error" not in section, f"{name}: {section[:500]}"


@pytest.mark.openmodelica
@pytest.mark.parametrize("layout", ["single file", "folder"])
def test_user_packages_in_either_form_build_with_openmodelica(tmp_path, layout):
    """A single-file package is loaded with loadFile(P.mo), a folder package with loadFile(P/package.mo); the
    FMU of the short class definition runs and has the short class's modifier."""
    from fmpy import simulate_fmu

    from fmu_build.build import build_fmu
    from test_modelica_packages import BAR_SINGLE

    lib = tmp_path / "lib"
    if layout == "single file":
        lib.mkdir()
        (lib / "BarSingle.mo").write_text(BAR_SINGLE)
    else:
        (lib / "BarSingle").mkdir(parents=True)
        (lib / "BarSingle" / "package.mo").write_text(BAR_SINGLE)
    fmu = build_fmu("BarSingle.Heavy", backend="openmodelica", fmi_type="cs", out_dir=tmp_path / "out",
                    cache_dir=tmp_path / "cache", modelica_path=[lib])
    result = simulate_fmu(fmu, stop_time=1.0, output=["z", "m"])
    assert result["m"][0] == 600 and abs(result["z"][0] - 0.05) < 1e-9 and result["z"].min() < 0.0
