"""The native manoeuvre runner against the fmpy loop on the same FMU: bit-identical traces (compared
with check_exact), the van's fitness, FMU errors, and the fallback when no C compiler is there."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import REPO
from fmu_helpers import write_package

from pybridge.simulate import native_runner
from pybridge.simulate.fmu import FMUSession, FMUSessionError
from pybridge.simulate.manoeuvres import ManifestReferences, run_scenario
from pybridge.simulate.scenarios import load_scenario

DATASET = REPO / "scenarios" / "mbm" / "lcv35"
KMH = 1 / 3.6


@pytest.fixture(scope="module")
def references() -> ManifestReferences:
    return ManifestReferences(DATASET)


def both(session, scenario, params=None, resolve=None, step=None):
    """The trace through the fmpy loop and through the native runner."""
    return [run_scenario(session, scenario, params, resolve, step, runner=r) for r in ("fmpy", "native")]


def assert_identical(fmpy_trace: pd.DataFrame, native_trace: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(native_trace, fmpy_trace, check_exact=True)
    assert native_trace.attrs == fmpy_trace.attrs


def driven_straight(tmp_path, target_kmh: float, duration: float, end: dict | None = None):
    """A straight run from 80 km/h under the PI towards ``target_kmh``, with optional end conditions."""
    raw = {"format": "vehiclertm-scenario 1", "name": "straight", "description": "PI-driven straight run",
           "kind": "full_vehicle", "initial_speed": {"value": 80, "unit": "km/h"},
           "duration": {"value": duration, "unit": "s"}, "sample_rate": {"value": 100, "unit": "Hz"},
           "inputs": {"steering_wheel_angle": {"type": "constant", "value": {"value": 0, "unit": "deg"}}},
           "speed_control": {"target": {"value": target_kmh, "unit": "km/h"}},
           "outputs": ["time", "speed", "ax", "throttle", "brake", "pitch"], **({"end": end} if end else {})}
    path = tmp_path / f"straight_{target_kmh}_{duration}.yaml"
    path.write_text(yaml.safe_dump(raw))
    return load_scenario(path)


def test_a_steer_scenario_gives_the_same_trace_bit_for_bit(session, references):
    step_steer = dataclasses.replace(load_scenario("step_steer"), duration=2.5)
    fmpy_trace, native_trace = both(session, step_steer, resolve=references)
    assert_identical(fmpy_trace, native_trace)
    assert len(native_trace) == 501 and native_trace["yaw_rate"].abs().max() > 0.05   # it steered
    # a communication step below the sample period: only the samples are recorded
    assert_identical(*both(session, dataclasses.replace(step_steer, duration=0.5), resolve=references, step=1e-3))


@pytest.mark.parametrize("target_kmh", [95.0, 60.0])
def test_the_pi_speed_driver_gives_the_same_pedals_and_trace(session, tmp_path, target_kmh):
    scenario = driven_straight(tmp_path, target_kmh, 3.0)
    fmpy_trace, native_trace = both(session, scenario)
    assert_identical(fmpy_trace, native_trace)
    pedal, full = ("throttle", 1.0) if target_kmh > 80 else ("brake", scenario.speed_control.brake_gain)
    assert native_trace[pedal].max() == full                             # the PI saturated: full pedal
    assert np.sign(native_trace["speed"].iloc[-1] - 80 * KMH) == np.sign(target_kmh - 80)


def test_an_end_condition_stops_both_paths_at_the_same_sample(session, tmp_path):
    braking = driven_straight(tmp_path, 40.0, 6.0, end={"speed_below": {"value": 72, "unit": "km/h"}})
    fmpy_trace, native_trace = both(session, braking)
    assert_identical(fmpy_trace, native_trace)
    stopped = native_trace.attrs["stopped_at"]
    assert stopped is not None and 0.1 < stopped < 6.0 and native_trace["time"].iloc[-1] == stopped
    assert native_trace["speed"].iloc[-1] < 72 * KMH <= native_trace["speed"].iloc[:-1].min()


def test_simulate_with_a_table_or_no_inputs_is_the_same_on_both_paths(session):
    steer = pd.DataFrame({"time": [0.0, 0.2, 0.6], "steeringWheelAngle": [0.0, 0.0, 0.5], "throttle": [0.0, 0.3, 0.3]})
    for inputs in (steer, None):
        fmpy_frame = session.simulate(inputs, 0.6, 0.01, ["vx", "yawRate", "Fz"], runner="fmpy")
        pd.testing.assert_frame_equal(session.simulate(inputs, 0.6, 0.01, ["vx", "yawRate", "Fz"], runner="native"),
                                      fmpy_frame, check_exact=True)


def test_the_vans_fitness_indices_are_identical_on_both_paths(rtm_fmu, monkeypatch):
    from pybridge.convert import convert_mbm
    from pybridge.identify.problem import VehicleProblem

    params = convert_mbm(DATASET / "mbm", fmu=rtm_fmu)
    params.uncertain = {}
    params.mark_uncertain("chassis.Izz", 0.2)
    problem = VehicleProblem(params, DATASET, rtm_fmu)
    weights = {m: problem.objective.weights[m] for m in ("step_steer", "braking") if m in problem.objective.weights}
    assert weights, "the default objective lost the step steer and the braking"
    results = {}
    for runner in ("fmpy", "native"):
        monkeypatch.setenv(native_runner.RUNNER_ENV, runner)
        results[runner] = problem.evaluate(problem.nominal, weights)
    fmpy_result, native_result = results["fmpy"], results["native"]
    assert not native_result.failed and native_result.per_index.keys() == fmpy_result.per_index.keys()
    for key, score in native_result.per_index.items():
        assert score.error == pytest.approx(fmpy_result.per_index[key].error, rel=1e-9, abs=1e-12), key
    assert native_result.value == pytest.approx(fmpy_result.value, rel=1e-9)


def test_the_vans_identification_runs_at_the_validated_internal_step(rtm_fmu, monkeypatch):
    """A native FMU that locates its events runs at IDENTIFICATION_STEPS of its integrator; the step
    reaches the FMU (the indices move) and keeps the fitness within the 0.5 % bar of the 1 ms run.
    The default build (IMEX2) has no validated longer step; the test gives it Heun's 2 ms."""
    from pybridge.convert import convert_mbm
    from pybridge.identify import problem as problem_module
    from pybridge.identify.problem import IDENTIFICATION_STEPS, VehicleProblem, identification_step

    assert identification_step(rtm_fmu) is None   # the default build: its own 1 ms
    monkeypatch.setitem(problem_module.IDENTIFICATION_STEPS, "IMEX2", IDENTIFICATION_STEPS["Heun"])
    assert identification_step(rtm_fmu) == IDENTIFICATION_STEPS["Heun"]
    params = convert_mbm(DATASET / "mbm", fmu=rtm_fmu)
    params.uncertain = {}
    params.mark_uncertain("chassis.Izz", 0.2)
    weights = {"step_steer": VehicleProblem(params, DATASET, rtm_fmu).objective.weights["step_steer"]}
    coarse = VehicleProblem(params, DATASET, rtm_fmu)
    fine = VehicleProblem(params, DATASET, rtm_fmu, internal_step=1e-3)
    explicit = VehicleProblem(params.with_values({}), DATASET, rtm_fmu)
    explicit.params.scalars["fixedStepSize"] = 1e-3   # a step in the parameter set wins
    results = [p.evaluate(p.nominal, weights) for p in (coarse, fine, explicit)]
    assert coarse.internal_step == IDENTIFICATION_STEPS["Heun"] and not any(r.failed for r in results)
    assert results[0].value != results[1].value and results[1].value == results[2].value
    assert results[0].value == pytest.approx(results[1].value, rel=5e-3)


