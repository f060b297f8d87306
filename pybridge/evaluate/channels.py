"""What a measured channel means: the definitions a reference trace declares for ax, ay, sideslip, roll, pitch.

A multibody tool or a test vehicle reports "lateral acceleration" in more than one way. A reference
trace declares its definition per channel in a header line ``# <channel>_definition: <name>``; a
channel without one has the default (the first below). The RTM records every definition of a channel
it outputs (``ay``, ``ay_sprung``, ``ay_sensor``, ...), and the comparison scores the reference against
the matching one (:func:`matching`), so two different quantities are never compared.

=========  ================  =====================================================================
channel    definition        RTM channel: meaning
=========  ================  =====================================================================
ax, ay     ``vehicle_cog``   ``ax``/``ay``: whole vehicle's centre of gravity, sum of forces / total
                             mass, horizontal (yaw) frame (default)
           ``sprung_cog``    ``ax_sprung``/``ay_sprung``: sprung mass's centre of gravity, yaw frame
           ``sensor``        ``ax_sensor``/``ay_sensor``: body-fixed accelerometer at the FMU parameter
                             ``accelerometerPosition`` (from the sprung CoG, body axes): specific force
                             on the body axes, so it reads the gravity component of roll and pitch
sideslip   ``vehicle_cog``   ``sideslip``: mass-weighted velocity of the whole vehicle (default)
           ``sprung_cog``    ``sideslip_sprung``: velocity of the sprung mass's centre of gravity
           ``sensor``        ``sideslip_sensor``: body-fixed point ``velocitySensorPosition``
roll,      ``horizontal``    ``roll``/``pitch``: body attitude against the horizontal (default)
pitch      ``road``          ``roll_road``/``pitch_road``: against the plane of the four road heights
=========  ================  =====================================================================
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

__all__ = ["DEFINITIONS", "HEADER_KEYS", "ChannelDefinitionError", "TraceHeaderWarning", "check_header_keys",
           "declared_definitions", "matching", "variants"]

DEFINITIONS = {
    "ax": {"vehicle_cog": "ax", "sprung_cog": "ax_sprung", "sensor": "ax_sensor"},
    "ay": {"vehicle_cog": "ay", "sprung_cog": "ay_sprung", "sensor": "ay_sensor"},
    "sideslip": {"vehicle_cog": "sideslip", "sprung_cog": "sideslip_sprung", "sensor": "sideslip_sensor"},
    "roll": {"horizontal": "roll", "road": "roll_road"},
    "pitch": {"horizontal": "pitch", "road": "pitch_road"},
}
SUFFIX = "_definition"
#: header keys a trace may carry besides ``<channel>_definition`` (written by pybridge's own writers and the
#: documented ones of docs/mbm_formats.md); others are listed once in a warning and otherwise ignored
HEADER_KEYS = ("format", "manoeuvre", "source", "step", "end", "set", "fmu", "params", "system", "vehicle",
               "date", "comment")
#: words of a header value that name a definition, to suggest the declaring line
_HINTS = {"sprung": "sprung_cog", "sensor": "sensor", "accelerometer": "sensor", "road": "road",
          "whole": "vehicle_cog", "vehicle": "vehicle_cog", "horizontal": "horizontal"}


class ChannelDefinitionError(ValueError):
    """A declared definition that is unknown, or an RTM trace without the matching channel."""


def variants(channel: str) -> list[str]:
    """Every RTM channel that measures ``channel`` under some definition (the channel itself first)."""
    return list(DEFINITIONS.get(channel, {channel: channel}).values())


class TraceHeaderWarning(UserWarning):
    """A trace header line that is ignored: an unknown key, or one naming a channel without declaring anything."""


def _named_channel(key: str, channels: Iterable[str]) -> str | None:
    """The channel a header key names (``ay``, ``ay def``, ``AY-definition``...), longest name first."""
    low = re.sub(r"[\s\-]+", "_", key.strip().lower())
    for channel in sorted(channels, key=len, reverse=True):
        if low == channel or re.match(rf"{re.escape(channel)}(?![a-z0-9])", low):
            return channel
    return None


def _channel_key_message(path, line: int, key: str, value: str, channel: str) -> str:
    if channel not in DEFINITIONS:
        return (f"{path}:{line}: header '{key}: {value}' names the channel {channel}, which has one definition "
                f"only; the line is ignored (the channels with definitions: "
                f"{', '.join(c + SUFFIX for c in DEFINITIONS)})")
    names = DEFINITIONS[channel]
    guesses = {_HINTS[w] for w in re.findall(r"[a-z]+", value.lower()) if _HINTS.get(w) in names}
    hint = f"'# {channel}{SUFFIX}: {guesses.pop()}'" if len(guesses) == 1 else \
        f"'# {channel}{SUFFIX}: NAME' with NAME one of {', '.join(names)}"
    return (f"{path}:{line}: header '{key}: {value}' names the channel {channel} but is not a known key, so it "
            f"declares nothing and {channel} is read as {next(iter(names))} (the default); to declare what "
            f"{channel} measures write {hint}")


_WARNED: set[tuple[str, tuple]] = set()   # (file, its ignored lines) already warned about in this process


def check_header_keys(lines: Iterable[tuple[int, str, str]], path: str | Path, channels: Iterable[str]) -> None:
    """Warn (:class:`TraceHeaderWarning`) about header lines ``(line number, key, value)`` that are ignored: one
    warning per line whose key names a channel of ``channels``, and one listing every other unknown key; once
    per file and process (a run reads its reference traces many times)."""
    channels = set(channels) | set(DEFINITIONS)
    lines = [(n, k, v) for n, k, v in lines
             if not (k in HEADER_KEYS or k.endswith(SUFFIX) and k[: -len(SUFFIX)] in DEFINITIONS)]
    if not lines or (str(path), tuple(lines)) in _WARNED:
        return
    _WARNED.add((str(path), tuple(lines)))
    unknown = []
    for line, key, value in lines:
        channel = _named_channel(key, channels)
        if channel is not None:
            warnings.warn(_channel_key_message(path, line, key, value, channel), TraceHeaderWarning, stacklevel=3)
        else:
            unknown.append(f"'{key}' (line {line})")
    if unknown:
        warnings.warn(f"{path}: unknown header key(s) {', '.join(unknown)}, ignored; known keys: "
                      f"{', '.join(HEADER_KEYS)} and <channel>{SUFFIX}", TraceHeaderWarning, stacklevel=3)


def declared_definitions(metadata: Mapping[str, str], path: str | Path) -> dict[str, str]:
    """The definitions a trace header declares, checked: channel -> definition name."""
    declared = {}
    for key, value in metadata.items():
        if not key.endswith(SUFFIX):
            continue
        channel = key[: -len(SUFFIX)]
        if channel not in DEFINITIONS:
            raise ChannelDefinitionError(f"{path}: header '{key}': no channel '{channel}' has definitions "
                                         f"(expected one of {', '.join(k + SUFFIX for k in DEFINITIONS)})")
        if value not in DEFINITIONS[channel]:
            raise ChannelDefinitionError(f"{path}: header '{key}: {value}': unknown definition; expected one of "
                                         f"{', '.join(DEFINITIONS[channel])} (default {next(iter(DEFINITIONS[channel]))})")
        declared[channel] = value
    return declared


def matching(candidate: pd.DataFrame, definitions: Mapping[str, str]) -> pd.DataFrame:
    """``candidate`` with each declared channel replaced by the RTM channel of the same definition."""
    swaps = {channel: DEFINITIONS[channel][name] for channel, name in definitions.items()
             if DEFINITIONS[channel][name] != channel and channel in candidate}
    if not swaps:
        return candidate
    missing = [source for source in swaps.values() if source not in candidate]
    if missing:
        raise ChannelDefinitionError(f"the RTM trace has no channel {', '.join(missing)}, which the reference's "
                                     f"declared definitions ({', '.join(f'{c}: {definitions[c]}' for c in swaps)}) need")
    matched = candidate.copy()
    for channel, source in swaps.items():
        matched[channel] = candidate[source]
    return matched
