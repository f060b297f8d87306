"""One call per distinct elementary function value in ``continuous_equations``.

``Emitter.value`` shares an elementary call (sin, atan, ...) between the equations that compute it
unconditionally, but a call inside an if-expression's arm or an if-statement's block is left where it is
(it may not be needed), so a value that an earlier guarded arm uses is computed again: sin(pitch) and
sin(roll) of the RTM's wheel travel tilt nine times per evaluation. :func:`share_elementary_calls` moves each
unconditional ``const double vN = f(x);`` of the function up to its first use, where that is allowed:

- the first use lies in the same part of the function (before or after ``if (!outputs) return;``: a
  derivative-only evaluation gets no work of the output part);
- every name ``x`` reads is defined there: a model Real not written at or after that line (its first write
  is before it, directly or through a pointer argument of a model function, which may write the rest of
  its variable) or an earlier top-level temporary of the function.

Its other uses then read vN: the same call on the same value (the generated C assigns each Real once,
in sorted order), so every result stays bit for bit the same. Run on the generator's own output only.
"""
from __future__ import annotations

import re

_CALL_DEF = re.compile(r"const double (v\d+) = ((?:sin|cos|tan|atan|exp|log|tanh|sinh|cosh|asin|acos|log10|"
                       r"rt_cos_atan|rt_sin_2atan)\((.*)\));")
_REAL = re.compile(r"m->r\[(\d+)(?: \+ (\d+))?\]")
_WRITE = re.compile(r"^\s*m->r\[(\d+)(?: \+ (\d+))?\] = ")
_POINTER = re.compile(r"&m->r\[(\d+)(?: \+ (\d+))?\]")
_TOP_TEMP = re.compile(r"const (?:double|int) (v\d+) = ")
_NAME = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\b(?!\s*\()")


def share_elementary_calls(lines: list[str], windows: dict[int, tuple[int, bool]], split: str) -> list[str]:
    """``lines`` (continuous_equations' body, blocks as indented lines) with each elementary call computed
    once; ``windows``: Real value reference -> (elements to the end of its variable, changes while stepping),
    ``split``: the line that ends a derivative-only evaluation."""
    lines = list(lines)
    for d in range(len(lines)):         # a definition moves up only: the later lines keep their places
        found = _CALL_DEF.fullmatch(lines[d])
        if found:
            _move_up(lines, d, found, windows, split)
    return lines


def _move_up(lines: list[str], d: int, found, windows, split: str) -> bool:
    """Move the definition at ``d`` to the top-level line holding (or opening the block of) the call's
    first use, rewriting the uses in between; False when there is none earlier or it is not allowed."""
    name, call, argument = found[1], found[2], found[3]
    pattern = re.compile(r"(?<![\w.])" + re.escape(call))
    start = lines.index(split) + 1 if split in lines and lines.index(split) < d else 0
    first = next((k for k in range(start, d) if call in lines[k] and pattern.search(lines[k])), None)
    if first is None:
        return False
    top = first
    while lines[top].startswith((" ", "}")):     # inside a block: the line that opens the outermost one
        top -= 1
    if not _available(argument, lines, top, windows):
        return False
    del lines[d]
    for k in range(top, len(lines)):
        lines[k] = pattern.sub(name, lines[k]) if call in lines[k] else lines[k]
    lines.insert(top, f"const double {name} = {call};")
    return True


def _available(argument: str, lines: list[str], top: int, windows) -> bool:
    """Whether every name ``argument`` reads has its value at line ``top`` and keeps it afterwards."""
    if re.search(r"m->[ib]\[|\(&m->", argument):
        return False         # an Integer or Boolean, or an element at a run-time index: not followed
    temps = {t for line in lines[:top] if not line.startswith((" ", "}")) for t in _TOP_TEMP.findall(line)}
    names = set(_NAME.findall(_REAL.sub("", argument))) - {"m", "r"}
    if not names <= temps:
        return False
    reads = {int(a) + int(b or 0) for a, b in _REAL.findall(argument)}
    for line in lines[top:]:
        written = {int(a) + int(b or 0) for a, b in _WRITE.findall(line)}
        for a, b in _POINTER.findall(line):
            first = int(a) + int(b or 0)
            written |= set(range(first, first + windows.get(first, (1, True))[0]))
        if written & reads:
            return False
    return True
