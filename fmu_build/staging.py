"""The Modelica path as rumoca reads it: one source root holding each top-level package once.

rumoca given the path's directories themselves finds their single-file packages (``P.mo``) only where
a directory holds no folder package, reads a package found in two directories twice, and refuses to
load anything when one file under a root does not parse. So a user's build gets a staging folder of
symbolic links: each top-level package the path shows (the first match winning, §13.3), a single-file
package as ``P/package.mo``, a folder package file by file. A file that does not parse is left out
when the class being built loads without it; messages still name the real files
(:func:`fmu_build.modelica_parse.relative` resolves links).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from fmu_build.modelica import (LIBRARY_DIR, LIBRARY_NAME, MODELICAPATH_ENV, ModelicaClass, modelica_path,
                                package_location)
from fmu_build.modelica_parse import ModelicaSourceError, parse_file

_folder: list[Path] = []


def _stage_folder() -> Path:
    if not _folder:
        import atexit
        import shutil
        import tempfile

        _folder.append(Path(tempfile.mkdtemp(prefix="fmu-build-packages-")))
        atexit.register(shutil.rmtree, _folder[0], True)
    return _folder[0]


def visible_packages() -> dict[str, Path]:
    """Every top-level package the Modelica path shows, first match winning: name -> P/ or P.mo."""
    found: dict[str, Path] = {}
    for folder in modelica_path():
        entries = sorted(folder.iterdir()) if folder.is_dir() else []
        for entry in entries:
            if (entry / "package.mo").is_file():
                found.setdefault(entry.name, entry)
        for entry in entries:
            if entry.suffix == ".mo" and entry.is_file() and entry.name != "package.mo":
                found.setdefault(entry.stem, entry)
    return found


def _files(location: Path) -> list[Path]:
    if location.is_file():
        return [location]
    return sorted(p for p in location.rglob("*") if p.is_file() and (p.suffix == ".mo" or p.name == "package.order"))


class Roots:
    """A staging folder: ``roots`` for rumoca.Session, ``file(cls)`` the staged file of a class."""

    def __init__(self, skip: frozenset[Path] = frozenset()):
        packages = visible_packages()
        self.library_only = set(packages) <= {LIBRARY_NAME} and not skip
        if self.library_only:
            self.roots = [str(LIBRARY_DIR)]   # the project library alone, as rumoca has always read it
            return
        text = "\0".join(f"{n}={p}" for n, p in sorted(packages.items())) + "\0" + "\0".join(sorted(map(str, skip)))
        self.stage = _stage_folder() / hashlib.sha256(text.encode()).hexdigest()[:16]
        for name, location in packages.items():
            for path in _files(location):
                if path in skip or (location.is_file() and location in skip):
                    continue
                link = self.stage / name / ("package.mo" if location.is_file() else path.relative_to(location))
                if not link.is_symlink():
                    link.parent.mkdir(parents=True, exist_ok=True)
                    link.symlink_to(path)
        self.roots = [str(self.stage)]

    def file(self, cls: ModelicaClass) -> Path:
        if self.library_only:
            return cls.path
        top = cls.name.split(".")[0]
        location = package_location(top)
        if location.name != "package.mo":
            return self.stage / top / "package.mo"
        return self.stage / top / cls.path.relative_to(location.parent)


def broken_files() -> frozenset[Path]:
    """The files of the packages on the path (the project library's aside) that do not parse."""
    broken = set()
    for name, location in visible_packages().items():
        if name == LIBRARY_NAME and location == LIBRARY_DIR / LIBRARY_NAME:
            continue
        for path in _files(location):
            try:
                if path.suffix == ".mo":
                    parse_file(path)
            except ModelicaSourceError:
                broken.add(path)
    return frozenset(broken)


@contextlib.contextmanager
def _without_modelicapath():
    """rumoca adds $MODELICAPATH's directories to its roots by itself: the staging folder holds them already."""
    saved = os.environ.pop(MODELICAPATH_ENV, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[MODELICAPATH_ENV] = saved


def _load(roots: Roots, path_of, model: str):
    import rumoca

    path = path_of(roots)
    with _without_modelicapath():
        return rumoca.Session(roots=roots.roots).load(path, model=model)


def load_staged(path_of, model: str):
    """rumoca's Model of ``model`` from the file ``path_of(roots)`` with the path staged; once more
    without the files that do not parse when rumoca refuses the root because of one."""
    try:
        return _load(Roots(), path_of, model)
    except Exception as error:   # rumoca's CompileError
        if "Failed to load source root" not in str(error):
            raise
        skip = broken_files()
        if not skip:
            raise
    return _load(Roots(skip), path_of, model)
