"""Shared fixtures (the repository paths, a rumoca helper for harnesses written by tests) and the order
in which xdist's workers get the test modules.

A new test that needs an FMU asks for ``native_fmu(model, fmi_type)`` or ``rtm_fmu`` (tests/fmu_helpers.py):
each build is made once per run and shared by both workers through ``fmu_cache``; a build with other options
(integrator, step, user package) goes through ``build_fmu(..., cache_dir=fmu_cache)`` for the same reason.
fmpy's validation of an FMU is tests/fmu_validation.py's ``validate_fmu`` (fmpy's own check of the
variable names costs 31 s CPU on the RTM). A module that takes more than ~20 s CPU goes into LONGEST_FIRST.
"""
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


# `make test` runs `pytest -n 2 --dist loadfile`: each group below goes to one xdist worker whole, so its
# module fixtures (FMU sessions, rumoca runs, a shortened demo) are computed once, not once per worker;
# modules sharing a per-process cache (fmu_helpers.rumoca_vehicle_example) form one group. xdist hands
# the groups out in this order, one to each worker to begin with, then the next to a worker down to its
# last two tests. The first worker starts on rumoca-only physics (test_vehicle, ~3 min) while the second
# builds the RTM FMU most others need (test_fmu_session's first fixture), so neither waits on the other's
# build; the long groups follow, and the other modules, in collection order, one group each, fill the
# two workers up at the end.
LONGEST_FIRST = [
    ("rumoca-vehicle-examples", ["test_vehicle.py", "test_native_rtm.py"]),
    ("fmu-session", ["test_fmu_session.py"]),
    ("demo", ["test_demo.py"]),
    ("lcv70-variant", ["test_convert_variant.py", "test_demo_lcv70.py"]),   # one build of the 7 t variant
    ("user-packages", ["test_user_packages.py"]),
    ("fmu-build", ["test_fmu_build.py"]),
    ("homotopy", ["test_homotopy.py"]),
    ("cosim", ["test_cosim.py"]),
    ("identify-vehicle", ["test_identify_vehicle.py"]),
    ("export", ["test_export.py"]),
    ("compare", ["test_compare.py"]),
    ("reference-vehicle", ["test_reference_vehicle.py"]),
    ("report", ["test_report.py"]),
    ("robustness-vehicles", ["test_robustness_vehicles.py"]),
]
_PLACE = {module: (rank, position, group) for rank, (group, modules) in enumerate(LONGEST_FIRST)
          for position, module in enumerate(modules)}


def pytest_collection_modifyitems(items):
    """The modules of LONGEST_FIRST first, in its order; the order of the tests inside a module is kept."""
    position = {id(item): k for k, item in enumerate(items)}
    items.sort(key=lambda item: (*_PLACE.get(item.path.name, (len(LONGEST_FIRST), 0))[:2], position[id(item)]))


@pytest.hookimpl(optionalhook=True)   # an xdist hook: without xdist (-p no:xdist) it is never called
def pytest_xdist_make_scheduler(config, log):
    """Under ``--dist loadfile``: xdist's file scheduling with the groups of LONGEST_FIRST, handed out in
    collection order (not xdist's default, most tests first)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class ModuleGroups(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            return _PLACE.get(Path(module).name, (0, 0, module))[2]

    config.option.loadscopereorder = False
    return ModuleGroups(config, log)
