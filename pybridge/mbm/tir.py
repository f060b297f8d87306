"""TeimOrbit tyre property files (.tir, PAC2002 / MF 5.2 / MF 6.1): reader and Modelica renderer.

``read_tir(path)`` parses a .tir file into a :class:`TirData` (sections of ``KEY = value`` pairs with
floats, ints and strings, plus any ``{...}`` tables), refusing files without ``[UNITS]``/``[MODEL]``
or in non-SI units. Errors are :class:`TirError` and name the file and line, e.g.
``UAZ.tir:57: expected KEY = value``.

``MF_PARAMETERS`` is the one list of the coefficients that ``VehicleRTM.Tires.MFCoefficients`` holds
(names exactly the .tir keys). From it, ``render_coefficients_record()`` writes the Modelica record
class and ``render_data_record(data, name)`` writes a data record (``extends MFCoefficients(...)``)
with the values of one file. Regenerate the shipped files with::

    python -m pybridge.mbm.tir coefficients modelica/VehicleRTM/Tires/MFCoefficients.mo
    python -m pybridge.mbm.tir record FILE.tir NAME OUT.mo [--origin HTML]
"""
from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path

from pybridge.mbm.teimorbit import TeimOrbitData, TeimOrbitError, parse_teimorbit

__all__ = [
    "MF_PARAMETERS",
    "MFParameter",
    "TirData",
    "TirError",
    "mf_version",
    "parse_tir",
    "read_tir",
    "render_coefficients_record",
    "render_data_record",
]


class TirError(TeimOrbitError):
    """A .tir file that cannot be read; the message names the file and, where known, the line."""


# --------------------------------------------------------------------------------------------
# The coefficients of MFCoefficients
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MFParameter:
    """One coefficient of the record: .tir key, section, unit, default, use and description.

    ``use`` is ``"all"`` (both versions), ``"52"`` (PAC2002/MF 5.2 only), ``"61"`` (MF 6.1 only) or
    ``"stored"`` (kept for completeness, not used by the equations).
    """

    key: str
    section: str
    unit: str
    default: float
    use: str
    description: str


