"""Full-vehicle scenarios on the RTM Co-Simulation FMU through fmpy, one reused FMU instance per process.

``run_scenario(session_or_fmu, scenario, params, resolve)`` fills the instance (the FMU's defaults or
a parameter set, plus ``initialSpeed`` = the scenario's initial speed), drives it with the scenario's
steering-wheel angle and pedals and returns the scenario's channels in SI at its sample rate. Under
``speed_control`` the PI controller sets throttle and brake every communication step from the FMU's
longitudinal speed ``vx``. Open-loop inputs are held over a communication step at their mid-step
value (the step mean of a linear segment); the trace records the scenario's value at the sample.
The communication step defaults to the sample period: on the shipped full-vehicle scenarios the
lateral and vertical channels differ from a 1 ms step by less than 0.05 % NRMSE, the held speed by
less than 0.02 km/h; through the fmpy loop it runs 2-3 times faster than a 1 ms step, through the
native runner both cost about the same (benchmarks/fitness_speed.py measures both).
The PI gets a feed-forward, the throttle that holds the initial speed, found by a 0.8 s probe run of
the filled FMU (as the reference MBM's driver holds its speed from the start).

End conditions are checked at every sample after t = 0; the trace ends at the first sample where one
holds. A run is one call of the native manoeuvre runner (pybridge.simulate.native_runner: input tables, PI and
end conditions in C, outputs recorded at the samples), which stops there. Through the fmpy loop
(``runner="fmpy"`` or PYBRIDGE_RUNNER=fmpy, the fallback and cross-check) ``FMUSession.simulate``
returns no partial run, so the run is aborted there and repeated up to that time (deterministic: same
reset, same fill, same inputs); both give the same trace.

The RTM14DoF follows ISO 8855 like the scenario vocabulary (CONVENTIONS.md), so no channel changes
sign: see FMU_INPUTS and FMU_CHANNELS; ``heave`` is ``bodyHeight`` less its start (design) value, the
load transfers are (right - left)/2 of the tyre loads ``Fz[1..4]`` (FL, FR, RL, RR).

A parameter set converted without driveline data (``metadata["lateral_only"]``, pybridge.convert) runs
the scenarios under ``speed_control`` only; one that drives throttle and brake itself (acceleration,
braking) is refused with the reason (:func:`refusal`).
"""
from __future__ import annotations

import multiprocessing.util
import os
import pickle
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from pybridge.evaluate.channels import variants
from pybridge.evaluate.kpi import remember_columns
from pybridge.simulate.fmu import FMUSession, native_selected
from pybridge.simulate.native_runner import EndCheck, SpeedControl
from pybridge.parameters import ParameterSet
from pybridge.simulate.scenarios import END_CONDITIONS, OUTPUT_CHANNELS, Scenario, ScenarioError, load_scenario
from pybridge.workers import ignore_interrupts, process_pool, raise_if_interrupted
from pybridge.fileio import read_yaml

__all__ = ["FMU_CHANNELS", "FMU_INPUTS", "INITIAL_SPEED", "ManifestReferences", "ManoeuvreError",
           "ScenarioRunner", "plot_trace", "refusal", "run_scenario"]

INITIAL_SPEED = "initialSpeed"  # FMU parameter: start speed of body and rolling wheels, m/s
FMU_INPUTS = {"steering_wheel_angle": "steeringWheelAngle", "throttle": "throttle", "brake": "brakePedal"}
FMU_CHANNELS = {
    "speed": "vx",  # longitudinal speed (the FMU output `speed` is |v|, larger in a turn)
    "ax": "ax", "ay": "ay", "yaw_rate": "yawRate", "roll": "roll", "pitch": "pitch", "sideslip": "sideslip",
    "ax_sprung": "axSprung", "ay_sprung": "aySprung", "ax_sensor": "axSensor", "ay_sensor": "aySensor",
    "sideslip_sprung": "sideslipSprung", "sideslip_sensor": "sideslipSensor", "roll_road": "rollRelativeToRoad",
    "pitch_road": "pitchRelativeToRoad",
    "gear": "driveline.gearNumber", "engine_speed": "driveline.engineSpeed", "heave": "bodyHeight",
    "fz_fl": "Fz[1]", "fz_fr": "Fz[2]", "fz_rl": "Fz[3]", "fz_rr": "Fz[4]", **FMU_INPUTS,
}
SPEED = FMU_CHANNELS["speed"]  # what the PI speed controller holds
PROBE_THROTTLES = (0.2, 0.5)  # probed for the PI's feed-forward (one segment of usual engine maps)
PROBE_TIME = 0.4  # s per probed throttle
LOAD_TRANSFER = {"load_transfer_front": (("fz_fr",), ("fz_fl",)), "load_transfer_rear": (("fz_rr",), ("fz_rl",)),
                 "load_transfer_total": (("fz_fr", "fz_rr"), ("fz_fl", "fz_rl"))}


