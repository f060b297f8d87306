"""Layered settings of a command: preset (standard | expert) <- config file <- command-line flags.

A config file is YAML. Its keys are a command's long flags (``max-evaluations`` or
``max_evaluations``) and, for ``demo`` and ``identify``, the sections of the presets
(``pybridge/presets/*.yaml``: sensitivity, pattern_search, validation). Every key is checked against
what the command knows, and every value against the type of the preset's default, so a typo fails
with the file and the key instead of being ignored.
"""
from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from pathlib import Path

from pybridge.fileio import read_yaml

PRESETS_DIR = Path(__file__).resolve().parent / "presets"
PRESETS = ("standard", "expert")
PRESET_FORMAT = "vehiclertm-preset 1"


class ConfigError(ValueError):
    """A config file or preset that cannot be used; the message names the file and the key."""


def read_yaml_mapping(path: str | Path) -> dict:
    """The YAML mapping in ``path`` (an empty file gives {}); errors name the file and the line."""
    data = read_yaml(path, ConfigError)
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path}: expected a mapping of settings (key: value), got {type(data).__name__}")
    return dict(data)


def load_preset(name: str) -> dict:
    """The settings of preset ``name`` (standard or expert)."""
    if name not in PRESETS:
        raise ConfigError(f"preset '{name}': expected one of {', '.join(PRESETS)}")
    data = read_yaml_mapping(PRESETS_DIR / f"{name}.yaml")
    if data.pop("format", None) != PRESET_FORMAT:
        raise ConfigError(f"{PRESETS_DIR / name}.yaml: format: expected '{PRESET_FORMAT}'")
    return data


def _check_value(value, default, where: str):
    if default is None or value is None:
        return value
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, list):
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    else:
        ok = isinstance(value, type(default))
    if not ok:
        raise ConfigError(f"{where}: {value!r} is not a {type(default).__name__} "
                          f"(the preset's default is {default!r})")
    return value


def _merge(base: dict, override: Mapping, where: str) -> dict:
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if key not in base:
            raise ConfigError(f"{where}{key}: unknown setting; expected one of {', '.join(sorted(base))}")
        if isinstance(base[key], dict):
            if not isinstance(value, Mapping):
                raise ConfigError(f"{where}{key}: expected a mapping, got {value!r}")
            merged[key] = _merge(base[key], value, f"{where}{key}.")
        else:
            merged[key] = _check_value(value, base[key], f"{where}{key}")
    return merged


def split_config(data: Mapping, flags: Iterable[str], source: str) -> tuple[dict, dict]:
    """(flag values by dest, other keys) of a config mapping; ``flags``: the command's option dests."""
    flags = set(flags)
    flag_values, sections = {}, {}
    for key, value in data.items():
        if key == "format":  # a copied preset file keeps its format line
            if value != PRESET_FORMAT:
                raise ConfigError(f"{source}: format: expected '{PRESET_FORMAT}', got {value!r}")
            continue
        dest = str(key).replace("-", "_")
        if dest in flags:
            flag_values[dest] = value
        else:
            sections[str(key)] = value
    return flag_values, sections


def settings(preset: str, sections: Mapping, source: str) -> dict:
    """The preset's settings with the config file's sections merged in (checked key by key)."""
    return _merge(load_preset(preset), sections, f"{source}: ")


def unknown_keys_error(keys: Iterable[str], flags: Iterable[str], source: str) -> ConfigError:
    """The error for config keys a command without preset sections does not know."""
    known = ", ".join(sorted(f.replace("_", "-") for f in flags))
    return ConfigError(f"{source}: unknown setting(s) {', '.join(sorted(keys))}; expected the command's "
                       f"flags: {known}")
