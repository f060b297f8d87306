"""Declarative manoeuvre scenarios: YAML files -> driver-input signals, speed control, end conditions.

A scenario file (``scenarios/manoeuvres/*.yaml``, read with ``yaml.safe_load``, validated strictly)::

    format: vehiclertm-scenario 1
    name: ramp_steer
    description: what the test is for and where its numbers come from
    kind: full_vehicle                          # full_vehicle | four_post | corner_force
    initial_speed: {value: 80, unit: km/h}      # full_vehicle only
    duration: {value: 55, unit: s}
    sample_rate: {value: 100, unit: Hz}         # at least 100 Hz
    inputs:                                     # every input of the kind (see INPUTS) -> a signal
      steering_wheel_angle: {type: ramp, start: {value: 1, unit: s}, rate: {value: 5, unit: deg/s}}
    speed_control: {target: initial}            # full_vehicle: holds the speed; else throttle and brake inputs
                                                # (target: {from_reference: true}: the reference's speed)
    end: {ay_above: {value: 0.6, unit: g}}      # optional, full_vehicle: speed_below, ay_above (|ay|)
    outputs: [time, speed, ay]                  # names of OUTPUT_CHANNELS

A quantity is ``{value: number, unit: text}`` (units in UNITS), a table column
``{values: [numbers], unit: text}``. A signal's ``value``, ``amplitude``, ``limit`` or ``rms`` may instead
name a quantity the caller resolves (REFERENCES), e.g. ``{from: ramp_steer_at_ay, value: 0.4, unit: g}``:
``Scenario.signal(name, resolve)`` calls ``resolve("ramp_steer_at_ay", 3.92)`` and takes the result in
the input's SI unit. Signal types (keys in SIGNALS; ``tau = t - start``; ``w`` a raised-cosine taper of
length ``fade`` at both ends of the active window, 1 inside, 0 outside)::

    constant  value
    ramp      rate*tau for tau >= 0, stopped at limit (optional, same sign as rate)
    step      amplitude*clip(rate*tau/|amplitude|, 0, 1): a rise at the given rate (ISO 7401 ~500 deg/s)
    sine      amplitude*sin(2 pi frequency tau) for `periods` periods (a multiple of 0.5), else 0
    chirp     w*amplitude*sin(phi + phase) for 0 <= tau <= duration, frequency f0 -> f1, law linear | log;
              or velocity_amplitude v: w*v/omega*sin(phi + phase), a constant velocity amplitude
              (four-post rigs); with f0 = 0 this needs fade > 0
    random    w * band-limited random signal: sum of sines at k/duration Hz up to bandwidth, equal
              amplitudes, phases from numpy.random.default_rng(seed), rms over the window = rms
    table     linear interpolation of time/value columns, end values held
    sum       sum of the signals listed in terms

An input may instead be ``{from_reference: true}``: the channel of the same name in the reference trace
the scenario is run against (what the MBM's driver or the test driver applied), filled in by
``pybridge.simulate.recorded.recorded_inputs`` before the run.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pybridge.limits import SCENARIO_SAMPLES
from pybridge.fileio import read_yaml

__all__ = [
    "FORMAT", "INPUTS", "KINDS", "OUTPUT_CHANNELS", "REFERENCES", "SHIPPED_DIR", "SIGNALS", "UNITS",
    "Reference", "Scenario", "ScenarioError", "SpeedControl", "SpeedController", "list_scenarios",
    "load_scenario",
]

FORMAT = "vehiclertm-scenario 1"
SHIPPED_DIR = Path(__file__).resolve().parents[2] / "scenarios" / "manoeuvres"
KINDS = ("full_vehicle", "four_post", "corner_force")
MIN_SAMPLE_RATE = 100.0

# unit -> factor to SI, per dimension (the first unit of each is the one files use most)
UNITS = {
    "time": {"s": 1.0, "ms": 1e-3},
    "frequency": {"Hz": 1.0},
    "angle": {"deg": math.pi / 180, "rad": 1.0},
    "angular_rate": {"deg/s": math.pi / 180, "rad/s": 1.0},
    "velocity": {"km/h": 1 / 3.6, "m/s": 1.0, "mm/s": 1e-3},
    "acceleration": {"g": 9.80665, "m/s^2": 1.0},
    "length": {"mm": 1e-3, "m": 1.0},
    "force": {"N": 1.0, "kN": 1e3},
    "force_rate": {"N/s": 1.0, "kN/s": 1e3},
    "ratio": {"%": 0.01, "1": 1.0},
    "ratio_rate": {"%/s": 0.01, "1/s": 1.0},
    "speed_gain": {"s/m": 1.0, "h/km": 3.6},  # pedal per m/s (or per km/h) of speed error
    "integral_gain": {"1/m": 1.0},  # pedal per m of integrated speed error
}
RATE_OF = {"angle": "angular_rate", "length": "velocity", "force": "force_rate", "ratio": "ratio_rate"}

# inputs of each kind -> dimension; all are required, except throttle and brake under speed_control
INPUTS = {
    "full_vehicle": {"steering_wheel_angle": "angle", "throttle": "ratio", "brake": "ratio"},
    "four_post": {f"post_{c}": "length" for c in ("fl", "fr", "rl", "rr")},
    "corner_force": {"corner_force": "force"},
}
PEDALS = ("throttle", "brake")

# references a caller resolves -> dimension of their argument (None: no argument)
REFERENCES = {
    "ramp_steer_at_ay": "acceleration",  # steering-wheel angle at which the ramp steer reached |ay| = value
    "corner_weight": None,  # static vertical load of the corner under test (sprung + unsprung), N
}

END_CONDITIONS = {"speed_below": ("speed", "velocity"), "ay_above": ("ay", "acceleration")}

OUTPUT_CHANNELS = {
    "time": ("s", "simulation time"),
    "speed": ("m/s", "longitudinal speed of the body"),
    "ax": ("m/s^2", "longitudinal acceleration at the centre of gravity, positive forward"),
    "ay": ("m/s^2", "lateral acceleration at the centre of gravity, positive to the left"),
    "yaw_rate": ("rad/s", "yaw rate, positive to the left"),
    "roll": ("rad", "roll angle of the body, positive right side down"),
    "pitch": ("rad", "pitch angle of the body, positive nose down"),
    "sideslip": ("rad", "sideslip angle at the centre of gravity, atan(vy/vx)"),
    # the same quantities under other definitions (pybridge.evaluate.channels; a trace header declares which)
    "ax_sprung": ("m/s^2", "longitudinal acceleration of the sprung mass's centre of gravity, yaw frame"),
    "ay_sprung": ("m/s^2", "lateral acceleration of the sprung mass's centre of gravity, yaw frame"),
    "ax_sensor": ("m/s^2", "body-fixed accelerometer, body x axis (specific force, reads gravity in pitch)"),
    "ay_sensor": ("m/s^2", "body-fixed accelerometer, body y axis (specific force, reads gravity in roll)"),
    "sideslip_sprung": ("rad", "sideslip angle at the sprung mass's centre of gravity"),
    "sideslip_sensor": ("rad", "sideslip angle of a body-fixed point (the velocity sensor)"),
    "roll_road": ("rad", "roll angle of the body relative to the road plane"),
    "pitch_road": ("rad", "pitch angle of the body relative to the road plane"),
    "steering_wheel_angle": ("rad", "steering-wheel angle, positive to the left"),
    "throttle": ("1", "accelerator pedal, 0..1"),
    "brake": ("1", "brake pedal, 0..1"),
    "gear": ("1", "engaged gear"),
    "engine_speed": ("rad/s", "engine speed"),
    # on-board sensor channels a vehicle log carries as the RTM's inputs (pybridge.onboard.log_inputs)
    "rack_travel": ("m", "steering rack travel from centre, positive steering to the left"),
    "wheel_torque_rl": ("N m", "torque on the RL wheel at its hub (drive minus brake), positive driving forward"),
    "wheel_torque_rr": ("N m", "torque on the RR wheel at its hub (drive minus brake), positive driving forward"),
    "brake_pressure": ("Pa", "brake line pressure (front circuit)"),
    **{f"fz_{c}": ("N", f"vertical tyre load {c.upper()}") for c in ("fl", "fr", "rl", "rr")},
    "load_transfer_front": ("N", "lateral load transfer (fz_fr - fz_fl)/2, positive in a left turn"),
    "load_transfer_rear": ("N", "lateral load transfer (fz_rr - fz_rl)/2, positive in a left turn"),
    "load_transfer_total": ("N", "load_transfer_front + load_transfer_rear"),
    "heave": ("m", "vertical displacement of the body's centre of gravity from static, positive up"),
    **{f"post_{c}": ("m", f"displacement of the {c.upper()} post, positive up") for c in ("fl", "fr", "rl", "rr")},
    "corner_force": ("N", "vertical force applied to the corner"),
    "wheel_travel": ("m", "wheel travel of the corner, positive in bump"),
}
_POSTS = {f"post_{c}" for c in ("fl", "fr", "rl", "rr")}
_FZ = {f"fz_{c}" for c in ("fl", "fr", "rl", "rr")}
KIND_OUTPUTS = {
    "full_vehicle": set(OUTPUT_CHANNELS) - _POSTS - {"corner_force", "wheel_travel"},
    "four_post": {"time", "heave", "pitch", "roll"} | _POSTS | _FZ,
    "corner_force": {"time", "corner_force", "wheel_travel"},
}

# signal type -> (required fields, optional fields); field -> how it is read
SIGNALS = {
    "constant": ({"value": "value"}, {}),
    "ramp": ({"start": "time", "rate": "rate"}, {"limit": "value"}),
    "step": ({"start": "time", "amplitude": "value", "rate": "rate"}, {}),
    "sine": ({"amplitude": "value", "frequency": "frequency", "start": "time", "periods": "count"}, {}),
    "chirp": ({"f0": "frequency", "f1": "frequency", "duration": "time"},
              {"amplitude": "value", "velocity_amplitude": "rate", "start": "time", "law": "law",
               "fade": "time", "phase": "angle"}),
    "random": ({"rms": "value", "bandwidth": "frequency", "seed": "seed", "duration": "time"},
               {"start": "time", "fade": "time"}),
    "table": ({"time": "times", "value": "values"}, {}),
    "sum": ({"terms": "terms"}, {}),
}
_DEFAULTS = {"start": 0.0, "fade": 0.0, "phase": 0.0, "law": "linear"}


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message names the file and the key path."""


