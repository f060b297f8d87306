"""pybridge: MBM data to RTM parameters, manoeuvres through FMUs, scoring, identification and reports.

The Python API the README documents, importable from here (loaded on first use, so ``import
pybridge`` stays fast)::

    from pybridge import convert_mbm, identify_vehicle, write_report
    params = convert_mbm("scenarios/mbm/lcv35/mbm")
"""
from __future__ import annotations

import importlib

#: public name -> module that defines it
_API = {
    "run_demo": "pybridge.demo",
    "read_mbm": "pybridge.mbm.dataset", "convert_mbm": "pybridge.convert",
    "ParameterSet": "pybridge.parameters", "read_parameter_set": "pybridge.parameters",
    "FMUSession": "pybridge.simulate.fmu", "run_scenario": "pybridge.simulate.manoeuvres",
    "load_scenario": "pybridge.simulate.scenarios",
    "evaluate_indices": "pybridge.evaluate.kpi", "compare_parameter_sets": "pybridge.evaluate.compare",
    "identify_vehicle": "pybridge.identify.vehicle",
    "write_report": "pybridge.report",
    "export_fmu": "pybridge.rig.export",
    "write_ssp": "pybridge.rig.ssp", "write_ssv": "pybridge.rig.ssp", "read_ssv": "pybridge.rig.ssp", "validate_ssp": "pybridge.rig.ssp",
    "cosimulate": "pybridge.rig.cosim",
}

__all__ = sorted(_API)


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module 'pybridge' has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
