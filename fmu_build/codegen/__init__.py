"""The native backend's model C: rumoca's flattened Modelica -> C on the native FMI 2.0 runtime.

``flat`` reads rumoca's flat model, ``cexpr`` translates expressions, ``functions`` translates
Modelica functions, ``sorting`` matches, sorts and solves the equations, ``model`` writes the C file
of the runtime's contract (``native/runtime/model.h``). No model is written by hand.

Speed (the derivative function runs 4 times per RK4 step): in ``continuous_equations`` calls of
straight-line functions are expanded and every value is computed once (``Emitter.value``: equal C
texts share one temporary; a pure call with equal arguments, an if-statement on equal values too;
a call with an array output on equal argument texts fills one output array that the others read),
so table look-ups on the same grid and input locate their cell once; parameter-only values (and the
parameter-only arithmetic inside expressions) are computed in ``model_calculated_parameters``; an
elementary call in an if-expression's arm reuses the function's unconditional call of it
(``shared_calls``); what no output needs is dropped. Other calls go to
variants specialised on constant array sizes and on the outputs needed, with a record's fields
passed as one pointer. cos(atan(u)) and sin(2 atan(u)) need no trigonometric call. Compiled with
``native_backend.CFLAGS``.

``lanes`` writes the lane model (the same equations over LANES vehicles) from that C, its function
calls in lane versions (``lane_functions``), each elementary call once (``lane_elementary``) and its
statements in critical-path order (``lane_schedule``).
"""
from __future__ import annotations

from fmu_build.codegen.model import GeneratedModel


def generate_model(class_name: str, variables) -> GeneratedModel:
    """The generated C of a library class, given its FMU variables (native_backend.native_model)."""
    from fmu_build.codegen.flat import load_flat
    from fmu_build.codegen.model import generate
    from fmu_build.modelica import load_model

    flat = load_flat(load_model(class_name))
    flat.name = class_name
    return generate(flat, variables)


__all__ = ["generate_model", "GeneratedModel"]
