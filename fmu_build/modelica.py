"""Find the classes of the VehicleRTM library and load, check and simulate them with rumoca."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

LIBRARY_DIR = Path(__file__).resolve().parent.parent / "modelica"
LIBRARY_NAME = "VehicleRTM"

_WITHIN = re.compile(r"^\s*within\b\s*([\w.]*)\s*;", re.M)
_CLASS = re.compile(
    r"^\s*(?:encapsulated\s+)?(?:partial\s+)?(?:expandable\s+)?"
    r"(model|block|function|record|package|connector|type)\s+(\w+)",
    re.M,
)
_EXPERIMENT = re.compile(r"experiment\s*\(([^)]*)\)")
_NUMBER_ARG = re.compile(r"(\w+)\s*=\s*([-+0-9.eE]+)")


@dataclass(frozen=True)
class ModelicaClass:
    """One class of the library: its full name, restriction, file and whether it is partial."""

    name: str
    kind: str
    path: Path
    partial: bool

    @property
    def experiment(self) -> dict[str, float]:
        """The class's ``experiment`` annotation (StartTime, StopTime, Interval, Tolerance), if any."""
        match = _EXPERIMENT.search(self.path.read_text())
        if not match:
            return {}
        return {key: float(value) for key, value in _NUMBER_ARG.findall(match.group(1))}


def library_classes(root: Path = LIBRARY_DIR) -> list[ModelicaClass]:
    """All classes stored one per file under ``root`` (package.mo files give the packages)."""
    classes = []
    for path in sorted((root / LIBRARY_NAME).rglob("*.mo")):
        text = path.read_text()
        within = _WITHIN.search(text)
        declared = _CLASS.search(text)
        if not within or not declared:
            raise ValueError(f"{path}: expected 'within ...;' and one class declaration")
        prefix = within.group(1)
        kind, short = declared.group(1), declared.group(2)
        name = f"{prefix}.{short}" if prefix else short
        partial = re.search(rf"\bpartial\s+{kind}\s+{short}\b", text) is not None
        classes.append(ModelicaClass(name, kind, path, partial))
    return classes


def find_class(name: str, root: Path = LIBRARY_DIR) -> ModelicaClass:
    """The library class called ``name``; ValueError naming close matches if there is none."""
    classes = {c.name: c for c in library_classes(root)}
    if name in classes:
        return classes[name]
    close = [n for n in classes if n.endswith("." + name.split(".")[-1])]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ValueError(f"unknown model '{name}' in {root / LIBRARY_NAME}{hint}")


@functools.lru_cache(maxsize=1)
def _session(root: str):
    import rumoca

    return rumoca.Session(roots=[root])


def load_model(name: str, root: Path = LIBRARY_DIR):
    """Compile a library class with rumoca and return the ``rumoca.Model``."""
    cls = find_class(name, root)
    return _session(str(root)).load(str(cls.path), model=cls.name)


def compile_source(source: str, model: str, folder: Path, root: Path = LIBRARY_DIR):
    """Compile Modelica source text that is not part of the library (a harness, a probe) against it.

    ``model`` is the full name of the class to compile; the file is named after its top-level class.
    ``folder`` must hold nothing else: rumoca resolves every class in the directory of the file it loads.
    A fresh session each time, so two sources defining a class of the same name never meet.
    """
    import rumoca

    path = Path(folder) / f"{model.split('.')[0]}.mo"
    path.write_text(source)
    return rumoca.Session(roots=[str(root)]).load(str(path), model=model)


def simulate_example(name: str, *, stop_time: float | None = None, interval: float | None = None,
                     root: Path = LIBRARY_DIR, **options):
    """Simulate a class over its ``experiment`` annotation (overridable) and return rumoca's Result."""
    cls = find_class(name, root)
    experiment = cls.experiment
    t_end = stop_time if stop_time is not None else experiment.get("StopTime", 1.0)
    dt = interval if interval is not None else experiment.get("Interval", t_end / 500)
    return load_model(name, root).simulate(t=(experiment.get("StartTime", 0.0), t_end), dt=dt, **options)
