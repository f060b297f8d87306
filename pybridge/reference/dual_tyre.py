"""Dual (twin) rear tyres of the reference MBM: two Magic Formula contact patches on one wheel station.

The data file's ``tyre.rear_tyres_per_wheel: 2`` and ``tyre.dual_spacing`` (m between the two
tyres' centre planes) put two :class:`~pybridge.reference.tyre.ContactPatchTyre` on each rear hub,
at +-spacing/2 along the spin axis. Each patch has its own position, velocity (the hub's velocity
plus omega x offset), road height under it and so its own deflection, load and slips; the station's
force is the sum, its torque about the hub centre the sum of the patch torques plus offset x force.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pybridge.reference.tyre import ContactPatchTyre, TyreForces


class DualTyre:
    """Two contact-patch tyres at ``+-spacing/2`` along the spin axis, with the interface of one.

    ``road_height`` of :meth:`evaluate` is a height (m) or a function ``(x, y) -> z`` of the road
    under each patch (a crowned or cambered road); ``patches`` holds the last :class:`TyreForces`
    of each tyre, the one at + offset (towards the vehicle's left) first.
    """

    def __init__(self, tir_path: str | Path, spacing: float, **options):
        self.tyres = [ContactPatchTyre(tir_path, **options) for _ in range(2)]
        self.offsets = (0.5 * spacing, -0.5 * spacing)
        self.coefficients = self.tyres[0].coefficients
        self.unloaded_radius = self.tyres[0].unloaded_radius
        self.vertical_stiffness = self.tyres[0].vertical_stiffness
        self.patches: list[TyreForces] = []

    def reset(self) -> None:
        for tyre in self.tyres:
            tyre.reset()

    def advance(self, h: float) -> None:
        for tyre in self.tyres:
            tyre.advance(h)

    @property
    def kappa(self) -> float:
        return 0.5 * (self.tyres[0].kappa + self.tyres[1].kappa)

    @property
    def tan_alpha(self) -> float:
        return 0.5 * (self.tyres[0].tan_alpha + self.tyres[1].tan_alpha)

    def hold(self, force, centre, rotation, road_height: float = 0.0) -> None:
        """Slip states that carry ``force`` (the station's static contact force) at rest, half on each
        tyre (:meth:`ContactPatchTyre.hold` at each patch's centre)."""
        axis = np.asarray(rotation)[:, 1]
        for tyre, offset in zip(self.tyres, self.offsets):
            tyre.hold(0.5 * np.asarray(force, float), np.asarray(centre, float) + offset * axis, rotation, road_height)

    def evaluate(self, centre, rotation, velocity, omega, road_height=0.0, road_velocity: float = 0.0) -> TyreForces:
        """The summed forces of both patches (see :meth:`ContactPatchTyre.evaluate`)."""
        axis = np.asarray(rotation)[:, 1]
        centre, velocity, omega = (np.asarray(v, float) for v in (centre, velocity, omega))
        self.patches = []
        force, torque = np.zeros(3), np.zeros(3)
        for tyre, offset in zip(self.tyres, self.offsets):
            arm = offset * axis
            at = centre + arm
            height = road_height(at[0], at[1]) if callable(road_height) else road_height
            f = tyre.evaluate(at, rotation, velocity + _cross(omega, arm), omega, height, road_velocity)
            self.patches.append(f)
            force += f.force
            torque += f.torque + _cross(arm, f.force)
        a, b = self.patches
        return TyreForces(force, torque, a.Fx + b.Fx, a.Fy + b.Fy, a.Fz + b.Fz, a.Mx + b.Mx, a.My + b.My, a.Mz + b.Mz,
                          0.5 * (a.kappa + b.kappa), 0.5 * (a.alpha + b.alpha), 0.5 * (a.gamma + b.gamma),
                          0.5 * (a.Vx + b.Vx), 0.5 * (a.contact_point + b.contact_point),
                          0.5 * (a.loaded_radius + b.loaded_radius), 0.5 * (a.rolling_radius + b.rolling_radius))


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b of two 3-vectors (np.cross costs about 10 times more for one pair)."""
    return np.array((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]))


def dual_spacing(data) -> float | None:
    """Spacing of the rear dual tyres (m), or None for single rear tyres (checked when the data loads)."""
    return float(data["tyre"]["dual_spacing"]) if data.rear_tyres_per_wheel == 2 else None


def corner_tyre(data, corner: str, **options):
    """The tyre model of a corner: a :class:`DualTyre` on the rear wheels of a dual-tyre vehicle."""
    spacing = dual_spacing(data)
    if corner.startswith("R") and spacing is not None:
        return DualTyre(data.tyre_file, spacing, **options)
    return ContactPatchTyre(data.tyre_file, **options)
