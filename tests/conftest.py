"""Shared fixtures: the repository paths and a rumoca helper for harnesses written by tests."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# The real tyre property file, shipped with the project (copy of ../shared/data/tires, BSD-3, see its README).
TIR_FILE = REPO / "scenarios" / "tires" / "UAZBUS_Pac02Tire.tir"

# The FMU fixtures (native_fmu, fmu_cache) of tests/fmu_helpers.py, for every test module.
pytest_plugins = ("fmu_helpers",)

_counter = itertools.count()


@pytest.fixture(scope="session")
def compile_source(tmp_path_factory):
    """Compile a test-only Modelica model (source text) against the library with rumoca.

    ``model`` is the full name of the class to compile; the file is named after its top-level class,
    so a source holding a package of test records and a harness works too.

    Each model goes in a directory of its own: rumoca resolves every class in the directory of
    the file it loads, so sibling files with the same class name would clash.
    """
    from fmu_build.modelica import compile_source as compile_in

    def _compile(source: str, model: str):
        return compile_in(source, model, tmp_path_factory.mktemp(f"harness{next(_counter)}"))

    return _compile