# key | unit | default | use | description, grouped by .tir section
_SPEC = """
[MODEL]
LONGVL | m/s | 16.7 | all | Reference (measurement) speed V0
VXLOW | m/s | 1 | all | Low-speed threshold: the rolling resistance moment fades to zero below it
[DIMENSION]
UNLOADED_RADIUS | m | 0.3 | all | Free tyre radius R0
WIDTH | m | 0.205 | stored | Nominal section width
ASPECT_RATIO | 1 | 0.6 | stored | Nominal aspect ratio
RIM_RADIUS | m | 0.19 | stored | Nominal rim radius
RIM_WIDTH | m | 0.15 | stored | Rim width
[OPERATING_CONDITIONS]
INFLPRES | Pa | 0 | 61 | Inflation pressure (0 disables the pressure terms)
NOMPRES | Pa | 0 | 61 | Nominal inflation pressure (0 disables the pressure terms)
[VERTICAL]
VERTICAL_STIFFNESS | N/m | 200000 | all | Vertical stiffness Cz
VERTICAL_DAMPING | N.s/m | 500 | all | Vertical damping
BREFF | 1 | 8.4 | all | Effective rolling radius: low-load stiffness factor
DREFF | 1 | 0.27 | all | Effective rolling radius: peak value
FREFF | 1 | 0.07 | all | Effective rolling radius: high-load stiffness factor
FNOMIN | N | 4000 | all | Nominal wheel load Fz0
[STRUCTURAL]
LONGITUDINAL_STIFFNESS | N/m | 0 | 61 | Longitudinal carcass stiffness (0: relaxation length from PTX)
LATERAL_STIFFNESS | N/m | 0 | 61 | Lateral carcass stiffness (0: relaxation length from PTY)
PCFX1 | 1 | 0 | 61 | Variation of longitudinal carcass stiffness with load
PCFX2 | 1 | 0 | 61 | Variation of longitudinal carcass stiffness with load squared
PCFX3 | 1 | 0 | 61 | Variation of longitudinal carcass stiffness with pressure
PCFY1 | 1 | 0 | 61 | Variation of lateral carcass stiffness with load
PCFY2 | 1 | 0 | 61 | Variation of lateral carcass stiffness with load squared
PCFY3 | 1 | 0 | 61 | Variation of lateral carcass stiffness with pressure
[LONG_SLIP_RANGE]
KPUMIN | 1 | -1.5 | all | Minimum valid longitudinal slip
KPUMAX | 1 | 1.5 | all | Maximum valid longitudinal slip
[SLIP_ANGLE_RANGE]
ALPMIN | rad | -1.5708 | all | Minimum valid slip angle
ALPMAX | rad | 1.5708 | all | Maximum valid slip angle
[INCLINATION_ANGLE_RANGE]
CAMMIN | rad | -0.2618 | all | Minimum valid inclination angle
CAMMAX | rad | 0.2618 | all | Maximum valid inclination angle
[VERTICAL_FORCE_RANGE]
FZMIN | N | 100 | stored | Minimum allowed wheel load (informative: lower loads are evaluated as they are)
FZMAX | N | 20000 | all | Maximum allowed wheel load (the Magic Formula load is clamped to it)
[SCALING_COEFFICIENTS]
LFZO | 1 | 1 | all | Scale factor of nominal (rated) load
LCX | 1 | 1 | all | Scale factor of Fx shape factor
LMUX | 1 | 1 | all | Scale factor of Fx peak friction coefficient
LEX | 1 | 1 | all | Scale factor of Fx curvature factor
LKX | 1 | 1 | all | Scale factor of Fx slip stiffness
LHX | 1 | 1 | all | Scale factor of Fx horizontal shift
LVX | 1 | 1 | all | Scale factor of Fx vertical shift
LGAX | 1 | 1 | 52 | Scale factor of inclination for Fx
LCY | 1 | 1 | all | Scale factor of Fy shape factor
LMUY | 1 | 1 | all | Scale factor of Fy peak friction coefficient
LEY | 1 | 1 | all | Scale factor of Fy curvature factor
LKY | 1 | 1 | all | Scale factor of Fy cornering stiffness
LHY | 1 | 1 | all | Scale factor of Fy horizontal shift
LVY | 1 | 1 | all | Scale factor of Fy vertical shift
LGAY | 1 | 1 | 52 | Scale factor of inclination for Fy
LTR | 1 | 1 | all | Scale factor of peak of pneumatic trail
LRES | 1 | 1 | all | Scale factor of offset of residual torque
LGAZ | 1 | 1 | 52 | Scale factor of inclination for Mz
LXAL | 1 | 1 | all | Scale factor of alpha influence on Fx
LYKA | 1 | 1 | all | Scale factor of kappa influence on Fy
LVYKA | 1 | 1 | all | Scale factor of kappa induced Fy
LS | 1 | 1 | all | Scale factor of moment arm of Fx
LSGKP | 1 | 1 | all | Scale factor of relaxation length of Fx
LSGAL | 1 | 1 | all | Scale factor of relaxation length of Fy
LGYR | 1 | 1 | stored | Scale factor of gyroscopic torque
LMX | 1 | 1 | all | Scale factor of overturning couple
LVMX | 1 | 1 | all | Scale factor of Mx vertical shift
LMY | 1 | 1 | all | Scale factor of rolling resistance torque
LCZ | 1 | 1 | all | Scale factor of vertical stiffness
LKYC | 1 | 1 | 61 | Scale factor of camber force stiffness
LKZC | 1 | 1 | 61 | Scale factor of camber torque stiffness
[LONGITUDINAL_COEFFICIENTS]
PCX1 | 1 | 1.65 | all | Shape factor Cfx for longitudinal force
PDX1 | 1 | 1 | all | Longitudinal friction Mux at Fznom
PDX2 | 1 | 0 | all | Variation of friction Mux with load
PDX3 | 1 | 0 | all | Variation of friction Mux with inclination squared
PEX1 | 1 | 0 | all | Longitudinal curvature Efx at Fznom
PEX2 | 1 | 0 | all | Variation of curvature Efx with load
PEX3 | 1 | 0 | all | Variation of curvature Efx with load squared
PEX4 | 1 | 0 | all | Factor in curvature Efx while driving
PKX1 | 1 | 20 | all | Longitudinal slip stiffness Kfx/Fz at Fznom
PKX2 | 1 | 0 | all | Variation of slip stiffness Kfx/Fz with load
PKX3 | 1 | 0 | all | Exponent in slip stiffness Kfx/Fz with load
PHX1 | 1 | 0 | all | Horizontal shift Shx at Fznom
PHX2 | 1 | 0 | all | Variation of shift Shx with load
PVX1 | 1 | 0 | all | Vertical shift Svx/Fz at Fznom
PVX2 | 1 | 0 | all | Variation of shift Svx/Fz with load
PPX1 | 1 | 0 | 61 | Variation of slip stiffness Kfx/Fz with pressure
PPX2 | 1 | 0 | 61 | Variation of slip stiffness Kfx/Fz with pressure squared
PPX3 | 1 | 0 | 61 | Variation of friction Mux with pressure
PPX4 | 1 | 0 | 61 | Variation of friction Mux with pressure squared
RBX1 | 1 | 10 | all | Slope factor for combined slip Fx reduction
RBX2 | 1 | 0 | all | Variation of slope Fx reduction with kappa
RBX3 | 1 | 0 | 61 | Influence of inclination on slope of Fx reduction
RCX1 | 1 | 1 | all | Shape factor for combined slip Fx reduction
REX1 | 1 | 0 | all | Curvature factor of combined Fx
REX2 | 1 | 0 | all | Curvature factor of combined Fx with load
RHX1 | rad | 0 | all | Shift factor for combined slip Fx reduction
PTX1 | 1 | 2 | all | Relaxation length SigKap0/Fz at Fznom
PTX2 | 1 | 0 | all | Variation of SigKap0/Fz with load
PTX3 | 1 | 0 | all | Variation of SigKap0/Fz with exponent of load
[OVERTURNING_COEFFICIENTS]
QSX1 | 1 | 0 | all | Lateral force induced overturning moment
QSX2 | 1 | 0 | all | Inclination induced overturning couple
QSX3 | 1 | 0 | all | Fy induced overturning couple
[LATERAL_COEFFICIENTS]
PCY1 | 1 | 1.3 | all | Shape factor Cfy for lateral forces
PDY1 | 1 | 1 | all | Lateral friction Muy
PDY2 | 1 | 0 | all | Variation of friction Muy with load
PDY3 | 1 | 0 | all | Variation of friction Muy with squared inclination
PEY1 | 1 | 0 | all | Lateral curvature Efy at Fznom
PEY2 | 1 | 0 | all | Variation of curvature Efy with load
PEY3 | 1 | 0 | all | Zero order inclination dependency of curvature Efy
PEY4 | 1 | 0 | all | Variation of curvature Efy with inclination
PEY5 | 1 | 0 | 61 | Variation of curvature Efy with inclination squared
PKY1 | 1 | -20 | all | Maximum value of stiffness Kfy/Fznom
PKY2 | 1 | 2 | all | Load at which Kfy reaches maximum value
PKY3 | 1 | 0 | all | Variation of Kfy/Fznom with inclination
PKY4 | 1 | 2 | 61 | Curvature of stiffness Kfy
PKY5 | 1 | 0 | 61 | Peak stiffness variation with inclination squared
PKY6 | 1 | 0 | 61 | Fy inclination stiffness factor
PKY7 | 1 | 0 | 61 | Variation of Fy inclination stiffness with load
PHY1 | rad | 0 | all | Horizontal shift Shy at Fznom
PHY2 | rad | 0 | all | Variation of shift Shy with load
PHY3 | 1 | 0 | 52 | Variation of shift Shy with inclination
PVY1 | 1 | 0 | all | Vertical shift in Svy/Fz at Fznom
PVY2 | 1 | 0 | all | Variation of shift Svy/Fz with load
PVY3 | 1 | 0 | all | Variation of shift Svy/Fz with inclination
PVY4 | 1 | 0 | all | Variation of shift Svy/Fz with inclination and load
PPY1 | 1 | 0 | 61 | Pressure effect on cornering stiffness magnitude
PPY2 | 1 | 0 | 61 | Pressure effect on location of cornering stiffness peak
PPY3 | 1 | 0 | 61 | Linear pressure effect on lateral friction
PPY4 | 1 | 0 | 61 | Quadratic pressure effect on lateral friction
PPY5 | 1 | 0 | 61 | Influence of pressure on inclination stiffness
RBY1 | 1 | 10 | all | Slope factor for combined Fy reduction
RBY2 | 1 | 0 | all | Variation of slope Fy reduction with alpha
RBY3 | rad | 0 | all | Shift term for alpha in slope Fy reduction
RBY4 | 1 | 0 | 61 | Influence of inclination on slope of Fy reduction
RCY1 | 1 | 1 | all | Shape factor for combined Fy reduction
REY1 | 1 | 0 | all | Curvature factor of combined Fy
REY2 | 1 | 0 | all | Curvature factor of combined Fy with load
RHY1 | 1 | 0 | all | Shift factor for combined Fy reduction
RHY2 | 1 | 0 | all | Shift factor for combined Fy reduction with load
RVY1 | 1 | 0 | all | Kappa induced side force Svyk/Muy*Fz at Fznom
RVY2 | 1 | 0 | all | Variation of Svyk/Muy*Fz with load
RVY3 | 1 | 0 | all | Variation of Svyk/Muy*Fz with inclination
RVY4 | 1 | 0 | all | Variation of Svyk/Muy*Fz with alpha
RVY5 | 1 | 0 | all | Variation of Svyk/Muy*Fz with kappa
RVY6 | 1 | 0 | all | Variation of Svyk/Muy*Fz with atan(kappa)
PTY1 | 1 | 2 | all | Peak value of relaxation length SigAlp0/R0
PTY2 | 1 | 2 | all | Value of Fz/Fznom where SigAlp0 is extreme
[ROLLING_COEFFICIENTS]
QSY1 | 1 | 0.01 | all | Rolling resistance torque coefficient
QSY2 | 1 | 0 | all | Rolling resistance torque depending on Fx
QSY3 | 1 | 0 | all | Rolling resistance torque depending on speed
QSY4 | 1 | 0 | all | Rolling resistance torque depending on speed to the 4th power
QSY5 | 1 | 0 | 61 | Rolling resistance torque depending on inclination squared
QSY6 | 1 | 0 | 61 | Rolling resistance torque depending on load and inclination squared
QSY7 | 1 | 1 | 61 | Rolling resistance torque coefficient load dependency (exponent)
QSY8 | 1 | 0 | 61 | Rolling resistance torque coefficient pressure dependency (exponent)
[ALIGNING_COEFFICIENTS]
QBZ1 | 1 | 10 | all | Trail slope factor for trail Bpt at Fznom
QBZ2 | 1 | 0 | all | Variation of slope Bpt with load
QBZ3 | 1 | 0 | all | Variation of slope Bpt with load squared
QBZ4 | 1 | 0 | all | Variation of slope Bpt with inclination
QBZ5 | 1 | 0 | all | Variation of slope Bpt with absolute inclination
QBZ9 | 1 | 0 | all | Slope factor Br of residual torque Mzr
QBZ10 | 1 | 0 | all | Slope factor Br of residual torque Mzr (times By*Cy)
QCZ1 | 1 | 1.1 | all | Shape factor Cpt for pneumatic trail
QDZ1 | 1 | 0.1 | all | Peak trail Dpt = Dpt*(Fz/Fznom*R0)
QDZ2 | 1 | 0 | all | Variation of peak Dpt with load
QDZ3 | 1 | 0 | all | Variation of peak Dpt with inclination
QDZ4 | 1 | 0 | all | Variation of peak Dpt with inclination squared
QDZ6 | 1 | 0 | all | Peak residual torque Dmr = Dmr/(Fz*R0)
QDZ7 | 1 | 0 | all | Variation of peak factor Dmr with load
QDZ8 | 1 | 0 | all | Variation of peak factor Dmr with inclination
QDZ9 | 1 | 0 | all | Variation of peak factor Dmr with inclination and load
QDZ10 | 1 | 0 | 61 | Variation of peak factor Dmr with inclination squared
QDZ11 | 1 | 0 | 61 | Variation of peak factor Dmr with inclination squared and load
QEZ1 | 1 | 0 | all | Trail curvature Ept at Fznom
QEZ2 | 1 | 0 | all | Variation of curvature Ept with load
QEZ3 | 1 | 0 | all | Variation of curvature Ept with load squared
QEZ4 | 1 | 0 | all | Variation of curvature Ept with sign of Alpha-t
QEZ5 | 1 | 0 | all | Variation of Ept with inclination and sign Alpha-t
QHZ1 | rad | 0 | all | Trail horizontal shift Sht at Fznom
QHZ2 | rad | 0 | all | Variation of shift Sht with load
QHZ3 | 1 | 0 | all | Variation of shift Sht with inclination
QHZ4 | 1 | 0 | all | Variation of shift Sht with inclination and load
SSZ1 | 1 | 0 | all | Nominal value of s/R0: effect of Fx on Mz
SSZ2 | 1 | 0 | all | Variation of distance s/R0 with Fy/Fznom
SSZ3 | 1 | 0 | all | Variation of distance s/R0 with inclination
SSZ4 | 1 | 0 | all | Variation of distance s/R0 with load and inclination
PPZ1 | 1 | 0 | 61 | Linear pressure effect on pneumatic trail
PPZ2 | 1 | 0 | 61 | Influence of pressure on residual aligning torque
QTZ1 | 1 | 0 | stored | Gyroscopic torque constant
MBELT | kg | 0 | stored | Belt mass of the wheel
"""


