"""Elementary function calls of the lane model computed once: vector math calls are most of its cost.

The lane writer (fmu_build.codegen.lanes) puts every call of an elementary function (sin, atan, ...) in a
temporary of its own and remembers it by the call's text; the same call later in the same block, or in a
block inside it, reuses the temporary as long as nothing the call reads was assigned in between. A block's
temporaries are forgotten when it closes, and a loop body sees none from outside it (a later iteration may
have changed what they read). The scalar C evaluates an elementary function once per occurrence too, so
each lane's values stay the scalar model's bit for bit.
"""
from __future__ import annotations

import re

ELEMENTARY = re.compile(r"\bl(?:sin|cos|tan|atan|atan2|exp|log|log10|pow|tanh|sinh|cosh|asin|acos)\(")


class ElementaryCache:
    """Call text -> temporary, one level per open block (a loop's level a barrier for lookups)."""

    def __init__(self):
        self.levels: list[tuple[dict[str, str], bool]] = [({}, False)]

    def push(self, barrier: bool = False) -> None:
        self.levels.append(({}, barrier))

    def pop(self) -> None:
        self.levels.pop()

    def get(self, call: str) -> str | None:
        for entries, barrier in reversed(self.levels):
            if call in entries:
                return entries[call]
            if barrier:
                return None
        return None

    def put(self, call: str, temp: str) -> None:
        self.levels[-1][0][call] = temp

    def forget(self, target: str) -> None:
        """Drop the calls that read ``target`` (a local's name, or a text such as M->r[12])."""
        name = re.fullmatch(r"(\w+)(?:\[.*\])?", target)
        reads = re.compile(rf"\b{name[1]}\b").search if name else (lambda call: target in call)
        for entries, _ in self.levels:
            for call in [c for c in entries if reads(c)]:
                del entries[call]

    def clear(self) -> None:
        """After a call of a model function, which may write through its pointers."""
        for entries, _ in self.levels:
            entries.clear()