def test_identification_step_needs_a_native_fmu_that_locates_events(tmp_path):
    import zipfile

    from pybridge.identify.problem import IDENTIFICATION_STEPS, identification_step

    def fmu(build: str) -> str:
        path = tmp_path / f"{len(list(tmp_path.iterdir()))}.fmu"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("modelDescription.xml", '<?xml version="1.0"?><fmiModelDescription>'
                             f'<VendorAnnotations><Tool name="fmu_build">{build}</Tool></VendorAnnotations>'
                             '</fmiModelDescription>')
        return path

    assert identification_step(fmu('<Build integrator="RK4" coSimulationEvents="located"/>')) == \
        IDENTIFICATION_STEPS["RK4"]
    assert identification_step(fmu('<Build integrator="RK4"/>')) is None        # events at the step's end
    assert identification_step(fmu('<Build integrator="AB2" coSimulationEvents="located"/>')) is None
    assert identification_step(fmu("")) is None                                 # not a native build
    assert identification_step(tmp_path / "missing.fmu") is None


@pytest.fixture(scope="module")
def blowup_fmu(fmu_cache, tmp_path_factory):
    """A CS FMU of der(x) = x^2 + u, x(0) = 1: it diverges just before t = 1 s."""
    from fmu_build import build_fmu

    root = write_package(tmp_path_factory.mktemp("probe-lib"), "Probe", {"Blowup": (
        "model Blowup\n  input Real u;\n  output Real x(start = 1, fixed = true);\n"
        "equation\n  der(x) = x*x + u;\nend Blowup;\n")})
    return build_fmu("Probe.Blowup", backend="native", fmi_type="cs", out_dir=root / "out", cache_dir=fmu_cache,
                     modelica_path=[root])


