"""An independent Python Magic Formula (PAC2002 / MF 5.2 and MF 6.1): steady-state combined slip.

Written from the equations (Pacejka, Tire and Vehicle Dynamics; the list in
VehicleRTM.Tires.combinedSlip's documentation), not from the Modelica code. ``coefficients(tir_path)``
reads a .tir through :func:`pybridge.mbm.tir.read_tir` into a dict keyed by the .tir names;
``reference``, ``rolling_resistance``, ``rolling_radius`` and ``relaxation`` evaluate it.
"""
from __future__ import annotations

import math
from pathlib import Path

from pybridge.mbm.tir import MF_PARAMETERS, read_tir

__all__ = ["coefficients", "reference", "relaxation", "rolling_radius", "rolling_resistance"]

EPS = 1e-6


def coefficients(tir_path: str | Path, **mods) -> dict:
    """Record defaults, overwritten by the values of the .tir file ``tir_path``, then by ``mods``.

    ``mfVersion`` (52 or 61) is the file's Magic Formula version unless ``mods`` sets it.
    """
    data = read_tir(tir_path)
    p = {q.key: q.default for q in MF_PARAMETERS}
    p["mfVersion"] = data.mf_version
    for key, value in data.flat().items():
        if key in p:
            p[key] = float(value)
    p.update(mods)
    return p


def _sign(x: float) -> float:
    return 1.0 if x >= 0 else -1.0