def _parse_spec(spec: str) -> tuple[MFParameter, ...]:
    params, section = [], ""
    for line in spec.strip().splitlines():
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, unit, default, use, description = (part.strip() for part in line.split("|"))
        params.append(MFParameter(key, section, unit, float(default), use, description))
    return tuple(params)


MF_PARAMETERS: tuple[MFParameter, ...] = _parse_spec(_SPEC)
_BY_KEY = {p.key: p for p in MF_PARAMETERS}

# .tir keys that are read but have no place in the record (reported in the data record's documentation)
_KNOWN_UNUSED = {
    "FILE_TYPE", "FILE_VERSION", "FILE_FORMAT", "PROPERTY_FILE_FORMAT", "USE_MODE", "FITTYP",
    "TYRESIDE", "MFSAFE1", "MFSAFE2", "MFSAFE3", "CONTACT_MODEL",
}


# --------------------------------------------------------------------------------------------
# Reader
# --------------------------------------------------------------------------------------------

@dataclass
class TirData(TeimOrbitData):
    """Contents of a .tir file: ``sections[SECTION][KEY] = value`` (keys and sections upper case).

    The generic TeimOrbit parts (``flat``, ``[]``, ``in``, ``get``, tables) live in
    :class:`pybridge.mbm.teimorbit.TeimOrbitData`; errors are :class:`TirError`.
    """

    error = TirError

    @property
    def mf_version(self) -> int:
        """52 (PAC2002 / MF 5.2) or 61 (MF 6.1), see :func:`mf_version`."""
        return mf_version(self)


