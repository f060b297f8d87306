"""Find the classes of the VehicleRTM library and of the user's packages, load, check and simulate them
with rumoca.

Packages are found as Modelica tools find them: a top-level package ``P`` is the folder ``DIR/P``
(with ``package.mo``) in the first directory ``DIR`` of the Modelica path that has one. The path is
the directories given by :func:`use_modelica_path` (``fmu-build --modelica-path DIR``), then those of
the ``MODELICAPATH`` environment variable (``os.pathsep``-separated: ':' on Linux), then the project's
own library folder, which is always on it.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

LIBRARY_DIR = Path(__file__).resolve().parent.parent / "modelica"
LIBRARY_NAME = "VehicleRTM"
MODELICAPATH_ENV = "MODELICAPATH"
_extra_dirs: list[Path] = []

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


def use_modelica_path(dirs) -> None:
    """Put ``dirs`` (``--modelica-path``) at the front of the Modelica path; an error names a missing one."""
    folders = [Path(d).expanduser().resolve() for d in dirs or ()]
    for folder in folders:
        if not folder.is_dir():
            raise ValueError(f"--modelica-path {folder}: not a directory")
    _extra_dirs[:] = folders


def modelica_path() -> list[Path]:
    """The directories searched for top-level packages, in order (the project library's folder last)."""
    from_env = [Path(d).expanduser().resolve() for d in os.environ.get(MODELICAPATH_ENV, "").split(os.pathsep) if d]
    folders = []
    for folder in [*_extra_dirs, *from_env, LIBRARY_DIR]:
        if folder not in folders:
            folders.append(folder)
    return folders


def package_root(package: str) -> Path:
    """The Modelica-path directory holding the top-level package ``package``; ValueError if none does."""
    for folder in modelica_path():
        if (folder / package / "package.mo").is_file():
            return folder
    raise ValueError(f"package '{package}' not found on the Modelica path ({', '.join(map(str, modelica_path()))}); "
                     f"add the directory that holds {package}/package.mo with --modelica-path DIR or $MODELICAPATH")


def library_classes(root: Path = LIBRARY_DIR, package: str = LIBRARY_NAME) -> list[ModelicaClass]:
    """All classes of the top-level ``package`` under ``root``, one per file (package.mo gives the packages)."""
    classes = []
    for path in sorted((root / package).rglob("*.mo")):
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


def find_class(name: str, root: Path | None = None) -> ModelicaClass:
    """The class called ``name`` (in ``root``, default: its package on the Modelica path); ValueError
    naming close matches if there is none."""
    package = name.split(".")[0] if "." in name else LIBRARY_NAME
    if root is None:
        root = package_root(package) if "." in name else LIBRARY_DIR
    classes = {c.name: c for c in library_classes(root, package)}
    if name in classes:
        return classes[name]
    close = [n for n in classes if n.endswith("." + name.split(".")[-1])]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ValueError(f"unknown model '{name}' in {root / package}{hint}")


@functools.lru_cache(maxsize=4)
def _session(roots: tuple[str, ...]):
    import rumoca

    return rumoca.Session(roots=list(roots))


def load_model(name: str, root: Path | None = None):
    """Compile a class with rumoca (every package of the Modelica path visible) and return the ``rumoca.Model``."""
    cls = find_class(name, root)
    if root is not None or cls.path.is_relative_to(LIBRARY_DIR):
        roots = (str(root or LIBRARY_DIR),) if root is not None or cls.name.startswith(LIBRARY_NAME + ".") else None
        if roots is not None:
            return _session(roots).load(str(cls.path), model=cls.name)
    import rumoca     # a user's package: a fresh session (rumoca refuses a second load of its files)

    return rumoca.Session(roots=[str(d) for d in modelica_path()]).load(str(cls.path), model=cls.name)


def compile_source(source: str, model: str, folder: Path, root: Path | None = None):
    """Compile Modelica source text that is not part of the library (a harness, a probe) against it
    (``root``, default: every package of the Modelica path).

    ``model`` is the full name of the class to compile; the file is named after its top-level class.
    ``folder`` must hold nothing else: rumoca resolves every class in the directory of the file it loads.
    A fresh session each time, so two sources defining a class of the same name never meet.
    """
    import rumoca

    path = Path(folder) / f"{model.split('.')[0]}.mo"
    path.write_text(source)
    roots = [str(root)] if root is not None else [str(d) for d in modelica_path()]
    return rumoca.Session(roots=roots).load(str(path), model=model)


def simulate_example(name: str, *, stop_time: float | None = None, interval: float | None = None,
                     root: Path = LIBRARY_DIR, **options):
    """Simulate a class over its ``experiment`` annotation (overridable) and return rumoca's Result."""
    cls = find_class(name, root)
    experiment = cls.experiment
    t_end = stop_time if stop_time is not None else experiment.get("StopTime", 1.0)
    dt = interval if interval is not None else experiment.get("Interval", t_end / 500)
    return load_model(name, root).simulate(t=(experiment.get("StartTime", 0.0), t_end), dt=dt, **options)
