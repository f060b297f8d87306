"""Find the classes of the VehicleRTM library and of the user's packages, load, check and simulate them
with rumoca.

Packages are found as the Modelica specification says (§13.3): a top-level package ``P`` is the
directory ``DIR/P`` (with ``P/package.mo``) or the single file ``DIR/P.mo``, in the first directory
``DIR`` of the Modelica path that has one. The path is the directories given by
:func:`use_modelica_path` (``fmu-build --modelica-path DIR``), then those of the ``MODELICAPATH``
environment variable (``os.pathsep``-separated: ':' on Linux), then the project's own library folder,
which is always on it. The classes of a package are read from the parse tree of its files
(:mod:`fmu_build.modelica_parse`): classes nested in a file and short class definitions included,
``within`` optional, in the order of ``package.order`` where a folder has one (§13.4).
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from fmu_build.modelica_parse import ModelicaSourceError, parse_file, relative

LIBRARY_DIR = Path(__file__).resolve().parent.parent / "modelica"
LIBRARY_NAME = "VehicleRTM"
MODELICAPATH_ENV = "MODELICAPATH"
_extra_dirs: list[Path] = []


@dataclass(frozen=True)
class ModelicaClass:
    """One class: its full name, restriction, file, whether it is partial, and where it is defined."""

    name: str
    kind: str
    path: Path
    partial: bool
    line: int = 1
    column: int = 1
    short: bool = False                                   # a short class definition (model A = B(...))
    experiment_values: tuple[tuple[str, float], ...] = ()

    @property
    def experiment(self) -> dict[str, float]:
        """The class's ``experiment`` annotation (StartTime, StopTime, Interval, Tolerance), if any."""
        return dict(self.experiment_values)

    @property
    def where(self) -> str:
        """FILE:LINE:COLUMN of the class's name in its definition."""
        return f"{relative(self.path)}:{self.line}:{self.column}"


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


def _in_folder(folder: Path, package: str) -> Path | None:
    for candidate in (folder / package / "package.mo", folder / f"{package}.mo"):
        if candidate.is_file():
            return candidate
    return None


def package_location(package: str) -> Path:
    """The file of the top-level class ``package``: ``DIR/P/package.mo`` or ``DIR/P.mo`` in the first
    directory of the Modelica path holding either; ValueError if none does."""
    for folder in modelica_path():
        found = _in_folder(folder, package)
        if found:
            return found
    raise ValueError(f"package '{package}' not found on the Modelica path ({', '.join(map(str, modelica_path()))}); "
                     f"add the directory that holds {package}/package.mo or {package}.mo with --modelica-path DIR "
                     "or $MODELICAPATH")


def package_root(package: str) -> Path:
    """The Modelica-path directory holding the top-level package ``package``; ValueError if none does."""
    location = package_location(package)
    return location.parent.parent if location.name == "package.mo" else location.parent


def package_files(package: str) -> list[Path]:
    """Every file of a top-level package that its classes come from (.mo files and package.order)."""
    location = package_location(package)
    if location.name != "package.mo":
        return [location]
    return sorted(p for p in location.parent.rglob("*") if p.is_file() and (p.suffix == ".mo" or p.name == "package.order"))


def _file_classes(path: Path, prefix: str, expected: str) -> list[ModelicaClass]:
    """The classes of one file that must hold the class ``expected`` alone (P.mo or P/package.mo) inside
    the package ``prefix`` ('' at top level)."""
    parsed = parse_file(path)
    tops = [c for c in parsed.classes if "." not in c.name]
    if [c.name for c in tops] != [expected]:
        first = tops[1] if tops and tops[0].name == expected else (tops[0] if tops else None)
        place = f"{relative(path)}:{first.line}:{first.column}" if first else f"{relative(path)}:1:1"
        found = f"class {first.name}" if first else "no class"
        raise ModelicaSourceError(f"{place}: {found} in {path.name} — expected the class {expected} alone "
                                  f"(a file {expected}.mo or {expected}/package.mo holds one class, §13.4)")
    if parsed.within is not None and parsed.within != prefix:
        raise ModelicaSourceError(f"{relative(path)}:1:1: 'within {parsed.within};' — expected "
                                  f"'within {prefix};' (the file lies in the package {prefix or 'top level'})")
    head = f"{prefix}." if prefix else ""
    return [ModelicaClass(head + c.name, c.kind, path, c.partial, c.line, c.column, c.short, c.experiment)
            for c in parsed.classes]


def _order(folder: Path, nested: list[str]) -> list[str]:
    """Names of a package folder's classes: package.order first, then the nested ones, then the files."""
    entries = sorted({p.stem for p in folder.glob("*.mo") if p.name != "package.mo"}
                     | {p.name for p in folder.iterdir() if (p / "package.mo").is_file()})
    order_file = folder / "package.order"
    listed = []
    if order_file.is_file():
        listed = [line.strip() for line in order_file.read_text(errors="replace").splitlines() if line.strip()]
    names = []
    for name in [*listed, *nested, *entries]:
        if name not in names and (name in nested or name in entries):
            names.append(name)
    return names


