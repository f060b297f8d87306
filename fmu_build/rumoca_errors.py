"""rumoca's compile failures as one line that points into the user's Modelica file:
``FILE:LINE:COLUMN: what — expected what``.

rumoca names the place of some failures (a dimension mismatch) and only the name of others (an unknown
class or variable, an unbalanced model by its counts, a binding of the wrong type without a source);
those are placed with the parse tree (:mod:`fmu_build.modelica_query`).
"""
from __future__ import annotations

import re
from pathlib import Path

from fmu_build.errors import BuildError
from fmu_build.modelica import (LIBRARY_NAME, ModelicaClass, find_class, load_model, modelica_path, package_files,
                                package_location)
from fmu_build.modelica_parse import ModelicaSourceError, parse_file, relative
from fmu_build import modelica_query as query

_PLACE = re.compile(r"\s*\[(?P<file>[^\]]+?\.mo):(?P<line>\d+):(?P<col>\d+)\]")
_STAGE = re.compile(r"^(?:\w+ failed: )?\S+ (?:could not be compiled|failed in \w+):\s*")
_UNRESOLVED = re.compile(r"unresolved (?P<kind>type|component) reference: '(?P<name>[^']+)'")
_COUNTS = re.compile(r"(?P<equations>\d+) equations, (?P<unknowns>\d+) unknowns")
_SYNTAX_FILE = re.compile(r"^- (\S+\.mo) \[\w+\]: unexpected ", re.M)
_DIMENSIONS = re.compile(r"expected `(?P<expected>[^`]+)`, found `(?P<found>[^`]+)`")


def message_of(error: Exception) -> str:
    """rumoca's first line without the stage prefix (``typecheck failed: M failed in Typecheck: ...``)."""
    text = str(error).strip()
    return _STAGE.sub("", text.splitlines()[0] if text else type(error).__name__)


def _files(cls: ModelicaClass) -> list[Path]:
    """Where to look for a name: the class's file, its package's files, the library's."""
    files = [cls.path]
    for package in dict.fromkeys([cls.name.split(".")[0], LIBRARY_NAME]):
        files += [p for p in package_files(package) if p.suffix == ".mo" and p not in files]
    return files


def _find_reference(cls: ModelicaClass, name: str) -> tuple[Path, int, int] | None:
    """The first place ``name`` is written: in the class's own definition, else anywhere in its files."""
    for path in _files(cls):
        try:
            tree = query.file_tree(path)
        except ModelicaSourceError:
            continue
        scopes = [query.definition(path, cls.name, tree), tree] if path == cls.path else [tree]
        for scope in scopes:
            found = query.references(scope, name) if scope is not None else []
            if found:
                return (path, *found[0])
    return None


def _unparsed(name: str) -> BuildError | None:
    """The syntax error of a file of ``name``'s package that was left out of the build, if there is one."""
    from fmu_build.staging import broken_files

    try:
        location = package_location(name.split(".")[0])
    except ValueError:
        return None
    for path in sorted(broken_files()):
        if path == location or location.name == "package.mo" and path.is_relative_to(location.parent):
            try:
                parse_file(path)
            except ModelicaSourceError as error:
                return BuildError(f"{error} (needed for {name}, left out of the build because it does not parse)")
    return None


def _unresolved(cls: ModelicaClass, kind: str, name: str) -> BuildError:
    unparsed = _unparsed(name)
    if unparsed is not None:
        return unparsed
    found = _find_reference(cls, name)
    where = f"{relative(found[0])}:{found[1]}:{found[2]}" if found else cls.where
    if kind == "type":
        dirs = ", ".join(relative(d) for d in modelica_path())
        return BuildError(f"{where}: unknown class {name} in {cls.name} — expected a class of its package or of a "
                          f"package on the Modelica path ({dirs}; add a directory with --modelica-path DIR)")
    return BuildError(f"{where}: unknown name {name} in {cls.name} — expected a variable, parameter or constant "
                      "declared in the class, inherited or in a component")


