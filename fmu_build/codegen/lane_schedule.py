"""The lane model's statements in critical-path order: independent vector math chains overlap.

Most of the lane model's time is in chains of vector math calls (the Magic Formula's atan -> atan -> sin
of each tyre), and a call of glibc's libmvec clobbers every vector register, so the processor overlaps two
calls only when they are near each other in the instruction stream. The generator writes the equations in
sorted order, one tyre after the other. :func:`schedule` reorders the top-level statements of a part of
``lane_continuous_equations`` (an ``if`` block with its ``else`` is one statement) by list scheduling:
among the statements whose inputs are ready, the one with the longest estimated latency to the end of the
part goes first, so the four tyres' chains interleave. Every statement keeps its operands and order of
evaluation, so each lane's results stay bit for bit the same.

A statement depends on an earlier one when one writes what the other reads or writes: a temporary
(``v12``, ``b3``, an array ``a7``), or a model value ``M->r[k]`` (``M->i``, ``M->b``). A lane function
that writes through a pointer (axle maps, a linear solve) writes every model value the part mentions and
every temporary it is given; a pointer read (``&M->r[k]``, a table) reads every model value the part
writes. Run on the lane writer's own output only.
"""
from __future__ import annotations

import heapq
import re

from fmu_build.codegen.lane_elementary import ELEMENTARY

_NAME = re.compile(r"\b([a-z]+\d+)\b")
_DECLARE = re.compile(r"\s*(?:const )?l[vi] ([a-z]+\d+)\b")
_ASSIGN = re.compile(r"\s*([a-z]+\d+)(?:\[[^\]]*\])? = ")
_MODEL_WRITE = re.compile(r"\s*M->([rib])\[(\d+)\] = ")
_MODEL = re.compile(r"M->([rib])\[(\d+)\]")
_LANE_FUNCTION = re.compile(r"\b(lf_\w+)\(")
_SIGNATURE = re.compile(r"static .*?\b(lf_\w+)\((.*)\)$")
_OUTPUT_POINTER = re.compile(r"(?<!const )\bl[vi] \*")
# estimated latencies (cycles on a current x86 core): a vector math or out-of-line lane function call,
# a division or square root, any other statement
_CALL, _DIVIDE, _OTHER = 40, 13, 1


def writing_functions(emitted: list[str]) -> set[str]:
    """The lane functions among ``emitted`` (their C) with an output pointer parameter."""
    found = set()
    for line in "\n".join(emitted).split("\n"):
        match = _SIGNATURE.match(line)
        if match and _OUTPUT_POINTER.search(match[2]):
            found.add(match[1])
    return found


def statements(lines: list[str]) -> list[list[str]]:
    """``lines`` grouped into top-level statements: a line, or a block from its opening to its closing
    brace, with an ``else`` block (``}`` then ``if (lany(... & ~cnd)) {``) a statement of its own."""
    out, k = [], 0
    while k < len(lines):
        depth, end = 0, k
        while True:
            depth += lines[end].count("{") - lines[end].count("}")
            if depth <= 0:
                break
            end += 1
            if end == len(lines):
                raise ValueError(f"lane_schedule: unbalanced block from '{lines[k][:60]}'")
        out.append(lines[k:end + 1])
        k = end + 1
    return out


def _effects(statement: list[str], writers: set[str]) -> tuple[set, set, bool, bool]:
    """(names and model values read, written, whether it reads through a model pointer, whether a lane
    function writes through one)."""
    reads, writes, local = set(), set(), set()
    pointer_read = pointer_write = False
    for number, line in enumerate(statement):
        text = line
        if found := _MODEL_WRITE.match(line):
            writes.add((found[1], int(found[2])))
            text = line[found.end():]
        elif found := _DECLARE.match(line):
            (writes if number == 0 else local).add(found[1])
            text = line[found.end():]
        elif (found := _ASSIGN.match(line)) and found[1] not in local:
            writes.add(found[1])                    # and reads it: lsel(mask, new, old), an element's index
        reads.update(name for name in _NAME.findall(text) if name not in local)
        reads.update((space, int(k)) for space, k in _MODEL.findall(text))
        pointer_read |= "&M->" in text
        called = _LANE_FUNCTION.findall(text)
        if any(name in writers for name in called):
            pointer_write = True
            writes.update(name for name in _NAME.findall(text) if name not in local)
    return reads, writes, pointer_read, pointer_write


def _latency(statement: list[str]) -> int:
    calls = sum(len(ELEMENTARY.findall(line)) + len(_LANE_FUNCTION.findall(line)) for line in statement)
    divides = sum(line.count(" / ") + line.count("lsqrt(") for line in statement)
    return _CALL * calls + _DIVIDE * divides + _OTHER


def _dependencies(effects: list[tuple[set, set, bool, bool]]) -> list[set[int]]:
    """For each statement, the earlier statements it must follow (read/write, write/read, write/write)."""
    mentioned = set().union(*(r | w for r, w, _, _ in effects))
    models = {x for x in mentioned if isinstance(x, tuple)}
    written = {x for _, w, _, _ in effects for x in w if isinstance(x, tuple)}
    if any(e[3] for e in effects):
        written |= models
    last_write: dict = {}
    readers: dict = {}
    before: list[set[int]] = []
    for j, (reads, writes, pointer_read, pointer_write) in enumerate(effects):
        reads = reads | (written if pointer_read else set())
        writes = writes | (models if pointer_write else set())
        after = {last_write[x] for x in reads | writes if x in last_write}
        for x in writes:
            after.update(readers.pop(x, ()))
            last_write[x] = j
        for x in reads:
            readers.setdefault(x, []).append(j)
        after.discard(j)
        before.append(after)
    return before


def schedule(lines: list[str], writers: set[str]) -> list[str]:
    """``lines`` (one part of lane_continuous_equations, unindented top level) with its top-level
    statements in list-scheduling order, longest estimated latency to the end first."""
    parts = statements(lines)
    before = _dependencies([_effects(part, writers) for part in parts])
    after: list[list[int]] = [[] for _ in parts]
    for j, earlier in enumerate(before):
        for i in earlier:
            after[i].append(j)
    priority = [0] * len(parts)
    for i in reversed(range(len(parts))):
        priority[i] = _latency(parts[i]) + max((priority[j] for j in after[i]), default=0)
    waiting = [len(earlier) for earlier in before]
    ready = [(-priority[i], i) for i in range(len(parts)) if not waiting[i]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(i)
        for j in after[i]:
            waiting[j] -= 1
            if not waiting[j]:
                heapq.heappush(ready, (-priority[j], j))
    return [line for i in order for line in parts[i]]
