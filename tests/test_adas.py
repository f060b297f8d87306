"""VehicleRTM.ADAS.AdaptiveCruise: the native C file mirrors the Modelica equations, and the FMU validates."""
from __future__ import annotations

import numpy as np
from fmu_helpers import nrmse, replay
from fmu_validation import validate_fmu

ACC = "VehicleRTM.ADAS.AdaptiveCruise"
HARNESS = """model AccHarness
  VehicleRTM.ADAS.AdaptiveCruise acc;
equation
  acc.speed = 20 - 0.2*time;
end AccHarness;
"""
OUTPUTS = ["throttle", "brakePedal", "leadSpeed", "gap", "desiredGap", "accelerationDemand"]


def test_native_controller_matches_rumoca(compile_source, native_fmu):
    """Own speed ramps down 20 -> 18.4 m/s while the lead slows 20 -> 15 m/s (2-6 s): throttle, then brake."""
    t = np.linspace(0.0, 8.0, 801)
    reference = compile_source(HARNESS, "AccHarness").simulate(t=(0.0, 8.0), dt=0.01)
    fmu = native_fmu(ACC, "me_cs")
    assert validate_fmu(str(fmu)) == []
    signals = np.array(list(zip(t, 20 - 0.2 * t)), dtype=[("time", float), ("speed", float)])
    native = replay(fmu, signals, OUTPUTS)
    for name in OUTPUTS:
        expected = np.interp(t, np.asarray(reference["time"]), np.asarray(reference[f"acc.{name}"]))
        assert np.ptp(expected) > 0, name
        assert nrmse(expected, native[name]) < 1e-4, (name, nrmse(expected, native[name]))
