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