# accepted spellings of the SI units, per [UNITS] key
_SI_UNITS = {
    "LENGTH": {"meter", "metre", "m", "meters", "metres"},
    "FORCE": {"newton", "n", "newtons"},
    "ANGLE": {"radian", "radians", "rad"},
    "MASS": {"kg", "kilogram", "kilograms"},
    "TIME": {"second", "seconds", "s", "sec"},
    "PRESSURE": {"pascal", "pa", "pascals", "n/m2", "n/m^2"},
}
_REQUIRED_UNITS = ("LENGTH", "FORCE", "ANGLE", "MASS", "TIME")


def parse_tir(text: str, source: str = "<tir>") -> TirData:
    """Parse the text of a .tir file; ``source`` names the file in error messages."""
    data = parse_teimorbit(text, source, error=TirError, data=TirData(source))
    assert isinstance(data, TirData)
    _check(data)
    return data


def _check(data: TirData) -> None:
    for needed in ("UNITS", "MODEL", "DIMENSION"):
        if needed not in data.sections:
            raise TirError(f"{data.source}: missing [{needed}] section "
                           f"(a .tir file must declare its units, model and dimensions)")
    if "UNLOADED_RADIUS" not in data.sections["DIMENSION"]:
        raise TirError(f"{data.source}: [DIMENSION] has no UNLOADED_RADIUS (expected the free tyre radius in m)")
    units = data.sections["UNITS"]
    for key in _REQUIRED_UNITS:
        if key not in units:
            raise TirError(f"{data.source}: [UNITS] has no {key} (expected {key} = "
                           f"'{sorted(_SI_UNITS[key])[0]}')")
    for key, value in units.items():
        allowed = _SI_UNITS.get(key)
        if allowed is None:
            continue
        if not isinstance(value, str) or value.strip().lower() not in allowed:
            line = data.lines[("UNITS", key)]
            raise TirError(f"{data.source}:{line}: non-SI unit {key} = {value!r}; only SI .tir files "
                           f"are supported (expected one of {sorted(allowed)})")


