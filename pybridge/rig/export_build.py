"""Which build ``pybridge export`` bakes a parameter set into, and how that build is named.

By default the build the identification used: a set written by ``pybridge identify`` or ``pybridge demo``
lies in its run folder (``RUN/params_optimized``), and that folder holds the FMU the identification
evaluated (``RUN/<model>.fmu``, named in ``result.yaml`` or ``run.yaml``). The identification ran it at
its own internal step: the step recorded in the run folder (a key ``identification_step``: a mapping
with ``step_s``, None for the FMU's own step, and ``reason``, as pybridge.identify writes it; or a
number of seconds), else the rule of
``pybridge.identify.problem.identification_step`` for the FMU's integrator, else the FMU's own
``fixedStepSize``. The export bakes that step in as the FMU's ``fixedStepSize`` start value. A set with
no such run folder gets the default native build, and the reason is said.
"""
from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from fmu_build.native_backend import STEP_VARIABLE

__all__ = ["SourceBuild", "describe_build", "identification_build"]

RUN_FILES = ("result.yaml", "run.yaml")


@dataclass
class SourceBuild:
    """The FMU to bake from, the internal step to bake in (None: the FMU's own) and why."""

    fmu: Path | None
    step: float | None
    reason: str


def describe_build(fmu: Path, step: float | None = None) -> str:
    """'RK4 at a 0.01 s internal step (native backend, portable CPU, GUID {...})' from the FMU's model
    description; ``step`` overrides its own fixedStepSize."""
    with zipfile.ZipFile(fmu) as archive:
        root = etree.fromstring(archive.read("modelDescription.xml"),
                                etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    build = root.find("VendorAnnotations/Tool[@name='fmu_build']/Build")
    if build is None:
        return f"{root.get('generationTool', 'an unknown tool')} build (GUID {root.get('guid')}, no internal step stated)"
    inner = step if step is not None else float(build.get(STEP_VARIABLE, "nan"))
    return (f"{build.get('integrator', '?')} at a {inner:g} s internal step ({build.get('backend', '?')} backend, "
            f"{build.get('cpu', 'portable')} CPU, GUID {root.get('guid')})")


def _recorded(run: Path) -> tuple[str | None, object, str]:
    """(FMU name, recorded identification step, file) from the run folder's result.yaml / run.yaml."""
    from pybridge.fileio import read_yaml

    for name in RUN_FILES:
        if not (run / name).is_file():
            continue
        data = read_yaml(run / name)
        if not isinstance(data, dict):
            continue
        steps = data.get("steps") if isinstance(data.get("steps"), list) else []
        fmu = data.get("fmu") or next((s.get("fmu") for s in steps if isinstance(s, dict) and s.get("fmu")), None)
        step = data.get("identification_step")
        if step is None:
            step = next((s["identification_step"] for s in steps if isinstance(s, dict) and
                         "identification_step" in s), None)
        if fmu or step is not None:
            return (Path(str(fmu)).name if fmu else None), step, name
    return None, None, ""


def identification_build(params_dir: str | Path) -> SourceBuild:
    """The build the identification of the set in ``params_dir`` used (see the module doc)."""
    from pybridge.identify.problem import identification_step

    run = Path(params_dir).resolve().parent
    name, step, file = _recorded(run)
    if name is None:
        return SourceBuild(None, None, f"no result.yaml or run.yaml naming an FMU in {run} (the set is not in the "
                                       "run folder of an identification): the default native build")
    fmu = run / name
    if not fmu.is_file():
        return SourceBuild(None, None, f"{run / file} names the FMU {name}, which is not in {run}: the default "
                                       "native build")
    why = ""
    if isinstance(step, dict):   # pybridge.identify: {step_s: seconds or None (the FMU's own), reason: ...}
        why = f" ({step.get('reason')})" if step.get("reason") else ""
        if step.get("step_s", step.get("step")) is None:
            return SourceBuild(fmu, None, f"the FMU the identification evaluated, at its own internal step as {file} "
                                          f"records{why}")
        step = step.get("step_s", step.get("step"))
    try:
        step = float(step) if step is not None else None
    except (TypeError, ValueError):
        raise ValueError(f"{run / file}: identification_step: {step!r}; expected a number of seconds") from None
    if step is not None and not 0 < step <= 1:
        raise ValueError(f"{run / file}: identification_step: {step!r}; expected seconds > 0 and <= 1")
    if step is not None:
        return SourceBuild(fmu, step, f"the FMU the identification evaluated, at the step {file} records{why}")
    step = identification_step(fmu)
    if step is not None:
        return SourceBuild(fmu, step, "the FMU the identification evaluated, at the identification step of its "
                                      "integrator (pybridge.identify.problem.IDENTIFICATION_STEPS)")
    return SourceBuild(fmu, None, "the FMU the identification evaluated, at its own internal step")
