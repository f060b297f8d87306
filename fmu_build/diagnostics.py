"""Compiler failures (rumoca, OpenModelica) as one line with the file and line of the Modelica source."""
from __future__ import annotations

import re
from pathlib import Path

from fmu_build.errors import BuildError
from fmu_build.modelica import LIBRARY_DIR, LIBRARY_NAME, ModelicaClass

_QUOTED = re.compile(r"['`]([A-Za-z_][\w.]*)['`]")   # rumoca quotes names with ' or `
_FIRST_MESSAGE = re.compile(r"×\s*(.+)")


def _relative(path: Path | str) -> str:
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _library_files() -> list[Path]:
    return sorted((LIBRARY_DIR / LIBRARY_NAME).rglob("*.mo"))


def _parse_errors() -> str | None:
    """file:line:col: message of the first syntax error in the library (rumoca.validate per file)."""
    try:
        import rumoca
    except ImportError:   # pragma: no cover
        return None
    for path in _library_files():
        try:
            diagnostics = rumoca.validate(str(path))
        except Exception:
            continue
        for diagnostic in diagnostics:
            if diagnostic.level != "error":
                continue
            text = str(diagnostic.message)
            location = re.search(r"\[([^\]]+?\.mo):(\d+):(\d+)\]", text)
            first = _FIRST_MESSAGE.search(text)
            message = (first.group(1) if first else text.strip().splitlines()[0]).strip()
            if location:
                return f"{_relative(path)}:{location.group(2)}:{location.group(3)}: Modelica syntax error: {message}"
            return f"{_relative(path)}:{diagnostic.line}: Modelica syntax error: {message}"
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
        located = _parse_errors()
        if located:
            return BuildError(located)
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
