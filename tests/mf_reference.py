"""The independent Python Magic Formula of the tests: :mod:`pybridge.reference.magic_formula` on the test .tir.

``coefficients(**mods)`` reads ``conftest.TIR_FILE``; everything else is re-exported unchanged.
"""
from __future__ import annotations

from conftest import TIR_FILE
from pybridge.reference import magic_formula
from pybridge.reference.magic_formula import EPS, cos_weight, magic, reference, relaxation, rolling_radius, rolling_resistance

__all__ = ["EPS", "coefficients", "cos_weight", "magic", "reference", "relaxation", "rolling_radius",
           "rolling_resistance"]


def coefficients(**mods) -> dict:
    """The coefficients of the test .tir (``conftest.TIR_FILE``), overwritten by ``mods``."""
    return magic_formula.coefficients(TIR_FILE, **mods)