def test_an_fmu_error_mid_run_gives_the_same_message_on_both_paths(blowup_fmu):
    ramp = pd.DataFrame({"time": [0.0, 2.0], "u": [0.0, 0.1]})
    messages = {}
    with FMUSession(blowup_fmu) as session:
        for runner in ("fmpy", "native"):
            with pytest.raises(FMUSessionError) as error:
                session.simulate(ramp, 2.0, 0.01, ["x"], runner=runner)
            messages[runner] = str(error.value)
            recovered = session.simulate(ramp, 0.5, 0.01, ["x"], runner=runner)   # the session resets
            assert recovered["x"].iloc[-1] == pytest.approx(2.0, rel=0.01)       # 1/(1 - t) at u ~ 0
    assert messages["native"] == messages["fmpy"]
    assert re.search(r"fmi2DoStep at t = (0\.99|1) s failed \(fmi2DoStep failed with status 3 \(error\)\.\): "
                     r"fmi2DoStep: the simulation diverged at t = ", messages["native"]), messages["native"]
    assert "diverged" in messages["native"] and str(blowup_fmu) in messages["native"]


@pytest.fixture
def fresh_runner(monkeypatch, tmp_path):
    """The runner module as on first use, with the build cache in tmp_path."""
    monkeypatch.setattr(native_runner, "_library", None)
    monkeypatch.setattr(native_runner, "_unavailable", None)
    monkeypatch.setenv("VEHICLERTM_FMU_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(native_runner.RUNNER_ENV, raising=False)
    return tmp_path / "cache" / "runner"


def test_the_runner_is_compiled_once_into_the_cache_keyed_by_its_source(fresh_runner):
    assert native_runner.use_native()
    built = sorted(p.name for p in fresh_runner.iterdir())
    assert len(built) == 1 and built[0].startswith("manoeuvre_runner-") and built[0].endswith(".so")
    assert native_runner.library() is native_runner.library()


def test_without_a_compiler_runs_fall_back_to_the_fmpy_loop(fresh_runner, monkeypatch, session, tmp_path):
    monkeypatch.setenv("CC", "no-such-cc-for-the-runner")
    scenario = driven_straight(tmp_path, 90.0, 1.0)
    with pytest.warns(RuntimeWarning, match="no-such-cc-for-the-runner.*using the fmpy loop"):
        fallback = run_scenario(session, scenario)
    assert_identical(run_scenario(session, scenario, runner="fmpy"), fallback)
    with pytest.raises(FMUSessionError, match="C compiler 'no-such-cc-for-the-runner' not found"):
        run_scenario(session, scenario, runner="native")
    monkeypatch.setenv(native_runner.RUNNER_ENV, "c")
    with pytest.raises(FMUSessionError, match=r"\$PYBRIDGE_RUNNER = 'c': unknown runner; expected one of auto"):
        session.simulate(None, 0.1, 0.01, ["vx"])