class _Invalid(Exception):
    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path, self.message = path, message


@dataclass(frozen=True)
class Reference:
    """A value the caller resolves: ``resolve(name, argument)``; ``path`` is its key path in the file."""
    name: str
    argument: float | None
    path: str


@dataclass(frozen=True)
class SpeedControl:
    """The speed_control block, SI: target speed m/s, kp pedal per m/s, ki pedal per m. ``from_reference``:
    the target follows the reference trace's speed, ``profile`` (times, speeds) once filled in
    (pybridge.simulate.recorded); ``target`` is then the initial speed."""
    target: float
    kp: float = 0.5
    ki: float = 0.1
    brake_gain: float = 0.3
    from_reference: bool = False
    profile: tuple | None = None

    def target_at(self, t):
        """The target speed at time(s) t (m/s)."""
        if self.profile is None:
            return np.full(np.shape(t), self.target) if np.ndim(t) else self.target
        return np.interp(t, *self.profile)


class SpeedController:
    """PI speed controller with conditional-integration anti-windup and a feed-forward hook.

    command = feedforward(t, target) + kp*e + ki*integral(e), e = target - speed, clipped to [-1, 1];
    throttle = max(command, 0), brake = brake_gain*max(-command, 0). The integral stops growing while
    the command is saturated in the direction of the error.
    """

    def __init__(self, target: float, kp: float = 0.5, ki: float = 0.1, brake_gain: float = 0.3,
                 feedforward: Callable[[float, float], float] | None = None,
                 target_at: Callable[[float], float] | None = None):
        self.target, self.kp, self.ki, self.brake_gain = target, kp, ki, brake_gain
        self.feedforward, self.target_at = feedforward, target_at
        self.integral = 0.0

    def reset(self) -> None:
        self.integral = 0.0

    def update(self, t: float, speed: float, h: float) -> tuple[float, float]:
        """Advance by the step h (s) at time t with the measured speed (m/s); return (throttle, brake)."""
        target = float(self.target_at(t)) if self.target_at else self.target
        error = target - speed
        base = self.kp * error + (self.feedforward(t, target) if self.feedforward else 0.0)
        trial = base + self.ki * (self.integral + error * h)
        if abs(trial) < 1.0 or trial * error < 0.0:
            self.integral += error * h
        command = min(max(base + self.ki * self.integral, -1.0), 1.0)
        return max(command, 0.0), self.brake_gain * max(-command, 0.0)


