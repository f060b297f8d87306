"""Compiler failures (rumoca, OpenModelica) as one line with the file and line of the Modelica source."""
from __future__ import annotations

import re
from pathlib import Path

from fmu_build.errors import BuildError
from fmu_build.modelica import LIBRARY_DIR, LIBRARY_NAME, ModelicaClass
from fmu_build.modelica_parse import relative as _relative

_QUOTED = re.compile(r"['`]([A-Za-z_][\w.]*)['`]")   # rumoca quotes names with ' or `
_FIRST_MESSAGE = re.compile(r"×\s*(.+)")


def _library_files() -> list[Path]:
    return sorted((LIBRARY_DIR / LIBRARY_NAME).rglob("*.mo"))


def _package_files(cls: ModelicaClass) -> list[Path]:
    """The files of ``cls``'s own package, then the library's."""
    from fmu_build.modelica import package_files

    top = cls.name.split(".")[0]
    own = package_files(top) if top != LIBRARY_NAME else []
    return [*own, *(p for p in _library_files() if p not in own)]


def _syntax_message(text: str) -> tuple[str, str, str, str] | None:
    """(line, column, what, expected) of a rumoca syntax diagnostic's text."""
    location = re.search(r"\[([^\]]+?\.mo):(\d+):(\d+)\]", text)
    first = _FIRST_MESSAGE.search(text)
    if not location or not first:
        return None
    help_text = re.search(r"help:\s*(.+?)(?:\n\s*\n|$)", text, re.S)
    expected = " ".join(help_text.group(1).split()) if help_text else "a valid Modelica construct"
    expected = re.sub(r"^expected\s+", "", expected)
    if expected.startswith("one of: "):   # rumoca's token list, ',' among the tokens: quote each one
        tokens = re.findall(r"\s*(,|[^,\s]+)\s*(?:,|$)", expected[len("one of: "):])
        expected = "one of " + " ".join(f"`{t}`" for t in tokens)
    return location.group(2), location.group(3), first.group(1).strip(), expected


def rumoca_syntax_error(text: str, path: Path) -> str | None:
    """'FILE:LINE:COLUMN: Modelica syntax error: what — expected what' of the first syntax error rumoca's
    parser finds in ``text`` (the source of ``path``), or None."""
    try:
        import rumoca

        diagnostics = rumoca.validate_source(text, filename=str(path))
    except Exception:   # pragma: no cover - validate_source never raises on model errors
        return None
    for diagnostic in diagnostics:
        if diagnostic.level != "error" or diagnostic.rule != "syntax-error":
            continue
        found = _syntax_message(str(diagnostic.message))
        if found:
            line, column, what, expected = found
            return f"{_relative(path)}:{line}:{column}: Modelica syntax error: {what} — expected {expected}"
    return None


def _parse_errors(cls: ModelicaClass) -> str | None:
    """The first file of the library or of ``cls``'s package that does not parse, as one line."""
    from fmu_build.modelica_parse import ModelicaSourceError, parse_file

    for path in _package_files(cls):
        if path.suffix != ".mo":
            continue
        try:
            parse_file(path)
        except ModelicaSourceError as error:
            return str(error)
    return None


def _locate(name: str, cls: ModelicaClass) -> str | None:
    """file:line of the first code line (not a comment) that uses the identifier ``name``."""
    word = re.compile(rf"(?<![\w.]){re.escape(name.split('.')[-1])}(?!\w)")
    files = [cls.path] + [p for p in _library_files() if p != cls.path]
    for path in files:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            code = line.split("//", 1)[0]
            code = re.sub(r'"[^"]*"', '""', code)
            if word.search(code):
                return f"{_relative(path)}:{number}"
    return None


def rumoca_error(error: Exception, cls: ModelicaClass) -> BuildError:
    """A rumoca failure while flattening ``cls`` as a BuildError naming the file and line."""
    text = str(error).strip()
    if "parse" in text.lower() and "source" in text.lower():
        located = _parse_errors(cls)
        if located:
            return BuildError(located)
    from fmu_build.rumoca_errors import rumoca_failure

    placed = rumoca_failure(error, cls)
    if placed is not None:
        return placed
    message = text.splitlines()[0] if text else type(error).__name__
    message = re.sub(r"^.*? could not be compiled:\s*", "", message)
    for name in _QUOTED.findall(message):
        where = _locate(name, cls)
        if where:
            return BuildError(f"{where}: Modelica error in {cls.name}: {message}")
    return BuildError(f"{_relative(cls.path)}: Modelica error in {cls.name}: {message}")


_OMC_BRACKET = re.compile(r"\[(?P<file>[^\]]+?):(?P<line>\d+):(?P<col>\d+)-\d+:\d+:[^\]]*\]\s*"
                          r"(?P<level>Error|Warning|Notification):\s*(?P<msg>.*)")
_OMPY_RECORD = re.compile(r"\[[^\]]*:error:\d+\]\s*\[(?P<file>[^\]]*?):[^:\]]*:(?P<line>\d+):(?P<col>\d+):\d+:\d+\]\s*"
                          r"(?P<msg>.*)")


def omc_errors(text: str) -> list[str]:
    """The error messages of OpenModelica's output as 'file:line:col: message' (errors only)."""
    found = []
    for match in _OMC_BRACKET.finditer(text):
        if match["level"] == "Error":
            found.append(f"{_relative(match['file'])}:{match['line']}:{match['col']}: {match['msg'].strip()}")
    for match in _OMPY_RECORD.finditer(text):
        where = f"{_relative(match['file'])}:{match['line']}:{match['col']}" if match["file"] else "omc"
        found.append(f"{where}: {match['msg'].strip()}")
    if not found:
        for line in text.splitlines():
            if line.strip().startswith("Error:"):
                found.append(f"omc: {line.strip()[len('Error:'):].strip()}")
    return found