def _clip(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def magic(B, C, D, E, x):
    """D sin(C atan(Bx - E(Bx - atan Bx)))."""
    bx = B * x
    return D * math.sin(C * math.atan(bx - E * (bx - math.atan(bx))))


def cos_weight(B, C, E, x):
    """cos(C atan(Bx - E(Bx - atan Bx))), the combined-slip weighting shape."""
    bx = B * x
    return math.cos(C * math.atan(bx - E * (bx - math.atan(bx))))


def _pure_side_slip(p: dict, Fz: float, Fz0s: float, dfz: float, dpi: float, a_star: float, gam_y: float,
                    v61: bool) -> dict:
    """Pure side slip: the side force Fy0 and the terms the combined slip and the aligning moment reuse."""
    Cy = p["PCY1"] * p["LCY"]
    muy = (p["PDY1"] + p["PDY2"] * dfz) * (1 + p["PPY3"] * dpi + p["PPY4"] * dpi ** 2) \
        * (1 - p["PDY3"] * gam_y ** 2) * p["LMUY"]
    Dy = muy * Fz
    if v61:
        Kya = (p["PKY1"] * Fz0s * (1 + p["PPY1"] * dpi) * (1 - p["PKY3"] * abs(gam_y))
               * math.sin(p["PKY4"] * math.atan(Fz / ((p["PKY2"] + p["PKY5"] * gam_y ** 2)
                                                    * (1 + p["PPY2"] * dpi) * Fz0s))) * p["LKY"])
        Kya_p = Kya + EPS * _sign(Kya)
        Kyg0 = Fz * (p["PKY6"] + p["PKY7"] * dfz) * (1 + p["PPY5"] * dpi) * p["LKYC"]
        SVyg = Fz * (p["PVY3"] + p["PVY4"] * dfz) * gam_y * p["LKYC"] * p["LMUY"]
        SHy = (p["PHY1"] + p["PHY2"] * dfz) * p["LHY"] + (Kyg0 * gam_y - SVyg) / Kya_p
        SVy = Fz * (p["PVY1"] + p["PVY2"] * dfz) * p["LVY"] * p["LMUY"] + SVyg
        e5 = p["PEY5"] * gam_y ** 2
    else:
        Kya = (p["PKY1"] * Fz0s * math.sin(2 * math.atan(Fz / (p["PKY2"] * Fz0s)))
               * (1 - p["PKY3"] * abs(gam_y)) * p["LKY"])
        Kya_p = Kya + EPS * _sign(Kya)
        SHy = (p["PHY1"] + p["PHY2"] * dfz) * p["LHY"] + p["PHY3"] * gam_y
        SVy = Fz * ((p["PVY1"] + p["PVY2"] * dfz) * p["LVY"] + (p["PVY3"] + p["PVY4"] * dfz) * gam_y) * p["LMUY"]
        e5 = 0.0
    ay = a_star + SHy
    Ey = min((p["PEY1"] + p["PEY2"] * dfz) * (1 + e5 - (p["PEY3"] + p["PEY4"] * gam_y) * _sign(ay)) * p["LEY"], 1.0)
    By = Kya / (Cy * Dy + EPS * _sign(Cy * Dy))
    return dict(Fy0=magic(By, Cy, Dy, Ey, ay) + SVy, Kya=Kya, Kya_p=Kya_p, muy=muy, Dy=Dy,
                By=By, Cy=Cy, SHy=SHy, SVy=SVy)


def reference(p: dict, Fz: float, kappa: float, alpha: float, gamma: float, Vx: float) -> dict:
    """Steady-state combined-slip Magic Formula (use mode 4) for the coefficients ``p``."""
    v61 = p["mfVersion"] >= 61
    Fz_raw, gamma_raw = Fz, gamma
    Fz = _clip(Fz, 0.0, p["FZMAX"])
    k = _clip(kappa, p["KPUMIN"], p["KPUMAX"])
    a = _clip(alpha, p["ALPMIN"], p["ALPMAX"])
    g = _clip(gamma, p["CAMMIN"], p["CAMMAX"])
    R0, Fz0 = p["UNLOADED_RADIUS"], p["FNOMIN"]
    Fz0s = Fz0 * p["LFZO"]
    dfz = (Fz - Fz0s) / Fz0s
    use_p = v61 and p["NOMPRES"] > 0 and p["INFLPRES"] > 0
    dpi = (p["INFLPRES"] - p["NOMPRES"]) / p["NOMPRES"] if use_p else 0.0
    if v61:
        a_star, g_star = math.tan(a), math.sin(g)
        gx = gy = gz = g_star
    else:
        a_star, g_star = a, g
        gx, gy, gz = g * p["LGAX"], g * p["LGAY"], g * p["LGAZ"]
    out = {}

    # pure longitudinal slip
    Cx = p["PCX1"] * p["LCX"]
    mux = (p["PDX1"] + p["PDX2"] * dfz) * (1 + p["PPX3"] * dpi + p["PPX4"] * dpi ** 2) \
        * (1 - p["PDX3"] * gx ** 2) * p["LMUX"]
    Dx = mux * Fz
    Kxk = Fz * (p["PKX1"] + p["PKX2"] * dfz) * math.exp(p["PKX3"] * dfz) \
        * (1 + p["PPX1"] * dpi + p["PPX2"] * dpi ** 2) * p["LKX"]
    Bx = Kxk / (Cx * Dx + EPS * _sign(Cx * Dx))
    SHx = (p["PHX1"] + p["PHX2"] * dfz) * p["LHX"]
    SVx = Fz * (p["PVX1"] + p["PVX2"] * dfz) * p["LVX"] * p["LMUX"]
    kx = k + SHx
    Ex = min((p["PEX1"] + p["PEX2"] * dfz + p["PEX3"] * dfz ** 2) * (1 - p["PEX4"] * _sign(kx)) * p["LEX"], 1.0)
    Fx0 = magic(Bx, Cx, Dx, Ex, kx) + SVx

    lat = _pure_side_slip(p, Fz, Fz0s, dfz, dpi, a_star, gy, v61)
    Fy0, Kya, Kya_p, muy = lat["Fy0"], lat["Kya"], lat["Kya_p"], lat["muy"]

    # combined slip
    Bxa = (p["RBX1"] + (p["RBX3"] * g_star ** 2 if v61 else 0.0)) * math.cos(math.atan(p["RBX2"] * k)) * p["LXAL"]
    Exa = min(p["REX1"] + p["REX2"] * dfz, 1.0)
    Gxa = cos_weight(Bxa, p["RCX1"], Exa, a_star + p["RHX1"]) / cos_weight(Bxa, p["RCX1"], Exa, p["RHX1"])
    Fx = Gxa * Fx0
    Byk = (p["RBY1"] + (p["RBY4"] * g_star ** 2 if v61 else 0.0)) \
        * math.cos(math.atan(p["RBY2"] * (a_star - p["RBY3"]))) * p["LYKA"]
    Eyk = min(p["REY1"] + p["REY2"] * dfz, 1.0)
    SHyk = p["RHY1"] + p["RHY2"] * dfz
    Gyk = cos_weight(Byk, p["RCY1"], Eyk, k + SHyk) / cos_weight(Byk, p["RCY1"], Eyk, SHyk)
    DVyk = muy * Fz * (p["RVY1"] + p["RVY2"] * dfz + p["RVY3"] * g_star) * math.cos(math.atan(p["RVY4"] * a_star))
    SVyk = DVyk * math.sin(p["RVY5"] * math.atan(p["RVY6"] * k)) * p["LVYKA"]
    Fy = Gyk * Fy0 + SVyk

    # aligning moment
    SHt = p["QHZ1"] + p["QHZ2"] * dfz + (p["QHZ3"] + p["QHZ4"] * dfz) * gz
    at = a_star + SHt
    ar = a_star + lat["SHy"] + lat["SVy"] / Kya_p
    Bt = (p["QBZ1"] + p["QBZ2"] * dfz + p["QBZ3"] * dfz ** 2) * (1 + p["QBZ4"] * gz + p["QBZ5"] * abs(gz)) \
        * p["LKY"] / p["LMUY"]
    Ct = p["QCZ1"]
    Dt = Fz * (p["QDZ1"] + p["QDZ2"] * dfz) * (1 - p["PPZ1"] * dpi) * (1 + p["QDZ3"] * gz + p["QDZ4"] * gz ** 2) \
        * (R0 / Fz0s) * p["LTR"]
    Et = min((p["QEZ1"] + p["QEZ2"] * dfz + p["QEZ3"] * dfz ** 2)
             * (1 + (p["QEZ4"] + p["QEZ5"] * gz) * (2 / math.pi) * math.atan(Bt * Ct * at)), 1.0)
    Br = p["QBZ9"] * p["LKY"] / p["LMUY"] + p["QBZ10"] * lat["By"] * lat["Cy"]
    if v61:
        camber = ((p["QDZ8"] + p["QDZ9"] * dfz) * (1 + p["PPZ2"] * dpi)
                  + (p["QDZ10"] + p["QDZ11"] * dfz) * abs(gz)) * gz * p["LKZC"]
    else:
        camber = (p["QDZ8"] + p["QDZ9"] * dfz) * gz
    Dr = Fz * R0 * ((p["QDZ6"] + p["QDZ7"] * dfz) * p["LRES"] + camber) * p["LMUY"]
    extra = (Kxk / Kya_p) ** 2 * k ** 2
    at_eq = math.atan(math.sqrt(math.tan(at) ** 2 + extra)) * _sign(at)
    ar_eq = math.atan(math.sqrt(math.tan(ar) ** 2 + extra)) * _sign(ar)
    trail = Dt * math.cos(Ct * math.atan(Bt * at_eq - Et * (Bt * at_eq - math.atan(Bt * at_eq)))) * math.cos(a)
    Mzr = Dr * math.cos(math.atan(Br * ar_eq)) * math.cos(a)
    s = R0 * (p["SSZ1"] + p["SSZ2"] * Fy / Fz0s + (p["SSZ3"] + p["SSZ4"] * dfz) * g_star) * p["LS"]
    Fy_trail = Gyk * _pure_side_slip(p, Fz, Fz0s, dfz, dpi, a_star, 0.0, v61)["Fy0"] if v61 else Fy - SVyk
    Mz = -trail * Fy_trail + Mzr + s * Fx

    Mx = R0 * Fz * (p["QSX1"] * p["LVMX"] - p["QSX2"] * g_star + p["QSX3"] * Fy / Fz0s) * p["LMX"]
    out.update(Fx=Fx, Fy=Fy, Mz=Mz, My=rolling_resistance(p, Fz_raw, Fx, Vx, gamma_raw),
               Mx=Mx, Kxk=Kxk, Kya=Kya, Dx=Dx, SVx=SVx, Dy=lat["Dy"], SVy=lat["SVy"], SHy=lat["SHy"])
    return out


def rolling_resistance(p, Fz, Fx, Vx, gamma):
    """Rolling resistance moment My about the spin axis, negative rolling forwards, faded below VXLOW."""
    Fz0, V0 = p["FNOMIN"], p["LONGVL"]
    Fz = max(Fz, 0.0)
    g = _clip(gamma, p["CAMMIN"], p["CAMMAX"])
    poly = p["QSY1"] + p["QSY2"] * Fx / Fz0 + p["QSY3"] * abs(Vx / V0) + p["QSY4"] * (Vx / V0) ** 4
    if p["mfVersion"] >= 61:
        ratio = p["INFLPRES"] / p["NOMPRES"] if p["NOMPRES"] > 0 and p["INFLPRES"] > 0 else 1.0
        magnitude = (p["UNLOADED_RADIUS"] * Fz0 * p["LMY"]
                     * (poly + (p["QSY5"] + p["QSY6"] * Fz / Fz0) * g ** 2)
                     * (Fz / Fz0) ** p["QSY7"] * ratio ** p["QSY8"])
    else:
        magnitude = p["UNLOADED_RADIUS"] * Fz * p["LMY"] * poly
    return -magnitude * _clip(Vx / p["VXLOW"], -1.0, 1.0)


def rolling_radius(p, Fz):
    """Effective rolling radius Re(Fz) of PAC2002 (BREFF, DREFF, FREFF)."""
    rho_d = max(Fz, 0.0) / p["FNOMIN"]
    return p["UNLOADED_RADIUS"] - p["FNOMIN"] / (p["VERTICAL_STIFFNESS"] * p["LCZ"]) \
        * (p["DREFF"] * math.atan(p["BREFF"] * rho_d) + p["FREFF"] * rho_d)


def relaxation(p, Fz, gamma):
    """Relaxation lengths (sigmaKappa, sigmaAlpha); they vanish at zero load (no lower bound here)."""
    Fz = _clip(Fz, 0.0, p["FZMAX"])
    g = _clip(gamma, p["CAMMIN"], p["CAMMAX"])
    Fz0s = p["FNOMIN"] * p["LFZO"]
    dfz = (Fz - Fz0s) / Fz0s
    if p["mfVersion"] >= 61 and p["LONGITUDINAL_STIFFNESS"] > 0 and p["LATERAL_STIFFNESS"] > 0:
        dpi = (p["INFLPRES"] - p["NOMPRES"]) / p["NOMPRES"] if p["NOMPRES"] > 0 and p["INFLPRES"] > 0 else 0.0
        r = reference(p, Fz, 0.0, 0.0, g, 10.0)
        cx = p["LONGITUDINAL_STIFFNESS"] * (1 + p["PCFX1"] * dfz + p["PCFX2"] * dfz ** 2) * (1 + p["PCFX3"] * dpi)
        cy = p["LATERAL_STIFFNESS"] * (1 + p["PCFY1"] * dfz + p["PCFY2"] * dfz ** 2) * (1 + p["PCFY3"] * dpi)
        return abs(r["Kxk"] / cx), abs(r["Kya"] / cy)
    gy = math.sin(g) if p["mfVersion"] >= 61 else g * p["LGAY"]
    sk = Fz * (p["PTX1"] + p["PTX2"] * dfz) * math.exp(-p["PTX3"] * dfz) * p["UNLOADED_RADIUS"] / p["FNOMIN"] * p["LSGKP"]
    sa = (p["PTY1"] * math.sin(2 * math.atan(Fz / (p["PTY2"] * Fz0s))) * (1 - p["PKY3"] * abs(gy))
          * p["UNLOADED_RADIUS"] * p["LFZO"] * p["LSGAL"])
    return sk, sa