def _dimensions(cls: ModelicaClass, message: str, place: re.Match) -> BuildError:
    where = f"{relative(place['file'])}:{place['line']}:{place['col']}"
    sizes = _DIMENSIONS.search(message)
    if sizes:
        return BuildError(f"{where}: dimension mismatch in {cls.name}: one side is `{sizes['found']}` — expected "
                          f"`{sizes['expected']}` (both sides of an equation or binding have the same dimensions)")
    return BuildError(f"{where}: {_PLACE.sub('', message)} in {cls.name}")


def _type_mismatch(cls: ModelicaClass, message: str) -> BuildError:
    """The first declaration of a built-in type bound to a literal of another type, in the class's files."""
    for path in _files(cls):
        try:
            tree = query.file_tree(path)
        except ModelicaSourceError:
            continue
        for _, ctx in _definitions_first(path, cls, tree):
            for declaration in query.body(ctx).declarations:
                wrong = query.wrong_literal(declaration)
                if wrong:
                    return BuildError(
                        f"{relative(path)}:{declaration.binding_line}:{declaration.binding_column}: type mismatch in "
                        f"{cls.name}: {declaration.name} = {declaration.binding} is a {wrong} — expected a "
                        f"{declaration.type} expression")
    return BuildError(f"{cls.where}: type mismatch in {cls.name}: {message} — expected a binding of its variable's type")


def _definitions_first(path: Path, cls: ModelicaClass, tree):
    """The class definitions of a file, the one of ``cls`` first."""
    from fmu_build.modelica_parse import class_definitions

    own = query.definition(path, cls.name, tree) if path == cls.path else None
    rest = [(n, c) for n, c in class_definitions(tree) if c is not own]
    return ([(cls.name, own)] if own is not None else []) + rest


def _syntax_in(text: str, cls: ModelicaClass) -> BuildError | None:
    """A syntax error rumoca met in a file it read for ``cls`` (named in its related failures)."""
    for path in _SYNTAX_FILE.findall(text):
        try:
            parse_file(Path(path))
        except ModelicaSourceError as error:
            return BuildError(f"{error} (read for {cls.name})")
        except OSError:
            continue
    return None


def rumoca_failure(error: Exception, cls: ModelicaClass) -> BuildError | None:
    """The error as one line pointing into the Modelica source, or None when it is none of the kinds here."""
    syntax = _syntax_in(str(error), cls)
    if syntax is not None:
        return syntax
    message = message_of(error)
    place = _PLACE.search(message)
    if "dimension mismatch" in message and place:
        return _dimensions(cls, message, place)
    unresolved = _UNRESOLVED.search(message)
    if unresolved:
        return _unresolved(cls, unresolved["kind"], unresolved["name"])
    if "unbalanced model" in message:
        from fmu_build.balance import unbalanced

        return unbalanced(cls, message)
    if "binding type compatibility" in message:
        return _type_mismatch(cls, message)
    if place:
        return BuildError(f"{relative(place['file'])}:{place['line']}:{place['col']}: {_PLACE.sub('', message)} "
                          f"in {cls.name}")
    return None


def counts(message: str) -> tuple[int, int] | None:
    """(equations, unknowns) of rumoca's 'unbalanced model' message."""
    found = _COUNTS.search(message)
    return (int(found["equations"]), int(found["unknowns"])) if found else None


def compiles_balanced(cls: ModelicaClass) -> tuple[bool, str]:
    """Whether rumoca compiles ``cls`` alone into a balanced model, and its message if not."""
    try:
        info = load_model(cls.name).structure()
    except Exception as error:   # rumoca's CompileError and friends
        return False, message_of(error)
    return info.is_balanced, f"unbalanced model: {info.n_equations} equations, {info.n_unknowns} unknowns"


def resolve(type_name: str, scope: str) -> ModelicaClass | None:
    """The class a type name means inside the class ``scope`` (its enclosing packages, then top level)."""
    parts = scope.split(".")
    for k in range(len(parts), -1, -1):
        candidate = ".".join([*parts[:k], type_name.lstrip(".")])
        try:
            return find_class(candidate)
        except ValueError:
            continue
    return None
