"""Which RTM14DoF variant an MBM data set describes: front record, rear record, tyres per rear station.

::

    variant = choose_variant(read_mbm("scenarios/mbm/lcv70/mbm"))
    variant.model        # 'VehicleRTM.Vehicles.Variants.QuadTorMultiLeaf'
    variant.describe()   # one line: what was chosen and why

Sources, first found wins per key (``front``, ``rear``, ``rear_tyres_per_wheel``):

1. the user's override (``pybridge convert --variant front=quadtor,rear=multileaf,rear_tyres_per_wheel=2``);
2. ``mbm_summary.yaml``: ``suspension: {front: quadleaf|quadtor, rear: singleleaf|multileaf,
   rear_tyres_per_wheel: 1|2}`` (written by ``pybridge mbm generate``; an Adams/Car export adds it by hand);
3. the data set's files: front ``front_torsion_bar.spr`` -> quadtor, ``front_leaf.spr`` -> quadleaf;
   rear tyres per station: the rear-left wheel bodies of ``masses.csv``; the rear pack (single or
   multi-leaf) is not told apart by its files (both export ``rear_leaf.spr``): singleleaf, said so.

The model is the RTM14DoF class with those records (``VehicleRTM.Vehicles.Variants``); all of them have
the same parameters and grids, so the conversion rules are the same and only the class differs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from pybridge.mbm.dataset import ConversionError, MBMData

__all__ = ["FRONT", "REAR", "Variant", "choose_variant", "parse_override"]

FRONT = {"quadleaf": "VehicleRTM.Suspensions.QuadLeaf", "quadtor": "VehicleRTM.Suspensions.QuadTor"}
REAR = {"singleleaf": "VehicleRTM.Suspensions.SolidAxleSingleLeaf",
        "multileaf": "VehicleRTM.Suspensions.SolidAxleMultiLeaf"}
TYRES = (1, 2)
MODELS = {("quadleaf", "singleleaf"): "VehicleRTM.Vehicles.RTM14DoF",
          ("quadtor", "multileaf"): "VehicleRTM.Vehicles.Variants.QuadTorMultiLeaf",
          ("quadtor", "singleleaf"): "VehicleRTM.Vehicles.Variants.QuadTorSingleLeaf",
          ("quadleaf", "multileaf"): "VehicleRTM.Vehicles.Variants.QuadLeafMultiLeaf"}
KEYS = ("front", "rear", "rear_tyres_per_wheel")
FRONT_SPRINGS = (("front_torsion_bar.spr", "quadtor"), ("front_leaf.spr", "quadleaf"))


@dataclass(frozen=True)
class Variant:
    """The chosen variant and, per key, why."""
    front: str
    rear: str
    rear_tyres_per_wheel: int
    reasons: dict = field(default_factory=dict)

    @property
    def model(self) -> str:
        return MODELS[(self.front, self.rear)]

    def describe(self) -> str:
        return (f"variant: front {self.front} ({self.reasons['front']}), rear {self.rear} ({self.reasons['rear']}), "
                f"{self.rear_tyres_per_wheel} tyre(s) per rear wheel station ({self.reasons['rear_tyres_per_wheel']})"
                f" -> {self.model}")

    def as_dict(self) -> dict:
        return {"front": self.front, "front_record": FRONT[self.front], "rear": self.rear,
                "rear_record": REAR[self.rear], "rear_tyres_per_wheel": self.rear_tyres_per_wheel,
                "model": self.model, "reasons": dict(self.reasons), "summary": self.describe()}


def _checked(key: str, value, where: str):
    """``value`` of ``key`` if it is a known choice, else one ConversionError naming ``where``."""
    choices = {"front": tuple(FRONT), "rear": tuple(REAR), "rear_tyres_per_wheel": TYRES}[key]
    if key == "rear_tyres_per_wheel" and isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or value not in choices:
        raise ConversionError(f"{where}: {key}: {value!r} — expected one of {', '.join(map(str, choices))}")
    return value


def parse_override(text: str, flag: str = "--variant") -> dict:
    """``front=quadtor,rear=multileaf,rear_tyres_per_wheel=2`` (any subset) as a checked dict."""
    chosen = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in KEYS:
            raise ConversionError(f"{flag} {text}: {item!r} — expected KEY=VALUE with KEY one of {', '.join(KEYS)}")
        chosen[key] = _checked(key, value.strip(), flag)
    return chosen


def _from_summary(data: MBMData) -> dict:
    where = f"{data.file('mbm_summary.yaml')}: suspension"
    section = data.summary.get("suspension")
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ConversionError(f"{where}: {section!r} — expected a mapping with {', '.join(KEYS)}")
    unknown = sorted(set(section) - set(KEYS))
    if unknown:
        raise ConversionError(f"{where}.{unknown[0]}: unknown key — expected only {', '.join(KEYS)}")
    return {key: _checked(key, section[key], where) for key in KEYS if key in section}


def _from_files(data: MBMData) -> tuple[dict, dict]:
    chosen, reasons = {}, {}
    present = [(name, kind) for name, kind in FRONT_SPRINGS if name in data.springs]
    if len(present) == 1:
        chosen["front"], reasons["front"] = present[0][1], f"{present[0][0]} in the data set"
    elif present:
        raise ConversionError(f"{data.directory}: both {present[0][0]} and {present[1][0]} — expected the spring of one "
                              "front variant (or suspension.front in mbm_summary.yaml)")
    wheels = data.masses.data
    count = int(((wheels["body"].str.lower().str.contains("wheel|tyre|tire|rim")) & (wheels["axle"] == "rear")
                 & (wheels["side"] == "left")).sum())
    chosen["rear_tyres_per_wheel"] = min(max(count, 1), 2)
    reasons["rear_tyres_per_wheel"] = f"masses.csv: {count} rear-left wheel bodies"
    return chosen, reasons


def choose_variant(data: MBMData, override: Mapping[str, object] | None = None) -> Variant:
    """The variant of ``data``: ``override`` (checked) > mbm_summary.yaml ``suspension`` > the files."""
    chosen, reasons = _from_files(data)
    summary = _from_summary(data)
    chosen.update(summary)
    reasons.update({key: f"mbm_summary.yaml suspension.{key}" for key in summary})
    for key, value in (override or {}).items():
        if key not in KEYS:
            raise ConversionError(f"variant override: {key!r} — expected one of {', '.join(KEYS)}")
        chosen[key], reasons[key] = _checked(key, value, "variant override"), "asked for by the user"
    if "front" not in chosen:
        chosen["front"], reasons["front"] = "quadleaf", "no front spring file or summary key: the 3.5 t layout assumed"
    if "rear" not in chosen:
        chosen["rear"], reasons["rear"] = ("singleleaf", "no suspension.rear in mbm_summary.yaml (rear_leaf.spr does "
                                           "not tell single from multi-leaf): single leaf assumed")
    return Variant(chosen["front"], chosen["rear"], int(chosen["rear_tyres_per_wheel"]), reasons)