class ManoeuvreError(ValueError):
    """An FMU, a manifest or a step that does not fit the scenario; the message names file and place."""


class _EndReached(Exception):
    def __init__(self, time: float):
        super().__init__(time)
        self.time = time


class _Driver:
    """The FMU's inputs at communication point k: open-loop signals mid-step, PI pedals from ``vx``."""

    def __init__(self, session: FMUSession, scenario: Scenario, resolve, step: float, count: int, every: int,
                 hold: float, check_end: bool):
        mid_steps = (np.arange(count + 1) + 0.5) * step
        self.tables = {FMU_INPUTS[n]: scenario.signal(n, resolve)(mid_steps) for n in scenario.inputs}
        self.session, self.scenario, self.step, self.count, self.every = session, scenario, step, count, every
        self.controller = scenario.speed_controller(lambda t, target: hold if t > 0 else 0.0) \
            if scenario.speed_control else None
        self.watch = {END_CONDITIONS[c][0]: FMU_CHANNELS[END_CONDITIONS[c][0]] for c in scenario.end} \
            if check_end else {}

    def __call__(self, t: float) -> dict[str, float]:
        k = round(t / self.step)
        values = {name: float(table[k]) for name, table in self.tables.items()}
        if self.controller is not None:
            speed = self.session.get(SPEED)[SPEED] if k else self.scenario.initial_speed
            values["throttle"], values["brakePedal"] = self.controller.update(t, speed, self.step)
        if self.watch and 0 < k < self.count and k % self.every == 0:
            now = self.session.get(list(self.watch.values()))
            if self.scenario.end_reached(t, {channel: now[name] for channel, name in self.watch.items()}):
                raise _EndReached(t)
        return values


def refusal(scenario: Scenario, params: ParameterSet | None) -> str | None:
    """Why ``params`` cannot run ``scenario`` (None: it can): a lateral-only set and open-loop pedals."""
    reason = params.metadata.get("lateral_only") if params is not None else None
    if reason and scenario.kind == "full_vehicle" and scenario.speed_control is None:
        return (f"{scenario.name} drives throttle and brake itself (no speed_control in {scenario.path.name}); "
                f"the parameter set has no driveline data: {reason}")
    return None


def run_scenario(session_or_fmu: FMUSession | str | Path, scenario: Scenario | str | Path,
                 params: ParameterSet | None = None, resolve: Callable[[str, float | None], float] | None = None,
                 step: float | None = None, *, runner: str | None = None) -> pd.DataFrame:
    """Simulate a full-vehicle scenario on the RTM FMU; returns its output channels (SI, ``attrs["units"]``).

    ``params``: a parameter set of the FMU's model (None: the FMU's defaults); ``initialSpeed`` is set
    from the scenario. ``resolve(name, argument)`` gives the references of the signals (see
    :class:`ManifestReferences`). ``step``: communication step in s, a divisor of the sample period
    (default: the sample period). ``runner``: ``native``, ``fmpy`` or ``auto`` (default
    $PYBRIDGE_RUNNER, else auto; see :mod:`pybridge.simulate.native_runner`).
    ``attrs["stopped_at"]`` is the time an end condition ended the run (None: full duration).
    """
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    if not isinstance(session_or_fmu, FMUSession):
        with FMUSession(session_or_fmu) as session:
            return run_scenario(session, scenario, params, resolve, step, runner=runner)
    session = session_or_fmu
    refused = refusal(scenario, params)
    if refused:
        raise ManoeuvreError(refused)
    _check(session, scenario)
    step = 1.0 / scenario.sample_rate if step is None else step
    samples = 1.0 / (scenario.sample_rate * step)
    every = round(samples)
    if every < 1 or abs(samples - every) > 1e-9 * samples:
        raise ManoeuvreError(f"{scenario.path}: sample_rate: {scenario.sample_rate:g} Hz; the communication step "
                             f"{step:g} s must divide its period {1 / scenario.sample_rate:g} s")
    native = native_selected(runner)
    base = params if params is not None else ParameterSet(model=session.model_name)
    session.apply(ParameterSet(model=base.model, scalars={**base.scalars, INITIAL_SPEED: scenario.initial_speed},
                               tables=base.tables, source=base.source))
    count = round(scenario.duration * scenario.sample_rate) * every
    recorded = _recorded(scenario.outputs)
    names = [FMU_CHANNELS[c] for c in FMU_CHANNELS if c in recorded or _feeds(c, scenario.outputs)]
    hold = _holding_throttle(session, step, native) if scenario.speed_control else 0.0
    if native:
        frame, stopped_at = _run_native(session, scenario, resolve, step, count, every, hold, names)
        return _channels(frame, scenario, resolve, stopped_at)
    stopped_at = None
    try:
        frame = session.simulate(_Driver(session, scenario, resolve, step, count, every, hold, True), count * step,
                                 step, names, runner="fmpy", record_every=every)
    except _EndReached as end:
        stopped_at = end.time
        frame = session.simulate(_Driver(session, scenario, resolve, step, count, every, hold, False), end.time,
                                 step, names, runner="fmpy", record_every=every)
    return _channels(frame.iloc[::every].reset_index(drop=True), scenario, resolve, stopped_at)