@dataclass(frozen=True, eq=False)
class Scenario:
    """A validated scenario, SI inside. ``inputs`` holds the parsed signal specifications."""
    path: Path
    name: str
    description: str
    kind: str
    initial_speed: float | None
    duration: float
    sample_rate: float
    inputs: dict
    speed_control: SpeedControl | None
    end: dict
    outputs: tuple
    recorded: tuple = ()  # inputs replaced by a reference trace's channel (pybridge.simulate.recorded)

    def time(self) -> np.ndarray:
        """Sample times 0, 1/sample_rate, ..., duration (s)."""
        return np.arange(round(self.duration * self.sample_rate) + 1) / self.sample_rate

    def signal(self, name: str, resolve: Callable[[str, float | None], float] | None = None
               ) -> Callable[[np.ndarray], np.ndarray]:
        """The input ``name`` as a vectorised function of time (s) in SI (rad, m, N, 0..1)."""
        if name not in self.inputs:
            raise ScenarioError(f"{self.path}: inputs.{name}: not defined (inputs: {', '.join(self.inputs)})")
        try:
            return _build(self.inputs[name], resolve)
        except _Invalid as exc:
            raise ScenarioError(f"{self.path}: {exc}") from None

    def references(self) -> list[Reference]:
        """The references the signals need resolved, in file order."""
        found = []

        def walk(node):
            if isinstance(node, Reference):
                found.append(node)
            elif isinstance(node, dict):
                for item in node.values():
                    walk(item)
            elif isinstance(node, list):
                for item in node:
                    walk(item)
        walk(self.inputs)
        return found

    def speed_controller(self, feedforward: Callable[[float, float], float] | None = None) -> SpeedController:
        """A new PI controller set up from the speed_control block."""
        if self.speed_control is None:
            raise ScenarioError(f"{self.path}: speed_control: not given (this test drives the pedals)")
        c = self.speed_control
        if c.from_reference and c.profile is None:
            raise ScenarioError(f"{self.path}: speed_control.target: from_reference: the speed profile comes from "
                                "the reference trace, which is not given (pybridge.simulate.recorded.recorded_inputs)")
        return SpeedController(c.target, c.kp, c.ki, c.brake_gain, feedforward,
                               c.target_at if c.profile is not None else None)

    def end_reached(self, t: float, channels: Mapping[str, float] | None = None) -> bool:
        """True at t >= duration or when an end condition holds for the channel values given."""
        channels = channels or {}
        for condition, threshold in self.end.items():
            channel = END_CONDITIONS[condition][0]
            if channel not in channels:
                raise ScenarioError(f"{self.path}: end.{condition}: needs the channel {channel!r}")
            value = channels[channel]
            if (value < threshold) if condition == "speed_below" else (abs(value) > threshold):
                return True
        return t >= self.duration


