"""Native FMUs of the SLEKQ family reproduce rumoca's simulation of the Modelica models.

For each Examples harness the FMU of the model under test (KCRig for KCSweptSine, FourPost10DoF for
the four-post tests, the example itself for QuarterCarFreeVibration) gets the parameters the harness
gives its component and the input channels rumoca computed, and every output and exposed local of
the FMU that rumoca also reports is compared: normalised RMS error <= 1 %. Co-Simulation runs the
FMU's own integrator (default IMEX2) at 1 ms; the free vibration (no inputs) also runs as Model Exchange under CVode.
"""
from __future__ import annotations

import numpy as np
import pytest
from fmu_helpers import input_signals, nrmse, replay

from fmu_build.modelica import simulate_example
from fmu_build.variables import model_variables

TOLERANCE = 0.01
KC_INPUTS = ["FZ", "lambda", "GI", "GP", "GD", "zRef", "vRef", "aRef"]
POST_INPUTS = [f"zPost[{i}]" for i in range(1, 5)] + [f"vPost[{i}]" for i in range(1, 5)]
CASES = {
    # example: (model of the FMU, instance name in the example, inputs)
    "VehicleRTM.Examples.KCSweptSine": ("VehicleRTM.QuarterCars.KCRig", "rig.", KC_INPUTS),
    "VehicleRTM.Examples.QuarterCarFreeVibration": ("VehicleRTM.Examples.QuarterCarFreeVibration", "", []),
    "VehicleRTM.Examples.FourPostHeave": ("VehicleRTM.Vehicles.FourPost10DoF", "car.", POST_INPUTS),
    "VehicleRTM.Examples.FourPostPitch": ("VehicleRTM.Vehicles.FourPost10DoF", "car.", POST_INPUTS),
}
RESULTS: dict[str, dict[str, float]] = {}


def _compared_channels(fmu, result, prefix: str) -> list[str]:
    from fmpy import read_model_description

    names = [v.name for v in read_model_description(fmu).modelVariables
             if v.causality in ("output", "local") and not v.name.startswith("der(")]
    return [n for n in names if prefix + n in result.names]


def _harness_parameters(example: str, prefix: str, fmu) -> dict[str, float]:
    """The top-level parameters of the FMU that the harness sets differently on its instance
    (KCSweptSine redeclares the rig's data as the SUV front corner). Only the rig's own parameters are
    set: the corner's copies (corner.data.*) must follow through their bindings."""
    from fmpy import read_model_description

    if not prefix:
        return {}
    parameters = {v.name: v for v in read_model_description(fmu).modelVariables if v.causality == "parameter"}
    start = {}
    for var in model_variables(example).variables:
        if var.kind != "parameter" or not var.name.startswith(prefix) or var.start is None:
            continue
        name = var.name[len(prefix):]
        target = parameters.get(name)
        if target is None or name.startswith("corner"):
            continue
        if target.type == "Real" and float(target.start) != var.start:
            start[name] = var.start
        elif target.type == "Boolean" and (target.start == "true") != bool(var.start):
            start[name] = bool(var.start)
    return start


@pytest.mark.parametrize("example", list(CASES))
def test_native_fmu_reproduces_rumoca(example, native_fmu):
    model, prefix, inputs = CASES[example]
    fmu = native_fmu(model)
    result = simulate_example(example)
    channels = _compared_channels(fmu, result, prefix)
    assert len(channels) >= 3, f"{example}: too few common channels {channels}"
    start = _harness_parameters(example, prefix, fmu)
    if example.endswith("KCSweptSine"):
        assert "data.k1" in start and "data.mUnsprung" in start   # the SUV front corner, not the defaults
    signals = input_signals(result, prefix, inputs) if inputs else None
    fmu_result = replay(fmu, signals, channels, times=np.asarray(result.time), start_values=start)
    errors = {n: nrmse(np.asarray(result[prefix + n]), fmu_result[n]) for n in channels}
    RESULTS[example] = errors
    worst = max(errors, key=errors.get)
    print(f"\n{example}: {len(errors)} channels, worst NRMSE {errors[worst]:.2e} ({worst})")
    bad = {n: e for n, e in errors.items() if not e <= TOLERANCE}
    assert not bad, f"{example}: NRMSE above {TOLERANCE:.0%}: {sorted(bad.items(), key=lambda x: -x[1])[:8]}"


def test_free_vibration_model_exchange_under_cvode(native_fmu):
    """The example FMU (no inputs) under fmpy's CVode agrees with rumoca too."""
    from fmpy import simulate_fmu

    example = "VehicleRTM.Examples.QuarterCarFreeVibration"
    fmu = native_fmu(example)
    result = simulate_example(example)
    channels = _compared_channels(fmu, result, "")
    t = np.asarray(result.time)
    fmu_result = simulate_fmu(fmu, fmi_type="ModelExchange", stop_time=float(t[-1]), output_interval=float(t[1] - t[0]),
                              output=channels, relative_tolerance=1e-6)
    errors = {n: nrmse(np.asarray(result[n]), np.interp(t, fmu_result["time"], fmu_result[n])) for n in channels}
    worst = max(errors, key=errors.get)
    print(f"\nQuarterCarFreeVibration ME/CVode: worst NRMSE {errors[worst]:.2e} ({worst})")
    assert errors[worst] <= TOLERANCE, (worst, errors[worst])


def test_corner_parameters_follow_the_rig_data(native_fmu):
    """Setting the rig's data.* moves corner.data.* (Modelica binding corner(data = data)); setting a
    corner parameter itself wins, as a modification would; expression bindings (FDesign) follow too."""
    fmu = native_fmu("VehicleRTM.QuarterCars.KCRig")
    names = ["corner.data.k1", "corner.data.mSprung", "corner.FDesign", "corner.Lfree", "corner.data.d1", "z"]
    t = np.array([0.0, 1e-3])
    plain = replay(fmu, None, names, times=t)
    moved = replay(fmu, None, names, times=t, start_values={"data.k1": 41000.0, "data.mSprung": 500.0,
                                                           "corner.data.d1": 1234.0})
    assert plain["corner.data.k1"][0] == 30000.0 and moved["corner.data.k1"][0] == 41000.0
    assert moved["corner.data.mSprung"][0] == 500.0
    assert moved["corner.FDesign"][0] == pytest.approx(500.0 * 9.81)
    assert moved["corner.data.d1"][0] == 1234.0
    assert moved["corner.Lfree"][0] != plain["corner.Lfree"][0]
    # the free length still puts z = 0 in equilibrium under the design load
    own = replay(fmu, None, names, times=np.linspace(0, 0.5, 51),
                 start_values={"data.k1": 41000.0, "data.mSprung": 500.0, "FZ": (500.0 + 45.0) * 9.81})
    assert abs(own["z"][-1]) < 1e-6
