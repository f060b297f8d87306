"""The RTM's road-friction input (roadFriction[4], scaling the tyres' LMUX and LMUY) and the observer's
use of it through fmi2SetReal only: the tyre force follows the Magic Formula's scaling, and the observer's
model runs unchanged on an FMU whose instance memory is laid out differently."""
from __future__ import annotations

import ctypes
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest

from pybridge.onboard.rtm_model import OUTPUTS, RTMModel
from pybridge.parameters import ParameterSet

MODEL = "VehicleRTM.Vehicles.RTM14DoF"


def _listed_sources(unpacked):
    """The C files the FMU's description lists (the sources folder also holds the lane model, built elsewhere)."""
    import re

    description = (unpacked / "modelDescription.xml").read_text()
    names = dict.fromkeys(re.findall(r'<File name="([^"]+)"', description))
    return [unpacked / "sources" / name for name in names]


def _sweep(model: RTMModel, state: str, output: str, slips: np.ndarray, mu: float) -> np.ndarray:
    """``output`` at the start state with the slip state ``state`` set to each of ``slips``, the input
    roadFriction[1..4] = ``mu`` set through fmpy's fmi2SetReal (the standard route, not the observer's)."""
    m, n = model.model, model.n
    m.setReal([model.variables[f"roadFriction[{i}]"].valueReference for i in range(1, 5)], [mu] * 4)
    x = (ctypes.c_double * n)()
    m.getContinuousStates(x, n)
    k, vr, values = model.state_names.index(state), model.variables[output].valueReference, []
    for slip in slips:
        x[k] = slip
        m.setContinuousStates(x, n)
        values.append(m.getReal([vr])[0])
    return np.array(values)


def test_friction_input_scales_the_tyre_force_as_the_magic_formula_says(rtm_fmu):
    """In the saturated range the peak force is mu times the dry one (LMUX, LMUY scale the peak and
    divide the stiffness factor), while the slip stiffness at small slip stays (B*C*D is kept)."""
    model = RTMModel(rtm_fmu, ParameterSet(MODEL), initial_speed=20.0)
    try:
        for state, output in (("tireFL.tanAlpha", "tireFL.Fy"), ("tireRR.kappa", "tireRR.Fx")):
            slips = np.linspace(-0.6, 0.6, 2401)
            dry, wet = (_sweep(model, state, output, slips, mu) for mu in (1.0, 0.5))
            assert np.max(np.abs(wet)) == pytest.approx(0.5 * np.max(np.abs(dry)), rel=1e-3)
            assert np.max(np.abs(wet)) > 1000.0   # a loaded tyre, saturated
            small = np.array([-1e-3, 1e-3])
            stiffness = [np.diff(_sweep(model, state, output, small, mu))[0] for mu in (1.0, 0.5)]
            assert stiffness[1] == pytest.approx(stiffness[0], rel=0.02)
    finally:
        model.close()


def _relaid_fmu(fmu: Path, folder: Path) -> Path:
    """A copy of ``fmu`` recompiled from its own sources with three doubles before the instance's Real
    array: what an importer sees is the same, the instance memory is not."""
    unpacked = folder / "unpacked"
    with zipfile.ZipFile(fmu) as archive:
        archive.extractall(unpacked)
    header = unpacked / "sources" / "model.h"
    text = header.read_text()
    assert "    double time;\n" in text
    header.write_text(text.replace("    double time;\n", "    double another_layout[3];\n    double time;\n", 1))
    library = next((unpacked / "binaries").rglob("*.so"))
    subprocess.run([shutil.which("gcc") or "gcc", "-O0", "-fPIC", "-shared", "-std=gnu11", "-I", str(header.parent),
                    "-o", str(library), *map(str, _listed_sources(unpacked)), "-lm"], check=True)
    out = folder / fmu.name
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(unpacked.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(unpacked).as_posix())
    return out


def test_the_observer_model_works_on_an_fmu_with_another_instance_layout(rtm_fmu, tmp_path):
    """The old model wrote LMUX/LMUY into the native instance's memory and refused this FMU."""
    results = []
    for fmu in (Path(rtm_fmu), _relaid_fmu(Path(rtm_fmu), tmp_path)):
        model = RTMModel(fmu, ParameterSet(MODEL), initial_speed=15.0)
        try:
            noise = np.random.default_rng(3).standard_normal(len(model.x0))
            x = model.x0 + 0.01 * noise * np.maximum(np.abs(model.x0), 1.0)
            x[[model.state_names[i] for i in model.filtered].index("tireFL.tanAlpha")] = 0.3  # saturated
            X, mu = np.tile(x, (4, 1)), np.array([1.0, 0.8, 0.5, 0.3])
            results.append((model.propagate(X, mu, 2e-3), model.outputs(X, mu)))
        finally:
            model.close()
    for original, relaid in zip(*results):
        np.testing.assert_allclose(relaid, original, rtol=1e-9, atol=1e-9)
    fy = results[1][1][:, OUTPUTS.index("tireFL.Fy")]
    assert np.all(np.abs(np.diff(np.abs(fy))) > 100.0)  # each point's friction reached the tyre
