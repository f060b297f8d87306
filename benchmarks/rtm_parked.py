"""The RTM14DoF parked on a cross-slope with the brakes on: its stiff modes, and each integrator against RK4 at 0.25 ms.

The case that decides whether a cheap integrator can be the default (issue 15): the van at rest on a
road sloping 3 % to the right, full brake, 8 s (the scenario of the physics test
tests/test_rtm_body_kinematics.py::test_parked_on_a_tilted_road...).

1. Builds the ME + CS FMU (RK4) and the CS FMU of each candidate integrator (fmu_build cache).
2. Runs the reference, RK4 at 0.25 ms, in Co-Simulation.
3. Diagnosis: from the reference's end state, a central-difference Jacobian of the derivatives through
   Model Exchange; lists the eigenvalues with |lambda| > 100 1/s and the states their eigenvectors
   live on.
4. Runs each candidate at its step; RMS error against the reference of the lateral accelerations, the
   roll and the wheel speeds (10 ms samples), and the end values the physics test reads.

Writes benchmarks/results/rtm_parked.json. Run by hand (a few minutes, mostly building):

    .venv/bin/python benchmarks/rtm_parked.py imex2:1e-3 ab2:1e-3 heun:1e-3 rk4:1e-3
"""
from __future__ import annotations

import argparse
import ctypes
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from machine import write_record  # noqa: E402
from rtm_accuracy import parse_candidate  # noqa: E402

MODEL = "VehicleRTM.Vehicles.RTM14DoF"
REFERENCE_STEP = 0.25e-3
STOP, INTERVAL, SLOPE, TRACK, G = 8.0, 0.01, 0.03, 1.7, 9.81
CHANNELS = ["ay", "aySprung", "aySensor", "roll", *(f"wheelSpeed[{k}]" for k in range(1, 5))]
INPUTS = {"steeringWheelAngle": 0.0, "throttle": 0.0, "brakePedal": 1.0,
          **{f"roadHeight[{k}]": (SLOPE if k % 2 else -SLOPE) * TRACK / 2 for k in range(1, 5)}}


def simulate(fmu: Path, step: float):
    from fmpy import simulate_fmu

    return simulate_fmu(str(fmu), fmi_type="CoSimulation", stop_time=STOP, output_interval=INTERVAL,
                        output=CHANNELS, start_values={**INPUTS, "fixedStepSize": step}, validate=False)


def stiff_modes(fmu: Path, end_state: dict[str, float], limit: float = 100.0) -> list[dict]:
    """Eigenvalues of d(der x)/dx above ``limit`` 1/s at ``end_state`` (ME, central differences)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Model

    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    model = FMU2Model(guid=md.guid, unzipDirectory=extract(str(fmu)), modelIdentifier=md.modelExchange.modelIdentifier,
                      instanceName="jacobian")
    model.instantiate()
    model.setupExperiment(startTime=0.0)
    for name, value in INPUTS.items():
        model.setReal([vr[name]], [value])
    model.enterInitializationMode()
    model.exitInitializationMode()
    model.enterEventMode()
    model.newDiscreteStates()
    model.enterContinuousTimeMode()
    states = [d.variable.derivative.name for d in md.derivatives]
    x = np.array([end_state[name] for name in states])

    def derivatives(point: np.ndarray) -> np.ndarray:
        point = np.ascontiguousarray(point)
        model.setContinuousStates(point.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(point))
        out = np.zeros(len(point))
        model.getDerivatives(out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(out))
        return out

    jacobian = np.zeros((len(x), len(x)))
    for j in range(len(x)):
        delta = 1e-7 * max(1.0, abs(x[j]))
        up, down = x.copy(), x.copy()
        up[j] += delta
        down[j] -= delta
        jacobian[:, j] = (derivatives(up) - derivatives(down)) / (2 * delta)
    model.terminate()
    model.freeInstance()
    values, vectors = np.linalg.eig(jacobian)
    modes = []
    for k in np.argsort(-np.abs(values)):
        if abs(values[k]) <= limit:
            break
        weight = np.abs(vectors[:, k]) / np.abs(vectors[:, k]).sum()
        modes.append({"lambda": [float(values[k].real), float(values[k].imag)],
                      "states": {states[i]: round(float(weight[i]), 3) for i in np.argsort(-weight)[:3]}})
    return modes


def end_state(fmu: Path, step: float) -> dict[str, float]:
    """Every state of the reference run at STOP (a CS run that reads the states at the end)."""
    from fmpy import read_model_description, simulate_fmu

    md = read_model_description(str(fmu))
    names = [d.variable.derivative.name for d in md.derivatives]
    result = simulate_fmu(str(fmu), fmi_type="CoSimulation", stop_time=STOP, output_interval=STOP / 4,
                          output=names, start_values={**INPUTS, "fixedStepSize": step}, validate=False)
    return {name: float(result[name][-1]) for name in names}


def errors(reference, run) -> dict:
    """RMS errors per channel, the last second's largest wheel speed and the physics test's end values."""
    last = run[-1]
    wheels = [f"wheelSpeed[{k}]" for k in range(1, 5)]
    tail = run[run["time"] >= STOP - 1.0]
    return {"rms_error": {c: float(np.sqrt(np.mean((run[c] - reference[c]) ** 2))) for c in CHANNELS},
            "max_wheel_speed_last_second": float(max(np.max(np.abs(tail[w])) for w in wheels)),
            "end_ay_minus_aySprung": float(last["ay"] - last["aySprung"]),
            "end_aySensor_minus_g_sin_roll": float(last["aySensor"] - G * math.sin(last["roll"]))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", nargs="+", type=parse_candidate, help="INTEGRATOR:STEP, e.g. imex2:1e-3 rk4:1e-3")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "rtm_parked.json")
    args = parser.parse_args(argv)

    from fmu_build.build import build_fmu

    work = REPO / "out" / "rtm_parked"
    reference_fmu = build_fmu(MODEL, backend="native", fmi_type="me_cs", out_dir=work / "reference", integrator="rk4")
    fmus = {name: build_fmu(MODEL, backend="native", fmi_type="cs", out_dir=work / name, integrator=name)
            for name in {c[0] for c in args.candidates}}
    reference = simulate(reference_fmu, REFERENCE_STEP)
    modes = stiff_modes(reference_fmu, end_state(reference_fmu, REFERENCE_STEP))
    print("stiff modes at the end state (|lambda| > 100 1/s):")
    for mode in modes:
        print(f"    lambda = {mode['lambda'][0]:9.1f} {mode['lambda'][1]:+8.1f}j 1/s  on {mode['states']}")
    results = []
    for integrator, step in args.candidates:
        result = {"integrator": integrator, "step": step, **errors(reference, simulate(fmus[integrator], step))}
        results.append(result)
        print(f"{integrator} at {step * 1e3:g} ms: RMS error ay {result['rms_error']['ay']:.2e} m/s^2, wheel speed 1 "
              f"{result['rms_error']['wheelSpeed[1]']:.2e} rad/s; |wheel speed| in the last second <= "
              f"{result['max_wheel_speed_last_second']:.2e} rad/s; end ay - aySprung {result['end_ay_minus_aySprung']:+.5f}")
    write_record(args.out, "RTM14DoF parked on a 3 % cross-slope, full brake, 8 s: integrators against RK4 at 0.25 ms",
                 stiff_modes_at_rest=modes, runs=results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
