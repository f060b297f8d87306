"""The last check before C is written: every state's derivative is computed, once, where it must be.

A derivative that no equation computes keeps whatever its slot holds (0): the state stands still
and nothing says so. After matching, sorting and splitting, each element of each state's derivative
must be solved by exactly one equation, and that equation must be among those a derivative-only
evaluation runs (``model_derivatives``); otherwise the build is refused naming the state's
declaration.
"""
from __future__ import annotations

from collections import Counter

from fmu_build.codegen.flat import FlatModel
from fmu_build.codegen.sorting import Equation
from fmu_build.errors import BuildError
from fmu_build.variables import element_names


def check_derivatives(flat: FlatModel, derivative_part: list[Equation], others: list[Equation]) -> None:
    """Refuse unless each state element's derivative is solved once, by ``derivative_part``."""
    solved = Counter(u for eq in derivative_part for u in eq.solves if u[0].startswith("der("))
    elsewhere = Counter(u for eq in others for u in eq.solves if u[0].startswith("der("))
    for name, var in flat.vars.items():
        if var.role != "state":
            continue
        for k, (element, _) in enumerate(element_names(name, var.dims)):
            key = (f"der({name})", k)
            if solved[key] != 1 or elsewhere[key]:
                place = flat.sources.where(var.raw.get("source_span"))
                raise BuildError(f"{place}: der({element}) is computed by {solved[key]} equation(s) of the "
                                 f"derivative function and {elsewhere[key]} elsewhere (expected exactly one; "
                                 "an equation of it was dropped or duplicated)")
