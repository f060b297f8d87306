"""Mapping files: which channel of a result file or a measured log is which channel of the project.

A mapping file is strict YAML (:func:`pybridge.fileio.read_yaml`)::

    format: vehiclertm-map 1
    traces:                                  # trace channel (OUTPUT_CHANNELS) -> where it comes from
      ay: {source: chassis_accelerations.lateral, unit: g}
      brake_pressure: {source: p_brake, unit: bar, rate: 500, resample: hold}   # a replay input (see below)
      yaw_rate: chassis_velocities.yaw       # a bare text is {source: text}
      roll: {source: chassis_displacements.roll, scale: -1}   # the other sign convention
    kc:
      sides: {left: L1, right: R1}           # how the sources spell the vehicle's left and right wheel
      tests:                                 # K&C test -> analysis / file names (fnmatch, any case)
        parallel_travel: ["*parallel_travel*", "*bounce*"]
      axles: {front: ["*front*"], rear: ["*rear*"]}
      channels:                              # K&C column base name -> source; {side} as in `sides`
        toe: {source: "toe_angle.{side}", unit: deg}
        rack_travel: steering_rack_input.rack_input
    manoeuvres:                              # trace name -> full-vehicle analysis / file names
      step_steer: ["*step_steer*", "*steer_step*"]

A source is ``ENTITY.COMPONENT`` for an xrf result file (the entity may hold dots; the last dot
separates) and the channel name for MDF4/CSV logs. ``unit`` is the unit the source's numbers are in;
without it the unit the file declares is used. The value in SI is ``to_si(value, unit) * scale + offset``
(``scale: -1`` turns a sign convention around). ``rate`` (Hz) declares a log channel's sample rate, which
the reader checks, and ``resample`` (``hold`` or ``linear``) how ``pybridge replay`` puts it on the RTM's
1 ms step (:mod:`pybridge.onboard.resample`). :func:`load_channel_map` returns what the file says;
``ChannelMap.default().overlaid(m)`` lays it over the built-in map of Adams/Car's request names
(:meth:`ChannelMap.default`), which is what ``pybridge mbm import --map`` does. Every problem is a
:class:`ChannelMapError` of one line naming the file and the key.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from pybridge.fileio import read_yaml
from pybridge.mbm.errors import MBMDataError
from pybridge.mbm.kc_results import _CHANNELS as KC_CHANNELS
from pybridge.mbm.kc_results import AXLES, TESTS
from pybridge.mbm.units import UnitError, si_factor
from pybridge.simulate.scenarios import OUTPUT_CHANNELS

__all__ = ["FORMAT", "ChannelMap", "ChannelMapError", "ChannelSpec", "KCMap", "load_channel_map"]

FORMAT = "vehiclertm-map 1"
_KC_UNITS = {"length": "m", "angle": "rad", "force": "N", "moment": "N m"}


class ChannelMapError(MBMDataError):
    """A mapping file that cannot be used; one line naming the file, the key and what is expected."""


@dataclass(frozen=True)
class ChannelSpec:
    """Where one project channel comes from: SI value = to_si(value, unit) * scale + offset."""

    source: str
    unit: str | None = None
    scale: float = 1.0
    offset: float = 0.0
    rate: float | None = None  # Hz, the declared sample rate of a log channel (checked where it is read)
    resample: str | None = None  # hold | linear: onto the RTM's step (pybridge.onboard.resample)

    def for_side(self, spelling: str) -> ChannelSpec:
        """This spec with ``{side}`` in the source replaced by ``spelling``."""
        return replace(self, source=self.source.replace("{side}", spelling))


@dataclass(frozen=True)
class KCMap:
    """How K&C analyses are recognised and which source gives each K&C column.

    ``channels`` is keyed by the column base name (``toe``, ``wheel_travel``, ``rack_travel``); a
    per-wheel column's source holds ``{side}``, replaced by ``sides["left"]`` / ``sides["right"]``.
    ``tests`` and ``axles`` hold fnmatch patterns matched (case-insensitive) against the analysis
    name and the file name; ``loaded_side`` those telling the loaded wheel of a compliance test."""

    channels: dict[str, ChannelSpec] = field(default_factory=dict)
    sides: dict[str, str] = field(default_factory=lambda: {"left": "left", "right": "right"})
    tests: dict[str, tuple[str, ...]] = field(default_factory=dict)
    axles: dict[str, tuple[str, ...]] = field(default_factory=dict)
    loaded_side: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def column(self, column: str) -> ChannelSpec | None:
        """The source of a K&C column (``toe_left``, ``rack_travel``), None if the map names none."""
        for side in ("left", "right"):
            if column.endswith(f"_{side}") and column[: -len(side) - 1] in self.channels:
                return self.channels[column[: -len(side) - 1]].for_side(self.sides[side])
        return self.channels.get(column)


@dataclass(frozen=True)
class ChannelMap:
    """A mapping file: trace channels and K&C columns to their sources (see the module docstring)."""

    traces: dict[str, ChannelSpec] = field(default_factory=dict)
    kc: KCMap = field(default_factory=KCMap)
    path: Path | None = None
    manoeuvres: dict[str, tuple[str, ...]] = field(default_factory=dict)  # trace name -> analysis name patterns

    @staticmethod
    def default() -> ChannelMap:
        """The built-in map: Adams/Car's standard request names (docs/mbm_formats.md lists them)."""
        from pybridge.mbm.adams_names import DEFAULT_KC, DEFAULT_TRACES, default_manoeuvres
        return ChannelMap(dict(DEFAULT_TRACES), DEFAULT_KC, None, default_manoeuvres())

    def overlaid(self, other: ChannelMap) -> ChannelMap:
        """This map with every entry ``other`` names replaced by ``other``'s (``other.path`` kept)."""
        kc = KCMap({**self.kc.channels, **other.kc.channels}, {**self.kc.sides, **other.kc.sides},
                   {**self.kc.tests, **other.kc.tests}, {**self.kc.axles, **other.kc.axles},
                   {**self.kc.loaded_side, **other.kc.loaded_side})
        return ChannelMap({**self.traces, **other.traces}, kc, other.path or self.path,
                          {**self.manoeuvres, **other.manoeuvres})