def _run_native(session: FMUSession, scenario: Scenario, resolve, step: float, count: int, every: int, hold: float,
                names: list[str]) -> tuple[pd.DataFrame, float | None]:
    """The run of :class:`_Driver` in one call of the native runner: (outputs at the samples, stop time)."""
    times, inputs, table, speed, end = native_plan(scenario, resolve, step, count, every, hold)
    rows, stopped_at = session.run_points(times, inputs, table, names, record_every=every, speed=speed,
                                          end=end, stop_time=count * step)
    frame = pd.DataFrame(np.column_stack([times[::every][:len(rows)], rows]), columns=["time", *names])
    return frame, stopped_at


def native_plan(scenario: Scenario, resolve, step: float, count: int, every: int,
                hold: float) -> tuple[np.ndarray, list[str], np.ndarray, SpeedControl | None, EndCheck | None]:
    """What the native runner gets for :class:`_Driver`'s run: points, input names and table, PI, end check."""
    times = 0.0 + step * np.arange(count + 1)
    mid_steps = (np.arange(count + 1) + 0.5) * step
    columns = {FMU_INPUTS[n]: scenario.signal(n, resolve)(mid_steps) for n in scenario.inputs}
    speed = None
    if scenario.speed_control:
        columns.setdefault("throttle", np.zeros(count + 1))
        columns.setdefault("brakePedal", np.zeros(count + 1))
        c = scenario.speed_control
        scenario.speed_controller()  # a from_reference target without its profile fails here
        speed = SpeedControl(c.target, c.kp, c.ki, c.brake_gain, hold, scenario.initial_speed, SPEED,
                             list(columns).index("throttle"), list(columns).index("brakePedal"), step,
                             c.target_at(times) if c.profile is not None else None)
    end = None
    if scenario.end:
        watch = {END_CONDITIONS[c][0]: FMU_CHANNELS[END_CONDITIONS[c][0]] for c in scenario.end}
        conditions = tuple((list(watch).index(END_CONDITIONS[c][0]), c == "speed_below", float(threshold))
                           for c, threshold in scenario.end.items())
        end = EndCheck(tuple(watch.values()), conditions, every, scenario.duration)
    table = np.column_stack(list(columns.values())) if columns else np.zeros((count + 1, 0))
    return times, list(columns), table, speed, end


def _holding_throttle(session: FMUSession, step: float, native: bool) -> float:
    """Throttle that holds the initial speed on a straight road, for the PI's feed-forward: the secant of
    the FMU's deceleration at the two PROBE_THROTTLES (0.4 s each, slope of vx over the last 0.2 s).
    Throttle 0 at t = 0 as in the run, so the probe starts in the run's gear."""
    n = round(PROBE_TIME / step)
    low, high = PROBE_THROTTLES
    if native:
        times, table = probe_table(step)
        v = session.run_points(times, PROBE_INPUTS, table, [SPEED], stop_time=2 * n * step)[0][:, 0]
    else:
        frame = session.simulate(lambda t: {"steeringWheelAngle": 0.0, "brakePedal": 0.0,
                                            "throttle": 0.0 if t == 0 else low if t <= n * step else high},
                                 2 * n * step, step, [SPEED], runner="fmpy")
        v = frame[SPEED].to_numpy()
    return hold_from_speeds(v, step)


PROBE_INPUTS = ["steeringWheelAngle", "brakePedal", "throttle"]