def read_tir(path: str | Path) -> TirData:
    """Read a .tir file (see :func:`parse_tir`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise TirError(f"{path}: cannot read the file ({exc.strerror})") from exc
    return parse_tir(text, path.name)


def mf_version(data: TirData) -> int:
    """Magic Formula version of the file: 61 for FITTYP 61/62 or an MF 6.x format, else 52."""
    fittyp = data.get("FITTYP")
    if isinstance(fittyp, (int, float)):
        if int(fittyp) in (61, 62):
            return 61
        if int(fittyp) in (5, 6, 21, 52):
            return 52
        line = next(n for (s, k), n in data.lines.items() if k == "FITTYP")
        raise TirError(f"{data.source}:{line}: unsupported FITTYP = {fittyp} "
                       f"(expected 6 or 21 for MF 5.2, 61 or 62 for MF 6.1)")
    fmt = str(data.get("PROPERTY_FILE_FORMAT", "PAC2002")).upper()
    return 61 if fmt.startswith(("MF_6", "MF6", "PAC2012")) else 52


# --------------------------------------------------------------------------------------------
# Modelica renderers
# --------------------------------------------------------------------------------------------

def _number(value: float) -> str:
    """A Modelica real literal that reads back to ``value`` exactly."""
    value = float(value)
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


_USE_NOTE = {"52": " [MF 5.2 only]", "61": " [MF 6.1 only]", "stored": " [stored, not used]"}

_COEFF_DOC = """<html>
<p>All coefficients of a TeimOrbit tyre property file (.tir) of the PAC2002 / MF 5.2 Magic Formula,
plus the MF 6.1 coefficients where MF 6.1 differs. The parameter names are exactly the .tir keys;
units are SI, as the .tir reader (<code>pybridge/mbm/tir.py</code>) requires.</p>
<p><code>mfVersion</code> selects the equations: <b>52</b> = PAC2002 / MF 5.2 (the LGAX, LGAY, LGAZ
inclination scaling and PHY3 are used, the MF 6.1 coefficients are ignored), <b>61</b> = MF 6.1
(inclination enters as sin(gamma), slip angle as tan(alpha), the cornering stiffness has PKY4 and
PKY5, the camber stiffness PKY6 and PKY7 replaces PHY3, and the inflation pressure terms PPX*, PPY*,
PPZ*, QSY8, PCF* are active when both INFLPRES and NOMPRES are positive; pressure 0 disables them).
The equations are listed in
<a href=\\"modelica://VehicleRTM.Tires.combinedSlip\\">combinedSlip</a>.</p>
<p>Descriptions marked [stored, not used] are kept so that a record holds the whole file but do
not enter the equations (section geometry, FZMIN, gyroscopic torque QTZ1/LGYR/MBELT).
Defaults are a generic tyre: shifts 0, scaling factors 1; a data record sets every value of its
file (see <code>VehicleRTM.Data.Tires</code>).</p>
<p>This file is generated by <code>python -m pybridge.mbm.tir coefficients</code> from the
parameter list <code>MF_PARAMETERS</code>; edit that list, not this file.</p>
</html>"""


def render_coefficients_record() -> str:
    """The Modelica source of ``VehicleRTM.Tires.MFCoefficients``."""
    out = [
        "within VehicleRTM.Tires;",
        'record MFCoefficients "Magic Formula coefficients of a PAC2002 / MF 5.2 (or MF 6.1) .tir file, names as the .tir keys"',
        '  parameter Integer mfVersion(min = 52, max = 61) = 52 '
        '"Magic Formula version: 52 = PAC2002/MF 5.2, 61 = MF 6.1";',
    ]
    section = None
    for p in MF_PARAMETERS:
        if p.section != section:
            section = p.section
            out.append(f"  // [{section}]")
        desc = p.description + _USE_NOTE.get(p.use, "")
        out.append(f'  parameter Real {p.key}(unit = "{p.unit}") = {_number(p.default)} "{desc}";')
    out.append(f'  annotation (Documentation(info = "{_COEFF_DOC}"));')
    out.append("end MFCoefficients;")
    return "\n".join(out) + "\n"


def render_data_record(data: TirData, name: str, *, within: str = "VehicleRTM.Data.Tires",
                       description: str | None = None, origin_html: str = "") -> str:
    """Modelica source of a record ``name`` extending ``VehicleRTM.Tires.MFCoefficients``.

    Every key of the file that the record knows is set (in record order); the other keys are
    listed in the documentation. ``origin_html`` (e.g. source and licence) opens the documentation.
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not a Modelica class name: {name!r}")
    values = data.flat()
    mods = [f"mfVersion = {data.mf_version}"]
    for p in MF_PARAMETERS:
        if p.key in values:
            value = values[p.key]
            if isinstance(value, str):
                line = next(n for (s, k), n in data.lines.items() if k == p.key)
                raise TirError(f"{data.source}:{line}: expected a number for {p.key}, got {value!r}")
            mods.append(f"{p.key} = {_number(value)}")
    unused = sorted(k for k in values if k not in _BY_KEY and k not in {"LENGTH", "FORCE", "ANGLE", "MASS", "TIME", "PRESSURE"})
    missing = [p.key for p in MF_PARAMETERS if p.key not in values and p.use in ("all", str(data.mf_version))]
    model_keys = {k: values[k] for k in ("PROPERTY_FILE_FORMAT", "FITTYP", "USE_MODE", "TYRESIDE") if k in values}
    title = description or f"Tyre coefficients read from {data.source}"
    doc = ["<html>"]
    if origin_html:
        doc.append(f"<p>{origin_html}</p>")
    doc.append(f"<p>Generated by <code>python -m pybridge.mbm.tir record</code> from "
               f"<code>{_html(data.source)}</code> (Magic Formula version {data.mf_version}).</p>")
    if model_keys:
        items = ", ".join(f"{k} = {_html(str(v))}" for k, v in model_keys.items())
        doc.append(f"<p>[MODEL] of the file: {items}. The library always evaluates combined slip "
                   f"(use mode 4) with first-order relaxation in <code>Tires.Tire</code>; the tyre "
                   f"is not mirrored for the other vehicle side.</p>")
    if unused:
        doc.append(f"<p>Keys of the file not used by the record: {', '.join(unused)}.</p>")
    if missing:
        doc.append(f"<p>Keys absent from the file (record defaults apply): {', '.join(missing)}.</p>")
    doc.append("</html>")
    body = ",\n    ".join(mods)
    info = "\n".join(doc).replace('"', '\\"')
    return (f"within {within};\n"
            f'record {name} "{title}"\n'
            f"  extends VehicleRTM.Tires.MFCoefficients(\n    {body});\n"
            f'  annotation (Documentation(info = "{info}"));\n'
            f"end {name};\n")


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pybridge.mbm.tir", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    coeff = sub.add_parser("coefficients", help="write the MFCoefficients record class")
    coeff.add_argument("out", type=Path)
    rec = sub.add_parser("record", help="write a data record from a .tir file")
    rec.add_argument("tir", type=Path)
    rec.add_argument("name")
    rec.add_argument("out", type=Path)
    rec.add_argument("--description")
    rec.add_argument("--origin", default="", help="HTML put first in the documentation (source, licence)")
    args = parser.parse_args(argv)
    if args.command == "coefficients":
        args.out.write_text(render_coefficients_record())
    else:
        text = render_data_record(read_tir(args.tir), args.name, description=args.description,
                                  origin_html=args.origin)
        args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