def _fail(path, key: str, problem: str) -> ChannelMapError:
    return ChannelMapError(f"{path}: {key}: {problem}")


def _mapping(value, path, key: str, allowed: tuple[str, ...] | dict | None = None) -> dict:
    if not isinstance(value, dict):
        raise _fail(path, key, f"{type(value).__name__} {value!r} — expected a mapping (key: value lines)")
    for name in value:
        if allowed is not None and name not in allowed:
            close = difflib.get_close_matches(str(name), list(allowed), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise _fail(path, f"{key}.{name}", f"unknown key{hint} — expected one of {', '.join(allowed)}")
    return value


def _number(value, path, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) == float("inf"):
        raise _fail(path, key, f"{value!r} — expected a finite number")
    return float(value)


def _spec(value, path, key: str, si_unit: str) -> ChannelSpec:
    if isinstance(value, str):
        value = {"source": value}
    value = _mapping(value, path, key, ("source", "unit", "scale", "offset", "rate", "resample"))
    source = value.get("source")
    if not isinstance(source, str) or not source.strip():
        raise _fail(path, f"{key}.source", f"{source!r} — expected the source channel's name (text)")
    unit = value.get("unit")
    if unit is not None:
        if not isinstance(unit, str):
            raise _fail(path, f"{key}.unit", f"{unit!r} — expected a unit as text (e.g. deg, mm, g)")
        try:
            si_factor(unit, si_unit)
        except UnitError as exc:
            raise _fail(path, f"{key}.unit", str(exc)) from None
    scale = _number(value.get("scale", 1.0), path, f"{key}.scale")
    if scale == 0.0:
        raise _fail(path, f"{key}.scale", "0 — expected a non-zero factor (-1 turns the sign around)")
    rate = value.get("rate")
    if rate is not None and _number(rate, path, f"{key}.rate") <= 0:
        raise _fail(path, f"{key}.rate", f"{rate!r} — expected the sample rate in Hz (a positive number)")
    resample = value.get("resample")
    if resample is not None and resample not in ("hold", "linear"):
        raise _fail(path, f"{key}.resample", f"{resample!r} — expected hold or linear")
    return ChannelSpec(source.strip(), unit, scale, _number(value.get("offset", 0.0), path, f"{key}.offset"),
                       None if rate is None else float(rate), resample)


def _patterns(value, path, key: str, allowed: tuple[str, ...] | None) -> dict[str, tuple[str, ...]]:
    result = {}
    for name, patterns in _mapping(value, path, key, allowed).items():
        patterns = [patterns] if isinstance(patterns, str) else patterns
        if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) and p for p in patterns):
            raise _fail(path, f"{key}.{name}", f"{patterns!r} — expected a name pattern or a list of them "
                        "(fnmatch, e.g. '*parallel_travel*')")
        result[name] = tuple(patterns)
    return result


