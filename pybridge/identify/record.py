"""Append-only run record of an identification (JSON Lines).

Line 1 is a header with the problem definition and the seed; every further line is one evaluation::

    {"kind": "header", "format": "pybridge-run-record 1", "problem": {...}, "seed": 0, "created": "..."}
    {"kind": "evaluation", "id": 0, "x": {"k": 1.2e5}, "u": [0.5], "fitness": 3.1, "status": "ok",
     "indices": {...}, "timestamp": "..."}

Lines are appended and fsync'd one batch at a time, so a killed run loses at most the batch it was
evaluating; a truncated last line (killed mid-write) is dropped when the record is opened again. An
engine may write a batch at once and fsync it a little later (``append(..., sync=False)``, ``sync()``):
NOMAD gets the answers first and the disk is synced during its turn.
A non-finite fitness is written as ``null`` and read back as ``inf``.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["FORMAT", "RunRecord", "RunRecordError"]

FORMAT = "pybridge-run-record 1"


class RunRecordError(ValueError):
    """A record that cannot be used: corrupt, or made for another problem. The message names the file."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _finite_or_none(value):
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def _key(point) -> tuple:
    if isinstance(point, Mapping):
        return ("x", tuple(sorted((str(k), float(v)) for k, v in point.items())))
    return ("u", tuple(float(v) for v in point))


def _read(path: Path) -> list[dict]:
    """The complete lines of ``path`` as dicts; a truncated last line is cut off the file."""
    data = path.read_bytes() if path.exists() else b""
    pieces = data.split(b"\n")
    lines, good = [], b""
    for number, piece in enumerate(pieces, start=1):
        if not piece.strip():
            continue
        try:
            lines.append(json.loads(piece))
        except ValueError:
            if number == len(pieces):
                break  # the last line of a killed run
            raise RunRecordError(f"{path}, line {number}: not a JSON record") from None
        good += piece + b"\n"
    if good != data:
        with open(path, "r+b") as file:
            if data.startswith(good):
                file.truncate(len(good))
            else:
                file.seek(0, os.SEEK_END)
                file.write(b"\n")
    return lines


class RunRecord:
    """An open run record: ``entries`` (evaluations, in order), ``lookup`` and ``append``."""

    def __init__(self, path: Path, problem: dict, seed, entries: list[dict]):
        self.path, self.problem, self.seed = path, problem, seed
        self.entries: list[dict] = []
        self._index: dict[tuple, dict] = {}
        self._add(entries)
        self._file = open(path, "a", encoding="utf-8")

    @classmethod
    def open(cls, path: str | Path, problem: Mapping, *, seed=None) -> RunRecord:
        """Open (or create) the record at ``path`` for ``problem`` (JSON-serialisable) and ``seed``;
        raises ``RunRecordError`` if the file was made for another problem or seed."""
        path = Path(path)
        problem = json.loads(json.dumps(problem))
        lines = _read(path)
        if not lines:
            header = {"kind": "header", "format": FORMAT, "problem": problem, "seed": seed, "created": _now()}
            with open(path, "w", encoding="utf-8") as file:
                file.write(json.dumps(header) + "\n")
                file.flush()
                os.fsync(file.fileno())
            return cls(path, problem, seed, [])
        header = lines[0]
        if header.get("kind") != "header" or header.get("format") != FORMAT:
            raise RunRecordError(f"{path}, line 1: expected a '{FORMAT}' header")
        stored = header.get("problem", {})
        differing = sorted(k for k in set(stored) | set(problem) if stored.get(k) != problem.get(k))
        if header.get("seed") != seed:
            differing.append("seed")
        if differing:
            raise RunRecordError(f"{path} was made for a different problem (differs in: "
                                 f"{', '.join(differing)}); use another record file")
        return cls(path, problem, seed, lines[1:])

    def _add(self, entries: list[dict]) -> None:
        for entry in entries:
            if _finite_or_none(entry.get("fitness")) is None:
                entry["fitness"] = math.inf
            self.entries.append(entry)
            for point in (entry.get("u"), entry.get("x")):
                if point is not None:
                    self._index[_key(point)] = entry

    def __len__(self) -> int:
        return len(self.entries)

    def lookup(self, point: Mapping | Sequence[float]) -> dict | None:
        """The recorded evaluation of ``point``: a dict of physical values (matched on ``x``) or a
        sequence of normalised ones (matched on ``u``), exactly; ``None`` if it was not evaluated."""
        return self._index.get(_key(point))

    def append(self, evaluations: Sequence[Mapping], sync: bool = True) -> list[dict]:
        """Write a batch of evaluations (``x``, ``u``, ``fitness``, ``status``, optionally ``indices``
        and anything else JSON-serialisable), give each an ``id`` and a ``timestamp``, flush, and fsync
        unless ``sync`` is False (then ``sync()`` later)."""
        entries = []
        for offset, evaluation in enumerate(evaluations):
            entry = {"kind": "evaluation", "id": len(self.entries) + offset, **evaluation, "timestamp": _now()}
            line = dict(entry, fitness=_finite_or_none(entry.get("fitness")))
            if isinstance(line.get("indices"), Mapping):
                line["indices"] = {k: _finite_or_none(v) for k, v in line["indices"].items()}
            self._file.write(json.dumps(line, allow_nan=False) + "\n")
            entries.append(entry)
        self._file.flush()
        if sync:
            os.fsync(self._file.fileno())
        self._add(entries)
        return entries

    def sync(self) -> None:
        """fsync what was appended."""
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
