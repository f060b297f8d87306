"""Generic reader of the TeimOrbit format of Adams property files (.tir, .spr, .dpr, .bum, .reb, ...).

The format (Adams Tire documentation, "TeimOrbit format"):

* blocks ``[NAME]``, sub-blocks ``(NAME)`` (children of the current block);
* ``KEY = value`` with a number or a quoted string;
* tables: a header line ``{col1 col2 ...}`` followed by rows of values, ending at the next block,
  sub-block, table header or ``KEY = value`` line;
* everything after ``$`` or ``!`` is a comment.

:func:`parse_teimorbit` returns a :class:`TeimOrbitData`. Numeric tables are also available as
``data.tables[BLOCK]`` (rows of floats; ``BLOCK(SUB)`` for a table inside a sub-block), and every
table with its column names, line numbers and the raw number tokens as ``data.table_info[...]``.
A table whose first row is all quoted strings (e.g. ``(COMMENTS) {comment_string}``) is a text
table: it is kept in ``table_info`` only. Errors name the file and the line (``file:line: ...``);
callers choose the exception class (``error=``) so that each file kind raises its own.

Nothing here knows the meaning of a block: the .tir reader (:mod:`pybridge.mbm.tir`) and the
spring/damper/stop reader (:mod:`pybridge.mbm.property_files`) add that.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

Value = float | int | str

__all__ = ["Table", "TeimOrbitData", "TeimOrbitError", "Value", "parse_teimorbit", "parse_value"]


class TeimOrbitError(ValueError):
    """A TeimOrbit file that cannot be read; the message names the file and, where known, the line."""


@dataclass
class Table:
    """One ``{...}`` table: column names from the header line, rows with their line numbers.

    ``rows`` holds floats (numeric table) and ``tokens`` the same values as written in the file
    (for exact decimal unit conversion); a text table has ``text`` rows instead.
    """

    key: str
    columns: list[str]
    line: int
    rows: list[list[float]] = field(default_factory=list)
    tokens: list[list[str]] = field(default_factory=list)
    row_lines: list[int] = field(default_factory=list)
    text: list[list[str]] = field(default_factory=list)

    @property
    def is_text(self) -> bool:
        return bool(self.text)


@dataclass
class TeimOrbitData:
    """Contents of a TeimOrbit file: ``sections[SECTION][KEY] = value`` (keys and sections upper case)."""

    source: str
    sections: dict[str, dict[str, Value]] = field(default_factory=dict)
    lines: dict[tuple[str, str], int] = field(default_factory=dict)
    tables: dict[str, list[list[float]]] = field(default_factory=dict)
    table_info: dict[str, Table] = field(default_factory=dict)
    raw: dict[tuple[str, str], str] = field(default_factory=dict)
    section_lines: dict[str, int] = field(default_factory=dict)

    error = TeimOrbitError  # exception class of this kind of file (not a dataclass field)

    def flat(self) -> dict[str, Value]:
        """All keys of all sections in one dict (a key in two sections must have one value)."""
        out: dict[str, Value] = {}
        for section, values in self.sections.items():
            for key, value in values.items():
                if key in out and out[key] != value:
                    line = self.lines[(section, key)]
                    raise self.error(f"{self.source}:{line}: {key} = {value!r} contradicts "
                                     f"{key} = {out[key]!r} of another section")
                out[key] = value
        return out

    def __getitem__(self, key: str) -> Value:
        key = key.upper()
        for values in self.sections.values():
            if key in values:
                return values[key]
        raise KeyError(f"{self.source}: no key {key}")

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and any(key.upper() in v for v in self.sections.values())

    def get(self, key: str, default: Value | None = None) -> Value | None:
        return self[key] if key in self else default


_SECTION = re.compile(r"^\[\s*([A-Za-z0-9_]+)\s*\]\s*(?:[$!].*)?$")
_SUBBLOCK = re.compile(r"^\(\s*([A-Za-z0-9_]+)\s*\)\s*(?:[$!].*)?$")
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eEdD][+-]?\d+)?$")
_TOKEN = re.compile(r"'[^']*'|\"[^\"]*\"|[^\s'\"]+")


def parse_value(text: str, where: str, error: type[ValueError] = TeimOrbitError) -> Value:
    """Value of ``KEY = value [comment]``: a quoted string, an integer or a real number."""
    return _parse_value(text, where, error)[0]


def _parse_value(text: str, where: str, error: type[ValueError]) -> tuple[Value, str]:
    """(value, token as written) of ``KEY = value [comment]``."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        end = text.find(text[0], 1)
        if end < 0:
            raise error(f"{where}: expected a closing {text[0]} in the quoted value")
        rest = text[end + 1:].strip()
        if rest and rest[0] not in "$!":
            raise error(f"{where}: expected a comment ($ or !) after the quoted value, got {rest!r}")
        return text[1:end], text[:end + 1]
    token = re.split(r"[\s$!]", text, maxsplit=1)[0]
    rest = text[len(token):].strip()
    if not token:
        raise error(f"{where}: expected a value after '='")
    if rest and rest[0] not in "$!":
        raise error(f"{where}: expected one value (a number or a quoted string), got {text!r}")
    if _INT.match(token):
        return int(token), token
    if _FLOAT.match(token):
        value = float(token.replace("d", "e").replace("D", "e"))
        if not math.isfinite(value):
            raise error(f"{where}: expected a finite number, got {token!r}")
        return value, token
    raise error(f"{where}: expected a number or a quoted string, got {token!r}")


