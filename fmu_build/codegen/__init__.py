"""The generated backend: rumoca's flattened Modelica -> C on the native FMI 2.0 runtime.

``flat`` reads rumoca's flat model, ``cexpr`` translates expressions, ``functions`` translates
Modelica functions, ``sorting`` matches, sorts and solves the equations, ``model`` writes the C file
of the runtime's contract (``native/runtime/model.h``). No model is written by hand.
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
