"""The package's public Python API: what the README documents is importable from ``pybridge``, lazily."""
from __future__ import annotations

import subprocess
import sys

import pybridge
from conftest import REPO


def test_readme_api_is_exported_from_the_package_and_is_the_defining_modules_object():
    from pybridge.identify.vehicle import identify_vehicle
    from pybridge.report import write_report

    assert pybridge.identify_vehicle is identify_vehicle and pybridge.write_report is write_report
    readme = (REPO / "README.md").read_text()
    for name in pybridge.__all__:
        assert callable(getattr(pybridge, name)), name
        assert f"`{name}`" in readme or f".{name}`" in readme, f"{name} exported but not in the README"


def test_import_pybridge_loads_no_numerics():
    code = "import sys, pybridge; print(sorted(m for m in ('numpy', 'pandas', 'fmpy', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.strip() == "[]"


def test_unknown_name_is_an_attribute_error():
    try:
        pybridge.no_such_function  # noqa: B018
    except AttributeError as error:
        assert "no_such_function" in str(error)
    else:
        raise AssertionError("pybridge.no_such_function resolved")