def _table_header(line: str) -> list[str]:
    """Column names of ``{ a b c }`` (the closing brace is optional, a comment may follow)."""
    body = re.split(r"[$!]", line[1:], maxsplit=1)[0]
    return body.replace("}", " ").split()


def parse_teimorbit(text: str, source: str = "<teimorbit>", *,
                    error: type[ValueError] = TeimOrbitError,
                    data: TeimOrbitData | None = None) -> TeimOrbitData:
    """Parse the text of a TeimOrbit file; ``source`` names the file in error messages.

    ``data`` is filled when given (a subclass such as ``TirData``), else a new
    :class:`TeimOrbitData`; errors are raised as ``error``.
    """
    data = TeimOrbitData(source) if data is None else data
    section: str | None = None
    sub: str | None = None
    table: Table | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{source}:{number}"
        line = raw.strip()
        if not line or line[0] in "$!":
            continue
        match = _SECTION.match(line)
        if match:
            section, sub, table = match.group(1).upper(), None, None
            data.sections.setdefault(section, {})
            data.section_lines.setdefault(section, number)
            continue
        if line.startswith("["):
            raise error(f"{where}: expected a section header [NAME], got {line!r}")
        match = _SUBBLOCK.match(line)
        if match:
            if section is None:
                raise error(f"{where}: expected a [SECTION] header before the sub-block {line!r}")
            sub, table = match.group(1).upper(), None
            continue
        if line.startswith("{"):
            if section is None:
                raise error(f"{where}: expected a [SECTION] header before the table")
            key = section if sub is None else f"{section}({sub})"
            table = data.table_info.get(key)
            if table is None:
                table = data.table_info[key] = Table(key, _table_header(line), number)
                data.tables.setdefault(key, table.rows)
            continue
        match = _KEY.match(line)
        if match:
            key = match.group(1).upper()
            if section is None:
                raise error(f"{where}: expected a [SECTION] header before {key}")
            if key in data.sections[section]:
                first = data.lines[(section, key)]
                raise error(f"{where}: duplicate key {key} in [{section}] (first on line {first})")
            value, token = _parse_value(match.group(2), where, error)
            data.sections[section][key] = value
            data.lines[(section, key)] = number
            data.raw[(section, key)] = token
            table = None
            continue
        if table is not None:
            _table_row(data, table, line, where, number, section, error)
            continue
        raise error(f"{where}: expected KEY = value, got {line!r}")
    return data


def _table_row(data: TeimOrbitData, table: Table, line: str, where: str, number: int,
               section: str | None, error: type[ValueError]) -> None:
    tokens = _TOKEN.findall(_strip_comment(line))
    quoted = [t[:1] in ("'", '"') for t in tokens]
    if tokens and all(quoted) and not table.rows:
        table.text.append([t[1:-1] for t in tokens])
        table.row_lines.append(number)
        if data.tables.get(table.key) is table.rows:
            del data.tables[table.key]
        return
    if table.is_text:
        raise error(f"{where}: expected a row of quoted strings in the text table of "
                    f"[{section}], got {line!r}")
    try:
        values = [float(t.replace("d", "e").replace("D", "e")) if _FLOAT.match(t) else float(t)
                  for t in tokens]
    except ValueError:
        raise error(f"{where}: expected a row of numbers in the table of [{section}], "
                    f"got {line!r}") from None
    table.rows.append(values)
    table.tokens.append(tokens)
    table.row_lines.append(number)


def _strip_comment(line: str) -> str:
    """``line`` without a trailing ``$``/``!`` comment (outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "$!":
            return line[:i]
    return line
