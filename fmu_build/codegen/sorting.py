"""Matching, sorting (BLT) and solving: which equation computes which unknown, in which order.

Each scalar equation is matched to one unknown element (scipy's maximum bipartite matching); an
equation whose left side is a whole array, a tuple of function outputs or a call with array results
is a block that computes all those elements at once. The dependency graph of the matched equations
is sorted topologically (graphlib); a cycle is an algebraic loop and is refused, naming the
equations. Each scalar equation is then solved for its unknown by isolating it (the library is
written so that unknowns appear once and linearly).
"""
from __future__ import annotations

import graphlib
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from fmu_build.codegen.cexpr import Unsupported


@dataclass
class Equation:
    """One equation (or a block of element equations of one array/tuple equation)."""

    index: int
    where: str
    lhs: dict
    rhs: dict
    reads: set = field(default_factory=set)          # (name, offset) of unknown elements it reads
    solves: list = field(default_factory=list)       # (name, offset) it computes
    element: tuple = ()                              # for the element equations of an array equation
    block: bool = False                              # True: lhs is assigned as a whole (tuple/call)
    inputs: frozenset | None = None                  # tuple group: the call's inputs its outputs need


class AlgebraicLoop(Exception):
    pass


def match(equations: list[Equation], unknowns: list[tuple]) -> None:
    """Fill ``solves`` of the scalar equations; raise Unsupported naming what is left unmatched."""
    fixed = {u for eq in equations if eq.block or eq.solves for u in eq.solves}
    free = [u for u in unknowns if u not in fixed]
    column = {u: k for k, u in enumerate(free)}
    rows = [eq for eq in equations if not eq.block and not eq.solves]
    data, ri, ci = [], [], []
    for r, eq in enumerate(rows):
        for u in eq.reads:
            if u in column:
                ri.append(r)
                ci.append(column[u])
                data.append(1)
    if len(rows) != len(free):
        extra = "equations than unknowns" if len(rows) > len(free) else "unknowns than equations"
        raise Unsupported(f"the model has {abs(len(rows) - len(free))} more {extra} "
                          f"({len(rows)} equations for {len(free)} unknowns)")
    if not rows:
        return
    graph = csr_matrix((np.array(data, dtype=np.int8), (np.array(ri), np.array(ci))), shape=(len(rows), len(free)))
    matched = maximum_bipartite_matching(graph, perm_type="column")
    for r, c in enumerate(matched):
        if c < 0:
            raise Unsupported(f"{rows[r].where}: the equation has no unknown left to solve for "
                              "(the model is structurally singular)")
        rows[r].solves = [free[c]]


def sort(equations: list[Equation]) -> list[Equation]:
    """Equations in an order where each reads only unknowns computed before it."""
    producer = {u: eq.index for eq in equations for u in eq.solves}
    by_index = {eq.index: eq for eq in equations}
    sorter = graphlib.TopologicalSorter()
    for eq in equations:
        sorter.add(eq.index, *sorted({producer[u] for u in eq.reads if u in producer and producer[u] != eq.index}))
    try:
        order = list(sorter.static_order())
    except graphlib.CycleError as error:
        cycle = error.args[1]
        places = []
        for index in cycle[:-1]:
            eq = by_index[index]
            name = eq.solves[0][0] if eq.solves else "?"
            places.append(f"{eq.where} (solved for {name})")
        raise AlgebraicLoop("algebraic loop: " + "; ".join(dict.fromkeys(places))) from None
    return [by_index[k] for k in order]


def _contains(node, test) -> bool:
    if test(node):
        return True
    if isinstance(node, dict):
        return any(_contains(v, test) for v in node.values())
    if isinstance(node, list):
        return any(_contains(v, test) for v in node)
    return False


def _b(op, a, b):
    return {"Binary": {"op": op, "lhs": a, "rhs": b}}


def isolate(expr: dict, other: dict, is_unknown) -> dict:
    """Solve ``expr = other`` for the unknown that occurs once in ``expr``; the new right side."""
    if is_unknown(expr):
        return other
    kind = next(iter(expr))
    body = expr[kind]
    if kind == "Unary" and body["op"] == "Minus":
        return isolate(body["rhs"], {"Unary": {"op": "Minus", "rhs": other}}, is_unknown)
    if kind == "BuiltinCall" and body["function"] in ("NoEvent", "Smooth"):
        return isolate(body["args"][-1], other, is_unknown)
    if kind == "Binary":
        op, a, b = body["op"], body["lhs"], body["rhs"]
        in_a, in_b = _contains(a, is_unknown), _contains(b, is_unknown)
        if in_a and in_b:
            raise Unsupported("the unknown appears more than once (write the equation explicitly)")
        if op == "Add":
            return isolate(a, _b("Sub", other, b), is_unknown) if in_a else isolate(b, _b("Sub", other, a), is_unknown)
        if op == "Sub":
            return isolate(a, _b("Add", other, b), is_unknown) if in_a else isolate(b, _b("Sub", a, other), is_unknown)
        if op == "Mul":
            return isolate(a, _b("Div", other, b), is_unknown) if in_a else isolate(b, _b("Div", other, a), is_unknown)
        if op == "Div":
            return isolate(a, _b("Mul", other, b), is_unknown) if in_a else isolate(b, _b("Div", a, other), is_unknown)
    raise Unsupported(f"the unknown appears inside '{kind}' (not solvable explicitly)")


def solve(lhs: dict, rhs: dict, is_unknown) -> dict:
    """The expression of the unknown from ``lhs = rhs``."""
    in_l, in_r = _contains(lhs, is_unknown), _contains(rhs, is_unknown)
    if in_l and in_r:
        raise Unsupported("the unknown appears on both sides, not solvable explicitly "
                          "(an implicit equation: write it solved for one variable)")
    if is_unknown(lhs):
        return rhs
    if is_unknown(rhs):
        return lhs
    return isolate(lhs, rhs, is_unknown) if in_l else isolate(rhs, lhs, is_unknown)