def probe_table(step: float) -> tuple[np.ndarray, np.ndarray]:
    """The points and the input table (PROBE_INPUTS) of the feed-forward probe at communication step ``step``."""
    n = round(PROBE_TIME / step)
    low, high = PROBE_THROTTLES
    times = 0.0 + step * np.arange(2 * n + 1)
    throttle = np.where(times == 0, 0.0, np.where(times <= n * step, low, high))
    return times, np.column_stack([np.zeros_like(times), np.zeros_like(times), throttle])


def hold_from_speeds(v: np.ndarray, step: float) -> float:
    """The feed-forward throttle from the probe's speeds ``v`` at its points (see _holding_throttle)."""
    n = round(PROBE_TIME / step)
    low, high = PROBE_THROTTLES
    slope_low, slope_high = ((v[k] - v[k - n // 2]) / (n // 2 * step) for k in (n, 2 * n))
    if slope_high <= slope_low:  # the throttle does not pull (e.g. beyond the engine's speed range)
        return 0.0
    return float(np.clip(low - slope_low * (high - low) / (slope_high - slope_low), 0.0, 1.0))


def _recorded(outputs: Iterable[str]) -> list[str]:
    """The scenario's outputs and every other definition of them (pybridge.evaluate.channels), in that order."""
    recorded = list(outputs)
    recorded += [v for c in outputs for v in variants(c) if v not in recorded]
    return recorded


def _feeds(channel: str, outputs: Iterable[str]) -> bool:
    """True when an output is derived from ``channel`` (the tyre loads of the load transfers)."""
    return any(channel in left + right for name, (left, right) in LOAD_TRANSFER.items() if name in outputs)


def _check(session: FMUSession, scenario: Scenario) -> None:
    if scenario.kind != "full_vehicle":
        raise ScenarioError(f"{scenario.path}: kind: {scenario.kind}; run_scenario drives the full-vehicle RTM only")
    for name in scenario.inputs:
        if name not in FMU_INPUTS:
            raise ScenarioError(f"{scenario.path}: inputs.{name}: unknown input (expected {', '.join(FMU_INPUTS)})")
    for channel in scenario.outputs:
        if channel != "time" and channel not in FMU_CHANNELS and channel not in LOAD_TRANSFER:
            raise ScenarioError(f"{scenario.path}: outputs: unknown channel {channel!r} for the RTM (expected one "
                                f"of {', '.join(['time', *FMU_CHANNELS, *LOAD_TRANSFER])})")
    for variable in [INITIAL_SPEED, *FMU_INPUTS.values(), *FMU_CHANNELS.values()]:
        if variable not in session.variables:
            raise ManoeuvreError(f"{session.path}: no variable {variable!r}; expected the RTM14DoF interface "
                                 f"(inputs {', '.join(FMU_INPUTS.values())}, parameter {INITIAL_SPEED})")


def _channels(frame, scenario: Scenario, resolve, stopped_at: float | None,
              inputs: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
    """Scenario channels from the FMU's variables at the sample times (``frame``: a DataFrame, or variable name ->
    array); ``inputs``: the scenario's input values at those times where the caller has them already. The
    trace's float columns are handed to pybridge.evaluate.kpi (``remember_columns``), which scores from them."""
    columns = {"time": np.asarray(frame["time"])}
    for channel, name in FMU_CHANNELS.items():
        if name in frame:
            columns[channel] = np.asarray(frame[name])
    if "heave" in columns:
        columns["heave"] = columns["heave"] - columns["heave"][0]
    for name in scenario.inputs:  # the scenario's value at the sample, not the mid-step value held
        columns[name] = inputs[name] if inputs is not None else scenario.signal(name, resolve)(columns["time"])
    for name, (right, left) in LOAD_TRANSFER.items():
        if name in scenario.outputs:
            columns[name] = (sum(columns[c] for c in right) - sum(columns[c] for c in left)) / 2
    recorded = {c: columns[c] for c in _recorded(scenario.outputs)}
    trace = pd.DataFrame(recorded)
    trace.attrs["units"] = {c: OUTPUT_CHANNELS[c][0] for c in trace.columns}
    trace.attrs["stopped_at"] = stopped_at
    return remember_columns(trace, recorded)


PLOT_CHANNELS = ("steering_wheel_angle", "throttle", "brake", "speed", "ax", "ay", "yaw_rate", "roll", "pitch",
                 "sideslip", "load_transfer_total", "gear")


def plot_trace(trace: pd.DataFrame, path: str | Path, title: str) -> Path:
    """A PNG of the trace's main channels (PLOT_CHANNELS present in it) against time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    channels = [c for c in PLOT_CHANNELS if c in trace] or [c for c in trace if c != "time"]
    fig, axes = plt.subplots(len(channels), 1, figsize=(8, 1.6 * len(channels) + 0.6), sharex=True, squeeze=False)
    for ax, channel in zip(axes[:, 0], channels):
        ax.plot(trace["time"], trace[channel], lw=1)
        ax.set_ylabel(f"{channel}\n[{OUTPUT_CHANNELS[channel][0]}]", fontsize=8)
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel("time [s]")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


class ManifestReferences:
    """``resolve(name, argument)`` from the ``references`` of an MBM data-set manifest (picklable).

    ``ramp_steer_at_ay``: the entry's ``steering_wheel_angle [rad]``; its ``ay [m/s^2]`` must equal the
    scenario's argument.
    """

    KEYS = {"ramp_steer_at_ay": ("ay [m/s^2]", "steering_wheel_angle [rad]")}

    def __init__(self, manifest: str | Path):
        path = Path(manifest)
        self.path = path / "manifest.yaml" if path.is_dir() else path
        raw = read_yaml(self.path, ManoeuvreError)
        references = raw.get("references") if isinstance(raw, dict) else None
        if not isinstance(references, dict):
            raise ManoeuvreError(f"{self.path}: references: missing; expected a mapping (pybridge mbm generate)")
        self.references = references

    def __call__(self, name: str, argument: float | None) -> float:
        entry = self.references.get(name)
        if name not in self.KEYS or not isinstance(entry, dict):
            raise ManoeuvreError(f"{self.path}: references.{name}: not in the manifest "
                                 f"(it has {', '.join(self.references) or 'none'})")
        given, value = self.KEYS[name]
        for key in (given, value):
            if not isinstance(entry.get(key), (int, float)):
                raise ManoeuvreError(f"{self.path}: references.{name}.{key}: missing; expected a number")
        if argument is not None and not np.isclose(entry[given], argument, rtol=1e-9, atol=1e-9):
            raise ManoeuvreError(f"{self.path}: references.{name}: made for {given} = {entry[given]}, "
                                 f"the scenario asks for {argument}")
        return float(entry[value])


# ---------------------------------------------------------------- worker pool

_worker_session: FMUSession | None = None


def _open_worker_session(fmu: str) -> None:
    global _worker_session
    ignore_interrupts()
    _worker_session = FMUSession(fmu, instance_name=f"worker{os.getpid()}")
    multiprocessing.util.Finalize(_worker_session, _worker_session.close, exitpriority=10)


def _run_in_worker(params, scenario, resolve, step, runner) -> pd.DataFrame | Exception:
    try:
        return run_scenario(_worker_session, scenario, params, resolve, step, runner=runner)
    except Exception as error:  # returned, not raised: one bad job must not stop the others
        try:
            return pickle.loads(pickle.dumps(error))
        except Exception:
            return RuntimeError(f"{type(error).__name__}: {error}")


class ScenarioRunner:
    """``workers`` processes, each with one FMUSession of ``fmu`` reused for every run it gets; ``runner``
    as in :func:`run_scenario`."""

    def __init__(self, fmu: str | Path, workers: int = 2, runner: str | None = None):
        if workers < 1:
            raise ValueError(f"ScenarioRunner: workers = {workers}; expected at least 1")
        self.fmu, self.workers, self.runner = Path(fmu), workers, runner
        self._pool = process_pool(workers, initializer=_open_worker_session, initargs=(str(self.fmu),))

    def run(self, jobs: Iterable[tuple[ParameterSet | None, Scenario | str | Path]],
            resolve: Callable[[str, float | None], float] | None = None,
            step: float | None = None) -> list[pd.DataFrame | Exception]:
        """Trace of each (params, scenario) in order; a failed job gives its exception instead.
        ``resolve`` goes to the worker processes, so it must be picklable (e.g. ManifestReferences)."""
        futures = [self._pool.submit(_run_in_worker, params, scenario, resolve, step, self.runner)
                   for params, scenario in jobs]
        results = []
        for future in futures:
            raise_if_interrupted()
            try:
                results.append(future.result())
            except Exception as error:  # a job that could not be sent, or a worker that died
                results.append(error)
        return results

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)    # interrupted: the jobs not started are dropped

    def __enter__(self) -> ScenarioRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
