"""The reference multibody vehicle (virtual MBM) on Exudyn: model, K&C rig, manoeuvres, export, tyre.

Exudyn is an optional extra (``pip install '.[reference]'``); only ``pybridge mbm generate`` and
this package's simulating modules need it. :func:`require_exudyn` says how to install it.
"""
from __future__ import annotations

INSTALL_HINT = "pip install '.[reference]' (or: pip install exudyn)"


class ExudynMissing(ValueError):
    """The reference vehicle was asked for but Exudyn is not installed."""


def require_exudyn() -> None:
    """Raise :class:`ExudynMissing`, naming the install command, if Exudyn cannot be imported."""
    try:
        import exudyn  # noqa: F401
    except ImportError as error:
        raise ExudynMissing(f"the reference vehicle needs Exudyn, an optional extra that is not installed "
                            f"({error}); install it with {INSTALL_HINT}") from None