def _kc(value, path) -> KCMap:
    value = _mapping(value, path, "kc", ("channels", "sides", "tests", "axles", "loaded_side"))
    channels = {}
    for name, spec in _mapping(value.get("channels", {}), path, "kc.channels", KC_CHANNELS).items():
        kind, per_wheel = KC_CHANNELS[name]
        channels[name] = _spec(spec, path, f"kc.channels.{name}", _KC_UNITS[kind])
        if per_wheel and "{side}" not in channels[name].source:
            raise _fail(path, f"kc.channels.{name}.source", f"{channels[name].source!r} — expected '{{side}}' "
                        f"in the source of a per-wheel channel (replaced by kc.sides)")
    sides = _mapping(value.get("sides", {}), path, "kc.sides", ("left", "right"))
    for side, spelling in sides.items():
        if not isinstance(spelling, str) or not spelling:
            raise _fail(path, f"kc.sides.{side}", f"{spelling!r} — expected the side's spelling as text (e.g. L1)")
    if len(sides) == 2 and sides["left"] == sides["right"]:
        raise _fail(path, "kc.sides", f"left and right both {sides['left']!r} — expected two spellings")
    return KCMap(channels, {"left": "left", "right": "right", **sides},
                 _patterns(value.get("tests", {}), path, "kc.tests", TESTS),
                 _patterns(value.get("axles", {}), path, "kc.axles", AXLES),
                 _patterns(value.get("loaded_side", {}), path, "kc.loaded_side", ("left", "right")))


def load_channel_map(path: str | Path) -> ChannelMap:
    """Read and check the mapping file ``path`` (format ``vehiclertm-map 1``)."""
    path = Path(path)
    document = read_yaml(path, ChannelMapError)
    document = _mapping(document, path, "(top level)", ("format", "traces", "kc", "manoeuvres"))
    if document.get("format") != FORMAT:
        raise _fail(path, "format", f"{document.get('format')!r} — expected '{FORMAT}'")
    traces = {}
    for name, spec in _mapping(document.get("traces", {}), path, "traces", OUTPUT_CHANNELS).items():
        traces[name] = _spec(spec, path, f"traces.{name}", OUTPUT_CHANNELS[name][0])
    manoeuvres = _patterns(document.get("manoeuvres", {}), path, "manoeuvres", None)
    for name in manoeuvres:
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise _fail(path, f"manoeuvres.{name}", "expected a trace name of letters, digits and _ "
                        "(it names traces/<name>.csv)")
    return ChannelMap(traces, _kc(document.get("kc", {}), path), path, manoeuvres)
