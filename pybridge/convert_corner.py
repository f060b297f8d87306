"""One corner of an MBM data set as a SLEKQ quarter-car (SLEKQ paper, Sec. 3-4): the starting corner.

From the K&C sweeps, the property files and the mass table of an MBM data set:

- **Kinematic path** (the paper's polynomial form, :data:`ORDER` = 3): wheel-centre x(z), y(z) without
  constant term, toe(z), camber(z) and the third rotation rotY(z) = -(caster(z) - caster(0)) with
  one, each fitted by least squares over the K&C travel range; residuals RMS and max are reported.
  The travel is that of the corner test: one wheel moving, the other held. For an independent
  suspension that is the parallel-travel curve; where the left wheel's kinematics depend on the
  right wheel (a solid axle: opposite and parallel tests disagree at the same left travel) it is
  the superposition c(z) = c_par(z/2) + c_opp(z/2) - c(0).
- **Strut line of action**: spring and damper of a SLEKQ act along one strut, from the wheel centre
  (``rLower`` = 0) to ``rUpper`` = L0·(0, -sin θ, cos θ), L0 the MBM damper length at design; θ is
  fitted so that the strut length follows the MBM damper length over the travel, so the strut's
  piston speed is the MBM damper's.
- **Spring** (Eq. 2): the single-wheel wheel load F(z) = F_par(z/2) + F_opp(z/2) - F0 of the K&C sweeps
  (one wheel moving, the other held: the test the corner is identified on), turned into a strut
  force along the fitted strut and fitted by a cubic in the strut compression over
  ±``spring_range``; k0 = 0 and the free length follow from the static load (paper Sec. 4).
- **Friction** (a multi-leaf rear, :func:`pybridge.convert_variant.choose_variant`): the inter-leaf friction
  at the wheel from the K&C parallel-travel loop (:func:`pybridge.convert_friction.spring_friction`), along
  the strut as ``data.fFriction`` (the record's Dahl law); each K&C test's wheel load is first freed of
  its own friction (load - F·sign(z): loading in bump, unloading in rebound), so the rates and the spring
  are the elastic ones. ``data.xFriction`` starts at fFriction/k1 (the stuck pack twice as stiff as the
  sliding one) and is identified on the corner sweep. Other variants get fFriction = 0.
- **Damper** (Eq. 1): d1..d6 fitted to the ``.dpr`` curve over ±``damper_range`` (force sign turned:
  Eq. 1 is positive pushing the mounts apart, the ``.dpr`` positive in tension).
- **Unsprung mass**: the corner's unsprung bodies in full, bodies shared by the two sides of the axle
  (a solid axle) half, and half of every linkage of the corner (Milliken's split, as in the paper).

The rates of the K&C sweeps at design (parallel, opposite, single wheel) say what a single-wheel
corner represents in other tests: a heave or pitch test moves both wheels of an axle together (the
parallel rate), a corner sweep one of them (the mean of parallel and opposite).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.optimize import brentq, minimize_scalar

from pybridge.convert_friction import spring_friction
from pybridge.mbm.kc_results import read_kc_results
from pybridge.mbm.mass_table import read_mass_table
from pybridge.mbm.property_files import read_property_file

__all__ = ["CORNERS", "ORDER", "CornerConversion", "convert_corner", "damper_eq1", "fit_polynomial"]

CORNERS = ("FL", "FR", "RL", "RR")
ORDER = 3
G = 9.81
_AXLE = {"F": "front", "R": "rear"}
_SIDE = {"L": "left", "R": "right"}
_COUPLED_CAMBER = np.radians(0.05)   # rad: left camber differing by more than this between tests = coupled wheels


@dataclass
class CornerConversion:
    """The starting SLEKQ corner of an MBM corner: ``data`` (KCRig names ``data.*``, SI) and how it was made.

    ``static_compression`` is the spring's compression at design (m). ``fits`` holds per kinematic channel the coefficients, unit and the residual RMS and max (in the
    unit); ``rates`` the K&C wheel rates at design (N/m); ``unsprung`` the mass split; ``corner_load`` the
    static wheel load (N); ``kinematics_from`` says which K&C tests gave the path.
    """

    corner: str
    data: dict[str, float]
    fits: dict[str, dict]
    rates: dict[str, float]
    unsprung: dict[str, float]
    corner_load: float
    kinematics_from: str
    static_compression: float = 0.0
    sources: dict[str, str] = field(default_factory=dict)

    def summary(self) -> dict:
        """A YAML-ready summary (numbers rounded)."""
        return {"corner": self.corner, "corner_load_N": round(self.corner_load, 1),
                "kinematics_from": self.kinematics_from,
                "fits": {k: {"unit": v["unit"], "rms": round(v["rms"], 4), "max": round(v["max"], 4),
                             "coefficients": [float(f"{c:.6g}") for c in v["coefficients"]]}
                         for k, v in self.fits.items()},
                "rates_N_per_mm": {k: round(v / 1000, 2) for k, v in self.rates.items()},
                "unsprung_kg": {k: round(v, 2) for k, v in self.unsprung.items()},
                "data": {k: float(f"{v:.7g}") for k, v in self.data.items()}, "sources": self.sources}


def fit_polynomial(z: np.ndarray, values: np.ndarray, order: int = ORDER, constant: bool = True):
    """Least-squares polynomial of ``z`` (``constant=False``: through the origin); returns the
    coefficients (constant first, or from z¹) and the residuals."""
    z, values = np.asarray(z, float), np.asarray(values, float)
    powers = range(0 if constant else 1, order + 1)
    matrix = np.column_stack([z ** p for p in powers])
    coefficients = np.linalg.lstsq(matrix, values, rcond=None)[0]
    return coefficients, values - matrix @ coefficients


def damper_eq1(v: np.ndarray, d: tuple[float, ...]) -> np.ndarray:
    """Eq. 1 without the blends, its first branch written continuous (d1·d2, as ``damperForce`` in the
    Modelica library): force (positive pushing the mounts apart) at piston speed ``v`` (+ extension)."""
    d1, d2, d3, d4, d5, d6 = d
    v = np.asarray(v, float)
    return np.where(v < -d2, d1 * d2 - d3 * (v + d2), np.where(v < 0, -d1 * v, np.where(
        v < d5, -d4 * v, -d4 * d5 - d6 * (v - d5))))


def _kc(mbm: Path, axle: str, test: str):
    return read_kc_results(mbm / "kc" / f"{axle}_{test}.csv")


def _single_wheel(par, opp, column: str, z: np.ndarray, travel: str) -> np.ndarray:
    """c(z) of one wheel moving, the other held: c_par(z/2) + c_opp(z/2) - c(0) (superposition)."""
    c_par = np.interp(z / 2, par[travel], par[column])
    c_opp = np.interp(z / 2, opp[travel], opp[column])
    return c_par + c_opp - float(np.interp(0.0, par[travel], par[column]))


def _friction(mbm: Path, axle: str, par, opp) -> tuple[float, float]:
    """The spring friction at the wheel (N) in the parallel and opposite K&C tests: a multi-leaf rear's
    inter-leaf friction, (0, 0) for every other axle (their springs have none)."""
    from pybridge.convert_variant import choose_variant
    from pybridge.mbm.dataset import read_mbm

    if axle != "rear" or choose_variant(read_mbm(mbm)).rear != "multileaf":
        return 0.0, 0.0
    return max(spring_friction(par), 0.0), max(spring_friction(opp), 0.0)


def _elastic(table, friction: float, side: str):
    """The K&C table (sorted by travel) with the wheel load of ``side`` freed of the spring friction:
    load - friction·sign(travel); at design, where a test's row may sit on either branch, the value
    between its neighbours."""
    if friction <= 0:
        return table
    column, travel = f"wheel_load_{side}", f"wheel_travel_{side}"
    z = table[travel].to_numpy()
    design = np.abs(z) <= 1e-9
    load = table[column].to_numpy() - friction * np.where(design, 0.0, np.sign(z))
    load[design] = np.interp(0.0, z[~design], load[~design])
    return table.assign(**{column: load})


def _rate(z: np.ndarray, force: np.ndarray, half_width: float = 0.005) -> float:
    """dF/dz at z = 0 from a straight line through the points within ±half_width."""
    near = np.abs(z) <= half_width + 1e-9
    return float(np.polyfit(z[near], force[near], 1)[0])


def _unsprung(masses, axle: str, side: str) -> dict[str, float]:
    rows = masses.data[masses.data["axle"] == axle]
    own, shared = rows[rows["side"] == side], rows[rows["side"] == "centre"]
    unsprung = float(own[own["class"] == "unsprung"]["mass"].sum() + 0.5 * shared[shared["class"] == "unsprung"]["mass"].sum())
    linkage = float(own[own["class"] == "linkage"]["mass"].sum() + 0.5 * shared[shared["class"] == "linkage"]["mass"].sum())
    return {"unsprung_bodies": unsprung, "linkage": linkage, "start": unsprung + 0.5 * linkage,
            "lower_paper": unsprung, "upper_paper": unsprung + linkage}


def _strut_angle(w: np.ndarray, length: np.ndarray) -> tuple[float, np.ndarray]:
    """θ of the upper mount L0·(0, -sin θ, cos θ) that makes |w(z) - r_U| follow ``length``; residuals."""
    l0 = float(length[np.argmin(np.abs(w[:, 2]))])

    def residual(theta):
        upper = l0 * np.array([0.0, -np.sin(theta), np.cos(theta)])
        return np.linalg.norm(w - upper, axis=1) - length

    theta = minimize_scalar(lambda th: float(np.sum(residual(th) ** 2)), bounds=(0.0, np.radians(85)),
                            method="bounded", options={"xatol": 1e-10}).x
    return float(theta), residual(theta)


def _spring(delta: np.ndarray, strut_force: np.ndarray, s0: float) -> tuple[dict, np.ndarray, float]:
    """k1..k3 (k0 = 0) of Eq. 2 whose force, with the free length from the static strut force ``s0``,
    follows ``strut_force`` over the strut compressions ``delta`` from design; residuals (N) and the
    static compression (m). The cubic fit is taken where its extrapolation reaches zero force below design
    (the free length); else the quadratic, else the linear one (a preloaded torsion bar's curve may bend away)."""
    if s0 <= 0:
        raise ValueError(f"static strut force {s0:.4g} N is not positive: the corner carries no load at design")
    for order in (3, 2, 1):
        a, residuals = fit_polynomial(delta, strut_force - s0, order=order, constant=False)
        a1, a2, a3 = (list(float(v) for v in a) + [0.0, 0.0])[:3]
        if a1 <= 0:
            raise ValueError(f"strut spring rate {a1:.4g} N/m at design is not positive; the K&C wheel load does "
                             "not rise with bump travel")

        def static(d):
            k2 = a2 - 3 * a3 * d
            k1 = a1 - 2 * k2 * d - 3 * a3 * d * d
            return k1 * d + k2 * d * d + a3 * d ** 3 - s0

        if static(10 * s0 / a1) > 0:
            break
    d0 = brentq(static, 0.0, 10 * s0 / a1)
    k3, k2 = a3, a2 - 3 * a3 * d0
    k1 = a1 - 2 * k2 * d0 - 3 * k3 * d0 * d0
    return {"data.k0": 0.0, "data.k1": k1, "data.k2": k2, "data.k3": k3}, residuals, float(d0)


def _damper(speed: np.ndarray, force: np.ndarray, speed_range: float) -> tuple[tuple[float, ...], np.ndarray]:
    """d1..d6 of Eq. 1 closest (least squares, 2 mm/s samples) to the curve ``force(speed)`` (Eq. 1's
    sign) over ±``speed_range``: for each knee speed on a grid the two rates of a side are linear
    least squares; the best knee per side wins. Returns the coefficients and the residuals (N)."""
    v = np.arange(-speed_range, speed_range + 1e-9, 0.002)
    target = np.interp(v, speed, force)
    knees = np.arange(0.01, 0.8 * speed_range, 0.005)
    best = []
    for sign in (-1.0, 1.0):
        side = sign * v > 0
        s, f = np.abs(v[side]), target[side] * -sign   # speed > 0 and force opposing it, per side
        fits = []
        for knee in knees:
            matrix = np.column_stack([np.minimum(s, knee), np.maximum(s - knee, 0.0)])
            rates, *_ = np.linalg.lstsq(matrix, f, rcond=None)
            fits.append((float(np.sum((matrix @ rates - f) ** 2)), knee, *rates))
        best.append(min(fits)[1:])
    (d2, d1, d3), (d5, d4, d6) = best
    d = (d1, d2, d3, d4, d5, d6)
    return d, damper_eq1(v, d) - target


def convert_corner(mbm_dir: str | Path, corner: str, *, corner_load: float | None = None,
                   spring_range: float = 0.04, damper_range: float = 0.6) -> CornerConversion:
    """The starting SLEKQ corner ``corner`` (FL, FR, RL, RR) of the MBM data set ``mbm_dir`` (its ``mbm/``
    folder). ``corner_load`` is the static wheel load F0 (N; default the K&C wheel load at design)."""
    mbm = Path(mbm_dir)
    if corner not in CORNERS:
        raise ValueError(f"corner {corner!r}: expected one of {', '.join(CORNERS)}")
    axle, side = _AXLE[corner[0]], _SIDE[corner[1]]
    par, opp = _kc(mbm, axle, "parallel_travel"), _kc(mbm, axle, "opposite_travel")
    travel = f"wheel_travel_{side}"
    friction = _friction(mbm, axle, par, opp)
    p, o = (_elastic(test.data.sort_values(travel), f, side) for test, f in ((par, friction[0]), (opp, friction[1])))
    z = p[travel].to_numpy()
    ch = {name: f"{name}_{side}" for name in ("wheel_centre_x", "wheel_centre_y", "toe", "camber", "caster",
                                                "damper_length", "wheel_load")}
    coupled = float(np.max(np.abs(np.interp(z, o[travel], o[ch["camber"]]) - p[ch["camber"]].to_numpy()))) \
        > _COUPLED_CAMBER

    def channel(name: str) -> np.ndarray:
        if coupled:
            return _single_wheel(p, o, ch[name], z, travel)
        return p[ch[name]].to_numpy()

    at0 = int(np.argmin(np.abs(z)))
    fits, data = {}, {}
    x = channel("wheel_centre_x")
    y = np.abs(channel("wheel_centre_y"))   # outward (the K&C files give the lateral position per side)
    for name, values, unit, scale in (("x", x - x[at0], "mm", 1e3), ("y", y - y[at0], "mm", 1e3)):
        c, r = fit_polynomial(z, values, constant=False)
        fits[name] = {"coefficients": c, "rms": float(np.sqrt(np.mean(r ** 2))) * scale,
                      "max": float(np.max(np.abs(r))) * scale, "unit": unit}
        data.update({f"data.{name}Path{i}": float(v) for i, v in enumerate(c, start=1)})
    angles = {"toe": channel("toe"), "camber": channel("camber")}
    if ch["caster"] in p:
        caster = channel("caster")
        angles["rotY"] = -(caster - caster[at0])
    for name, values in angles.items():
        c, r = fit_polynomial(z, values)
        fits[name] = {"coefficients": c, "rms": float(np.degrees(np.sqrt(np.mean(r ** 2)))),
                      "max": float(np.degrees(np.max(np.abs(r)))), "unit": "deg"}
        data.update({f"data.{name}{i}": float(v) for i, v in enumerate(c)})

    # strut along the MBM damper
    poly = lambda key: sum(data[f"data.{key}Path{i}"] * z ** i for i in (1, 2, 3))  # noqa: E731
    w = np.column_stack([poly("x"), poly("y"), z])
    damper_length = channel("damper_length")
    theta, residual = _strut_angle(w, damper_length)
    l0 = float(damper_length[at0])
    upper = l0 * np.array([0.0, -np.sin(theta), np.cos(theta)])
    fits["strut_length"] = {"coefficients": [np.degrees(theta), l0], "unit": "mm",
                            "rms": float(np.sqrt(np.mean(residual ** 2))) * 1e3, "max": float(np.max(np.abs(residual))) * 1e3}
    data.update({"data.rUpper[1]": 0.0, "data.rUpper[2]": float(upper[1]), "data.rUpper[3]": float(upper[2]),
                 "data.rLower[1]": 0.0, "data.rLower[2]": 0.0, "data.rLower[3]": 0.0})

    # rates and spring
    load_single = _single_wheel(p, o, ch["wheel_load"], z, travel)
    rates = {"parallel": _rate(z, p[ch["wheel_load"]].to_numpy()),
             "opposite": _rate(o[travel].to_numpy(), o[ch["wheel_load"]].to_numpy()),
             "single_wheel": _rate(z, load_single)}
    f0 = float(load_single[at0]) if corner_load is None else float(corner_load)
    masses = read_mass_table(mbm / "masses.csv")
    unsprung = _unsprung(masses, axle, side)
    m_u = unsprung["start"]
    near = np.abs(z) <= spring_range + 1e-9
    lengths = np.linalg.norm(w - upper, axis=1)
    slopes = np.gradient(lengths, z)
    strut_force = (m_u * G - (load_single - load_single[at0] + f0)) / slopes
    s0 = (f0 - m_u * G) / -slopes[at0]
    spring, residual, compression = _spring(lengths[at0] - lengths[near], strut_force[near], s0)
    fits["spring_force"] = {"coefficients": [spring[k] for k in ("data.k1", "data.k2", "data.k3")], "unit": "N",
                            "rms": float(np.sqrt(np.mean(residual ** 2))), "max": float(np.max(np.abs(residual)))}
    data.update(spring)
    f_strut = friction[0] / abs(float(slopes[at0]))
    data.update({"data.fFriction": f_strut, "data.xFriction": f_strut / spring["data.k1"] if f_strut > 0 else 1e-3})

    # damper
    curve = read_property_file(mbm / f"{axle}_damper.dpr")
    d, residual = _damper(curve.x, -curve.force, damper_range)
    fits["damper_force"] = {"coefficients": list(d), "unit": "N", "rms": float(np.sqrt(np.mean(residual ** 2))),
                            "max": float(np.max(np.abs(residual)))}
    data.update({f"data.d{i}": float(value) for i, value in enumerate(d, start=1)})

    data.update({"data.mUnsprung": m_u, "data.mSprung": f0 / G - m_u})
    sources = {"kinematics": f"kc/{axle}_parallel_travel.csv" + (f" + kc/{axle}_opposite_travel.csv" if coupled else ""),
               "spring": f"kc/{axle}_parallel_travel.csv + kc/{axle}_opposite_travel.csv (single wheel)",
               "damper": f"{axle}_damper.dpr", "unsprung": "masses.csv"}
    return CornerConversion(corner=corner, data=data, fits=fits, rates=rates, unsprung=unsprung, corner_load=f0,
                            kinematics_from="single-wheel superposition of parallel and opposite travel (coupled "
                            "wheels: solid axle)" if coupled else "parallel travel (independent wheels)",
                            static_compression=compression, sources=sources)