def list_scenarios() -> list[Path]:
    """The shipped scenario files, sorted by name."""
    return sorted(SHIPPED_DIR.glob("*.yaml"))


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; a bare name (``"ramp_steer"``) means a shipped file."""
    path = Path(path)
    if not path.suffix and path.parent == Path(".") and (SHIPPED_DIR / f"{path}.yaml").exists():
        path = SHIPPED_DIR / f"{path}.yaml"
    raw = read_yaml(path, ScenarioError)
    try:
        return _parse(raw, path)
    except _Invalid as exc:
        raise ScenarioError(f"{path}: {exc}") from None


# ---------------------------------------------------------------- validation

def _mapping(raw, path, required, optional=()):
    if not isinstance(raw, dict):
        raise _Invalid(path, f"expected a mapping, got {type(raw).__name__}")
    allowed = [*required, *optional]
    for key in raw:
        if key not in allowed:
            raise _Invalid(_join(path, key), f"unknown key (expected one of {', '.join(map(str, allowed))})")
    for key in required:
        if key not in raw:
            raise _Invalid(_join(path, key), "missing key")
    return raw


def _join(path, key):
    return f"{path}.{key}" if path else str(key)


def _number(raw, path):
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
        raise _Invalid(path, f"expected a finite number, got {raw!r}")
    return float(raw)


def _text(raw, path):
    if not isinstance(raw, str) or not raw.strip():
        raise _Invalid(path, f"expected a non-empty text, got {raw!r}")
    return raw.strip()


def _unit(raw, path, dimension):
    unit = str(raw["unit"])
    units = UNITS[dimension]
    if unit not in units:
        raise _Invalid(path, f"unknown unit {unit!r} (expected one of {', '.join(units)})")
    return units[unit]


def _quantity(raw, path, dimension, minimum=None):
    _mapping(raw, path, ("value", "unit"))
    value = _number(raw["value"], _join(path, "value")) * _unit(raw, path, dimension)
    if minimum is not None and value < minimum:
        raise _Invalid(path, f"must be at least {minimum:g} in SI units, got {value:g}")
    return value


def _amount(raw, path, dimension):
    """A quantity, or a Reference the caller resolves."""
    if not (isinstance(raw, dict) and "from" in raw):
        return _quantity(raw, path, dimension)
    name = raw["from"]
    if name not in REFERENCES:
        raise _Invalid(_join(path, "from"), f"unknown reference {name!r} (expected one of {', '.join(REFERENCES)})")
    argument_dimension = REFERENCES[name]
    if argument_dimension is None:
        _mapping(raw, path, ("from",))
        return Reference(name, None, path)
    _mapping(raw, path, ("from", "value", "unit"))
    return Reference(name, _quantity({"value": raw["value"], "unit": raw["unit"]}, path, argument_dimension), path)


def _column(raw, path, dimension):
    _mapping(raw, path, ("values", "unit"))
    values = raw["values"]
    if not isinstance(values, list) or len(values) < 2:
        raise _Invalid(_join(path, "values"), "expected a list of at least 2 numbers")
    numbers = [_number(v, f"{path}.values[{i}]") for i, v in enumerate(values)]
    return np.array(numbers) * _unit(raw, path, dimension)


def _choice(raw, path, choices):
    if raw not in choices:
        raise _Invalid(path, f"expected one of {', '.join(choices)}, got {raw!r}")
    return raw


def _seed(raw, path):
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise _Invalid(path, f"expected a non-negative integer, got {raw!r}")
    return raw


_FIELDS = {
    "time": lambda raw, path, dim: _quantity(raw, path, "time", minimum=0.0),
    "frequency": lambda raw, path, dim: _quantity(raw, path, "frequency", minimum=0.0),
    "angle": lambda raw, path, dim: _quantity(raw, path, "angle"),
    "value": lambda raw, path, dim: _amount(raw, path, dim),
    "rate": lambda raw, path, dim: _quantity(raw, path, RATE_OF[dim]),
    "count": lambda raw, path, dim: _number(raw, path),
    "seed": lambda raw, path, dim: _seed(raw, path),
    "law": lambda raw, path, dim: _choice(raw, path, ("linear", "log")),
    "times": lambda raw, path, dim: _column(raw, path, "time"),
    "values": lambda raw, path, dim: _column(raw, path, dim),
    "terms": lambda raw, path, dim: _terms(raw, path, dim),
}


def _terms(raw, path, dimension):
    if not isinstance(raw, list) or not raw:
        raise _Invalid(path, "expected a non-empty list of signals")
    return [_signal(item, f"{path}[{i}]", dimension) for i, item in enumerate(raw)]


def _signal(raw, path, dimension):
    if not isinstance(raw, dict):
        raise _Invalid(path, f"expected a signal (a mapping with a type), got {type(raw).__name__}")
    if "type" not in raw:
        raise _Invalid(_join(path, "type"), "missing key")
    kind = raw["type"]
    if kind not in SIGNALS:
        raise _Invalid(_join(path, "type"), f"unknown signal type {kind!r} (expected one of {', '.join(SIGNALS)})")
    required, optional = SIGNALS[kind]
    _mapping(raw, path, ("type", *required), tuple(optional))
    spec = {"type": kind}
    for key, field in {**required, **optional}.items():
        if key in raw:
            spec[key] = _FIELDS[field](raw[key], _join(path, key), dimension)
        elif key in _DEFAULTS:
            spec[key] = _DEFAULTS[key]
    _check_signal(spec, path)
    return spec


def _input(raw, name, dimension):
    """A top-level input: a signal, or ``{from_reference: true}`` (the reference trace's channel ``name``)."""
    path = "speed_control.target" if name == "speed" else f"inputs.{name}"
    if isinstance(raw, dict) and "from_reference" in raw:
        _mapping(raw, path, ("from_reference",))
        if raw["from_reference"] is not True:
            raise _Invalid(_join(path, "from_reference"), f"expected true, got {raw['from_reference']!r}")
        return {"type": "from_reference", "channel": name}
    return _signal(raw, path, dimension)


def _check_signal(s, path):
    def fail(key, message):
        raise _Invalid(_join(path, key), message)
    kind = s["type"]
    if kind == "ramp":
        if s["rate"] == 0:
            fail("rate", "must not be zero")
        if isinstance(s.get("limit"), float) and s["limit"] * s["rate"] <= 0:
            fail("limit", "must be non-zero with the sign of rate")
    elif kind == "step" and s["rate"] <= 0:
        fail("rate", "must be positive")
    elif kind == "sine":
        if s["frequency"] <= 0:
            fail("frequency", "must be positive")
        if s["periods"] <= 0 or (2 * s["periods"]) % 1:
            fail("periods", "must be a positive multiple of 0.5 (the sine ends at zero)")
    elif kind == "chirp":
        if ("amplitude" in s) == ("velocity_amplitude" in s):
            fail("amplitude", "give exactly one of amplitude, velocity_amplitude")
        if s["duration"] <= 0:
            fail("duration", "must be positive")
        if s["law"] == "log" and (min(s["f0"], s["f1"]) <= 0 or s["f0"] == s["f1"]):
            fail("law", "log needs f0, f1 > 0 and f0 != f1")
        if "velocity_amplitude" in s and s["f0"] == 0 and s["fade"] == 0:
            fail("fade", "velocity_amplitude with f0 = 0 needs fade > 0 (a smooth start)")
    elif kind == "random":
        if s["duration"] <= 0 or s["bandwidth"] * s["duration"] < 1:
            fail("bandwidth", "bandwidth*duration must be at least 1")
        if isinstance(s["rms"], float) and s["rms"] < 0:
            fail("rms", "must not be negative")
    elif kind == "table":
        if len(s["time"]) != len(s["value"]):
            fail("value", f"has {len(s['value'])} values for {len(s['time'])} times")
        if np.any(np.diff(s["time"]) <= 0):
            fail("time", "must increase strictly")
    if s.get("fade", 0.0) > s.get("duration", math.inf) / 2:
        fail("fade", "must not exceed half the duration")


def _parse(raw, path):
    if not isinstance(raw, dict):
        raise _Invalid("(top level)", f"expected a mapping, got {type(raw).__name__}")
    if "kind" not in raw:
        raise _Invalid("kind", "missing key")
    kind = _choice(raw["kind"], "kind", KINDS)
    common = ("format", "name", "description", "kind", "duration", "sample_rate", "inputs", "outputs")
    if kind == "full_vehicle":
        _mapping(raw, "", (*common, "initial_speed"), ("speed_control", "end"))
    else:
        _mapping(raw, "", common)
    if raw["format"] != FORMAT:
        raise _Invalid("format", f"expected {FORMAT!r}, got {raw['format']!r}")
    sample_rate = _quantity(raw["sample_rate"], "sample_rate", "frequency")
    if sample_rate < MIN_SAMPLE_RATE:
        raise _Invalid("sample_rate", f"must be at least {MIN_SAMPLE_RATE:g} Hz, got {sample_rate:g} Hz")
    duration = _quantity(raw["duration"], "duration", "time")
    if duration <= 0:
        raise _Invalid("duration", "must be positive")
    samples = duration * sample_rate + 1
    if samples > SCENARIO_SAMPLES.value():
        raise _Invalid("duration", f"{duration:g} s at {sample_rate:g} Hz is {samples:.4g} samples, more than "
                                   f"{SCENARIO_SAMPLES.describe()}")
    initial_speed = None
    if kind == "full_vehicle":
        initial_speed = _quantity(raw["initial_speed"], "initial_speed", "velocity", 0.0)

    speed_control = None
    if "speed_control" in raw:
        block = _mapping(raw["speed_control"], "speed_control", ("target",), ("kp", "ki", "brake_gain"))
        recorded = isinstance(block["target"], dict) and "from_reference" in block["target"]
        if recorded:
            _input(block["target"], "speed", "velocity")  # checks {from_reference: true}
            target = initial_speed
        else:
            target = initial_speed if block["target"] == "initial" else \
                _quantity(block["target"], "speed_control.target", "velocity", 0.0)
        dimensions = {"kp": "speed_gain", "ki": "integral_gain", "brake_gain": "ratio"}
        gains = {key: _quantity(block[key], f"speed_control.{key}", dim, 0.0)
                 for key, dim in dimensions.items() if key in block}
        speed_control = SpeedControl(target, **gains, from_reference=recorded)

    expected = INPUTS[kind]
    required = [n for n in expected if not (speed_control and n in PEDALS)]
    given = _mapping(raw["inputs"], "inputs", required, [n for n in expected if n not in required])
    if speed_control:
        for pedal in PEDALS:
            if pedal in given:
                raise _Invalid(f"inputs.{pedal}", "not allowed with speed_control (the controller sets the pedals)")
    inputs = {name: _input(given[name], name, expected[name]) for name in given}

    end = {}
    for key, value in _mapping(raw.get("end", {}), "end", (), tuple(END_CONDITIONS)).items():
        end[key] = _quantity(value, f"end.{key}", END_CONDITIONS[key][1], 0.0)

    outputs = raw["outputs"]
    if not isinstance(outputs, list) or not outputs:
        raise _Invalid("outputs", "expected a non-empty list of channel names")
    for i, channel in enumerate(outputs):
        if channel not in KIND_OUTPUTS[kind]:
            raise _Invalid(f"outputs[{i}]", f"unknown channel {channel!r} for kind {kind} "
                                            f"(expected one of {', '.join(sorted(KIND_OUTPUTS[kind]))})")
    return Scenario(path, _text(raw["name"], "name"), _text(raw["description"], "description"), kind,
                    initial_speed, duration, sample_rate, inputs, speed_control, end, tuple(outputs))


# ---------------------------------------------------------------- signals

def _taper(tau, duration, fade):
    """1 on [fade, duration - fade], raised-cosine edges, 0 outside [0, duration]."""
    inside = ((tau >= 0) & (tau <= duration)).astype(float)
    if fade <= 0:
        return inside
    edge = np.clip(np.minimum(tau, duration - tau) / fade, 0.0, 1.0)
    return inside * (0.5 - 0.5 * np.cos(np.pi * edge))


def _chirp_phase(tau, f0, f1, duration, law):
    """Phase (rad) and angular frequency (rad/s) of the sweep at tau, clamped to [0, duration]."""
    tau = np.clip(tau, 0.0, duration)
    if law == "linear":
        rate = (f1 - f0) / duration
        return 2 * np.pi * (f0 * tau + rate * tau ** 2 / 2), 2 * np.pi * (f0 + rate * tau)
    growth = math.log(f1 / f0) / duration
    return 2 * np.pi * f0 * np.expm1(growth * tau) / growth, 2 * np.pi * f0 * np.exp(growth * tau)


def _build(spec, resolve):
    def value(x):
        if not isinstance(x, Reference):
            return x
        if resolve is None:
            raise _Invalid(x.path, f"needs the reference {x.name!r}: pass resolve=callable(name, argument)")
        return float(resolve(x.name, x.argument))

    kind, start = spec["type"], spec.get("start", 0.0)
    if kind == "from_reference":
        raise _Invalid(f"inputs.{spec['channel']}", "from_reference: the input comes from the reference trace, "
                                                    "which is not given (pybridge.simulate.recorded.recorded_inputs)")
    if kind == "constant":
        level = value(spec["value"])
        return lambda t: np.full(np.shape(t), level)
    if kind == "ramp":
        rate, limit = spec["rate"], value(spec.get("limit"))
        low, high = (-np.inf, np.inf) if limit is None else (-np.inf, limit) if rate > 0 else (limit, np.inf)
        return lambda t: np.clip(rate * np.maximum(np.asarray(t, float) - start, 0.0), low, high)
    if kind == "step":
        amplitude, rate = value(spec["amplitude"]), spec["rate"]
        rise = max(abs(amplitude) / rate, 1e-12)
        return lambda t: amplitude * np.clip((np.asarray(t, float) - start) / rise, 0.0, 1.0)
    if kind == "sine":
        amplitude, frequency = value(spec["amplitude"]), spec["frequency"]
        end = spec["periods"] / frequency

        def sine(t):
            tau = np.asarray(t, float) - start
            return np.where((tau >= 0) & (tau <= end), amplitude * np.sin(2 * np.pi * frequency * tau), 0.0)
        return sine
    if kind == "chirp":
        duration, fade, phase0 = spec["duration"], spec["fade"], spec["phase"]
        by_velocity = "velocity_amplitude" in spec
        amplitude = spec["velocity_amplitude"] if by_velocity else value(spec["amplitude"])

        def chirp(t):
            tau = np.asarray(t, float) - start
            phase, omega = _chirp_phase(tau, spec["f0"], spec["f1"], duration, spec["law"])
            wave = np.sin(phase + phase0)
            if by_velocity:
                wave = np.divide(wave, omega, out=np.zeros_like(wave), where=omega > 0)
            return amplitude * _taper(tau, duration, fade) * wave
        return chirp
    if kind == "random":
        duration = spec["duration"]
        frequencies = np.arange(1, int(spec["bandwidth"] * duration + 1e-9) + 1) / duration
        phases = np.random.default_rng(spec["seed"]).uniform(0.0, 2 * np.pi, frequencies.size)
        each = value(spec["rms"]) * math.sqrt(2.0 / frequencies.size)

        def random(t):
            tau = np.asarray(t, float) - start
            waves = np.sin(2 * np.pi * tau[..., None] * frequencies + phases)
            return each * _taper(tau, duration, spec["fade"]) * waves.sum(axis=-1)
        return random
    if kind == "table":
        times, values = spec["time"], spec["value"]
        return lambda t: np.interp(np.asarray(t, float), times, values)
    terms = [_build(term, resolve) for term in spec["terms"]]
    return lambda t: sum(term(t) for term in terms)