def _folder_classes(folder: Path, prefix: str, errors: list | None) -> list[ModelicaClass]:
    """The classes of the directory package ``folder`` (its package.mo, nested classes, files, folders)."""
    own = _file_classes(folder / "package.mo", prefix, folder.name)
    full = own[0].name
    nested = [c.name[len(full) + 1:] for c in own[1:] if "." not in c.name[len(full) + 1:]]
    classes = [own[0]]
    for name in _order(folder, nested):
        try:
            if name in nested:
                classes += [c for c in own[1:] if c.name == f"{full}.{name}" or c.name.startswith(f"{full}.{name}.")]
            elif (folder / name / "package.mo").is_file():
                classes += _folder_classes(folder / name, full, errors)
            else:
                classes += _file_classes(folder / f"{name}.mo", full, name)
        except ModelicaSourceError as error:
            if errors is None:
                raise
            errors.append(error)
    return classes


def package_classes(package: str, root: Path | None = None, errors: list | None = None) -> list[ModelicaClass]:
    """All classes of the top-level ``package`` (in ``root``, default: found on the Modelica path).

    ``errors``: collect the files that do not parse there and list the classes of the others, instead
    of raising the first.
    """
    location = _in_folder(root, package) if root is not None else package_location(package)
    if location is None:
        raise ValueError(f"package '{package}' not found in {root}")
    if location.name == "package.mo":
        return _folder_classes(location.parent, "", errors)
    return _file_classes(location, "", package)


def library_classes(root: Path = LIBRARY_DIR, package: str = LIBRARY_NAME) -> list[ModelicaClass]:
    """All classes of the top-level ``package`` under ``root`` (default: the project library)."""
    return package_classes(package, root)


def _lookup(package: str, name: str, root: Path | None) -> ModelicaClass | None:
    """The class ``name`` read from the files on its way only (package.mo of each level, then its own
    file), as a Modelica tool looks a name up; None if it is not where its name says."""
    location = _in_folder(root, package) if root is not None else package_location(package)
    if location is None:
        return None
    parts = name.split(".")
    if location.name != "package.mo":
        try:
            return next((c for c in _file_classes(location, "", package) if c.name == name), None)
        except ModelicaSourceError as error:
            raise ModelicaSourceError(f"{error} ({location.name} holds the whole package {package}: none of its "
                                      "classes builds until the file parses)") from None
    folder, prefix = location.parent, ""
    for k in range(1, len(parts)):
        found = next((c for c in _file_classes(folder / "package.mo", prefix, folder.name) if c.name == name), None)
        if found is not None:
            return found
        prefix, child = ".".join(parts[:k]), parts[k]
        if (folder / child / "package.mo").is_file():
            folder = folder / child
        elif (folder / f"{child}.mo").is_file():
            return next((c for c in _file_classes(folder / f"{child}.mo", prefix, child) if c.name == name), None)
        else:
            return None
    return next((c for c in _file_classes(folder / "package.mo", prefix, folder.name) if c.name == name), None)


def find_class(name: str, root: Path | None = None) -> ModelicaClass:
    """The class called ``name`` (in ``root``, default: its package on the Modelica path); ValueError
    naming close matches if there is none, or the syntax error of a file it may be in."""
    package = name.split(".")[0]
    if "." not in name and (root or LIBRARY_DIR) == LIBRARY_DIR and name != LIBRARY_NAME:
        if not any(_in_folder(folder, name) for folder in modelica_path()):
            package = LIBRARY_NAME   # a bare name: look for it in the library, to suggest its full name
    if root is None and package == LIBRARY_NAME:
        root = LIBRARY_DIR
    if name.split(".")[0] == package:
        found = _lookup(package, name, root)
        if found is not None:
            return found
    errors: list[ModelicaSourceError] = []
    classes = {c.name: c for c in package_classes(package, root, errors)}
    if name in classes:
        return classes[name]
    if errors:
        raise errors[0]
    close = [n for n in classes if n.endswith("." + name.split(".")[-1])]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    where = relative(_in_folder(root, package)) if root is not None else relative(package_location(package))
    raise ValueError(f"unknown model '{name}' in {where}{hint}")


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
    from fmu_build.staging import load_staged   # a user's package: a fresh session (rumoca refuses a second load)

    return load_staged(lambda roots: str(roots.file(cls)), cls.name)


def compile_source(source: str, model: str, folder: Path, root: Path | None = None):
    """Compile Modelica source text that is not part of the library (a harness, a probe) against it
    (``root``, default: every package of the Modelica path).

    ``model`` is the full name of the class to compile; the file is named after its top-level class.
    ``folder`` must hold nothing else: rumoca resolves every class in the directory of the file it loads.
    A fresh session each time, so two sources defining a class of the same name never meet.
    """
    path = Path(folder) / f"{model.split('.')[0]}.mo"
    path.write_text(source)
    if root is not None:
        import rumoca

        return rumoca.Session(roots=[str(root)]).load(str(path), model=model)
    from fmu_build.staging import load_staged

    return load_staged(lambda roots: str(path), model)


def simulate_example(name: str, *, stop_time: float | None = None, interval: float | None = None,
                     root: Path | None = None, **options):
    """Simulate a class (of the library, or of a package on the Modelica path) over its ``experiment``
    annotation (overridable) and return rumoca's Result."""
    cls = find_class(name, root)
    experiment = cls.experiment
    t_end = stop_time if stop_time is not None else experiment.get("StopTime", 1.0)
    dt = interval if interval is not None else experiment.get("Interval", t_end / 500)
    return load_model(name, root).simulate(t=(experiment.get("StartTime", 0.0), t_end), dt=dt, **options)
