"""The direct conversion of a multibody (MBM) data set into an RTM parameter set: the rules.

::

    from pybridge.convert import convert_mbm
    params = convert_mbm("scenarios/mbm/lcv35/mbm")      # ParameterSet for VehicleRTM.Vehicles.RTM14DoF
    params.write("out/params/lcv35")

``convert_mbm`` reads the data set with :func:`pybridge.mbm.dataset.read_mbm` and turns it into the
RTM's parameters (LCV paper, Eq. 1-7); the rule of
every value is in ``params.origins`` as ``"file: rule"``. In short:

- Variant (:mod:`pybridge.convert_variant`): the front record (QuadLeaf, QuadTor), the rear record
  (single-, multi-leaf solid axle) and the tyres per rear wheel station come from mbm_summary.yaml's
  ``suspension`` (else the data set's files); the model is the RTM14DoF class with those records
  (``metadata["variant"]`` says which and why). The records share parameters and grids, so the rules
  below are the same for all: a torsion-bar front with a separate anti-roll bar is carried by the
  parallel and opposite stiffness maps like the transverse leaf (anti-roll = opposite - parallel).
- Grids: a table keeps the size of the FMU's array (the FMU is built, or given, to learn it). K&C
  maps: the points spread evenly over the sweep's range. Property-file curves and the engine map keep
  their breakpoints: spare slots get the midpoints of the widest intervals (exact for linear
  interpolation), too few slots drop the breakpoints whose loss changes the curve least.
- Kinematics (Eq. 1-2), left wheel: u1 = own travel (independent) or zp (solid axle) from the
  parallel-travel test, u2 = rack travel (rack test) or zo (opposite test); the K&C data hold no
  combined sweeps, so map(u1, u2) = f1(u1) + f2(u2) - f2(0). Signs as MapAxle reads them: toe =
  -toe-in (ISO rz of the left wheel), camber + top outward, caster + top rearward; tx, ty = the
  contact patch's displacement (x forward, y outward): MapAxle turns the tyre's contact forces into
  forces on the travels through d(tx, ty)/d(travel) (virtual work), which is the contact patch's
  path (roll centre height = track/2 * dy/dz).
- Compliance: own = loaded wheel, opposite = the other one, each response in the responding
  wheel's mirror frame (toe = -toe-in, y outward) against the load in that frame (Fy, Mz times
  +1 left / -1 right), minus the unloaded response; left- and right-loaded tests averaged.
- Stiffness: the left wheel load of the parallel and opposite tests minus the unsprung weight
  (Eq. 5-6) and minus the stop forces that the RTM adds itself (Eq. 3, converted stops, K&C
  lengths); MapAxle forms anti-roll = opposite - parallel (negative = the solid axle's internal force).
- Dampers (Eq. 4) and stops (Eq. 3) from the property files; a stop's contact length is its K&C
  design length -/+ CLEARANCE (bump/rebound). Steering: rack_gain of the summary.
- Masses (Eq. 5-7): sprung bodies, unsprung bodies by name (wheel/tyre/rim, brake/disc, hub/spindle
  rotate; differential/shaft = axle driveline; the rest upright or fixed), linkage bodies split by
  the factors K (nominal 0.5); per corner = axle sum / 2. Inertia of the sprung part (sprung bodies
  + (1-K) of the linkage) about its own centre of gravity (parallel-axis theorem). The RTM's design
  position has the wheel centres at the loaded tyre radius, so the CoG height is lifted by the
  same amount as the wheel centres.

- Gearbox: 1 to 12 gears. The FMU holds 12 gear slots (driveline.gearRatios[1..12], the shift speeds
  [1..11]); driveline.nGears says how many are in use, the slots above repeat the top gear and are
  never engaged (VehicleRTM.Powertrain.Driveline).
- Without driveline.yaml the set converts for lateral manoeuvres (speed held by the driver model):
  engine, gearbox and brakes keep the FMU's defaults, ``metadata["lateral_only"]`` says why, and a
  manoeuvre that drives throttle and brake itself (acceleration, braking) is refused
  (``pybridge.simulate.manoeuvres.run_scenario``).
- Roll centre height per axle (reported, not an FMU parameter: the RTM's contact-patch maps carry
  it): from the opposite-travel test, h_RC = y_cp * dy_cp/dz at design, y_cp the contact patch's
  lateral position (outward) and z the own wheel travel (a wheel rotating about the roll centre at
  height h moves its contact patch outward by h/y_cp per unit of travel); dy_cp/dz from a quadratic
  fit over |z| <= 25 mm, mean of both wheels. In ``metadata["derived"]`` with value, unit and origin.

Uncertain (identified; bounds +-20 % of the nominal, a zero nominal the absolute range of
``pybridge.parameters.ZERO_NOMINAL_HALF_WIDTH``), each with its reason in the set: what the MBM data
do not state, as in the LCV paper: the split factors (chassis.frontLinkSplit, rearLinkSplit;
drivelineSplit only with an axle driveline), the CoG height (the conversion estimates the lift to
the RTM's loaded tyre radius, and the split moves the sprung CoG), and the engine torque map gain
(driveline.torqueGain, only with driveline data). Masses, inertias and geometry that the mass table
and the K&C state exactly are certain; ``extra_uncertain`` (``pybridge convert --uncertain``) adds
any scalar on request. The paper's spring, anti-roll and damper amplification factors are not in
the FMU (its suspension is tables only), so they are not marked.

Errors: missing files and inconsistent data raise :class:`ConversionError` naming the file, the
place and what is expected; the readers' own errors (MBMDataError, PropertyFileError, TirError)
pass through as they already do that.
"""
from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from pybridge.convert_friction import friction_entry
from pybridge.convert_variant import Variant, choose_variant
from pybridge.mbm.dataset import AXLES, LOADS, SIDES, ConversionError, MBMData, along, read_mbm
from pybridge.mbm.kc_results import KCResults
from pybridge.mbm.mass_table import combined_properties
from pybridge.mbm.tir import MF_PARAMETERS
from pybridge.parameters import ParameterSet
from pybridge.plausibility import check_parameter_set

__all__ = ["DEFAULT_MODEL", "ConversionError", "convert_mbm", "roll_centre_height"]

DEFAULT_MODEL = "VehicleRTM.Vehicles.RTM14DoF"
NOMINAL_SPLIT = 0.5           # K of Eq. 5-7 before identification: half of a linkage body unsprung
UNCERTAIN_FRACTION = 0.2      # LCV paper: bounds +-20 % of the nominal values
SPLIT_REASON = ("LCV paper Eq. 5-7: the share of the {what} that moves with the wheel is not in the mass table; "
                f"nominal {NOMINAL_SPLIT} is an estimate")
UNCERTAIN = (  # scalar -> why it is identified (the default uncertain set)
    ("chassis.frontLinkSplit", SPLIT_REASON.format(what="front linkage bodies")),
    ("chassis.rearLinkSplit", SPLIT_REASON.format(what="rear linkage bodies")),
    ("chassis.drivelineSplit", SPLIT_REASON.format(what="axle driveline")),
    ("chassis.cogHeight", "estimated: the lift of the wheel centres to the RTM's loaded tyre radius (.tir vertical "
                          "stiffness) and the split factors move the sprung part's centre of gravity"),
    ("driveline.torqueGain", "LCV paper: engine torque map amplification gain, nominal 1 (the map's conditions "
                             "in the MBM are not stated)"),
)
RC_FIT_HALF_RANGE = 0.025     # m of wheel travel around design for the roll-centre slope
FUEL_CUT_BAND = 0.02          # engine map: fuel cut-off ramp above max_speed, fraction of max_speed
ROTATING = (("BrakeDisk", ("brake", "disc", "disk")), ("Spindle", ("hub", "spindle")),
            ("Wheel", ("wheel", "tyre", "tire", "rim")))
DRIVELINE_WORDS = ("differential", "shaft")
# RTM map name, K&C channel(s) (first present wins), sign, displacement from design?, required?
KINEMATIC_OUTPUTS = (
    ("tx", ("contact_patch_x", "wheel_centre_x"), 1, True, False),
    ("ty", ("contact_patch_y", "wheel_centre_y"), 1, True, False),
    ("toe", ("toe",), -1, False, True),
    ("camber", ("camber",), 1, False, True),
    ("caster", ("caster",), 1, False, False),
    ("springLength", ("spring_length",), 1, False, False),
    ("damperLength", ("damper_length",), 1, False, True),
    ("bumpStopLength", ("bump_stop_length",), 1, False, True),
    ("reboundStopLength", ("rebound_stop_length",), 1, False, True),
    ("antiRollBarLength", ("anti_roll_bar_length",), 1, False, False),
)
COMPLIANCE_OUTPUTS = (("tx", ("contact_patch_x", "wheel_centre_x"), 1), ("ty", ("contact_patch_y", "wheel_centre_y"), 1),
                      ("toe", ("toe",), -1), ("camber", ("camber",), 1))


# ---------------------------------------------------------------------------------------------
# FMU layout and the set being built
# ---------------------------------------------------------------------------------------------

def _fmu_layout(model: str, fmu: str | Path | None) -> tuple[dict, dict]:
    """(scalar parameters {name: Variable}, arrays {name: shape}) of the model's FMU."""
    from fmu_build import BuildError, build_fmu
    from fmu_build.inspect import read_fmu

    try:
        if fmu is None:
            with tempfile.TemporaryDirectory(prefix="convert-") as folder:
                summary = read_fmu(build_fmu(model, out_dir=folder))
        else:
            summary = read_fmu(fmu)
    except BuildError as error:
        raise ConversionError(f"{fmu or model}: cannot read the FMU's grids ({error})") from None
    if summary.model_name != model:
        raise ConversionError(f"{fmu}: the FMU is {summary.model_name} — expected an FMU of {model}")
    scalars = {p.name: p for p in summary.parameters if "[" not in p.name}
    return scalars, {t.name: t.shape for t in summary.tables}


class _Builder:
    """The ParameterSet being filled; every name is checked against the FMU's layout."""

    def __init__(self, model: str, scalars: dict, tables: dict, source: Path):
        self.model, self.layout_scalars, self.layout_tables = model, scalars, tables
        self.params = ParameterSet(model=model, metadata={"source": str(source), "tool": "pybridge convert",
                                                          "method": "LCV paper Eq. 1-7, direct conversion"})

    def shape(self, name: str) -> tuple[int, ...]:
        if name not in self.layout_tables:
            raise ConversionError(f"{self.model}: no table parameter '{name}' — expected the parameter layout "
                                  f"of {DEFAULT_MODEL}")
        return self.layout_tables[name]

    def start(self, name: str) -> str:
        return self._scalar(name).start

    def _scalar(self, name: str):
        if name not in self.layout_scalars:
            raise ConversionError(f"{self.model}: no scalar parameter '{name}' — expected the parameter layout "
                                  f"of {DEFAULT_MODEL}")
        return self.layout_scalars[name]

    def scalar(self, name: str, value: float, origin: str) -> float:
        var = self._scalar(name)
        self.params.scalars[name] = float(value)
        self.params.origins[name] = origin
        if var.unit:
            self.params.units[name] = var.unit
        return float(value)

    def table(self, name: str, values, origin: str, unit: str | None = None) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        if values.shape != self.shape(name):
            raise ConversionError(f"{origin.split(':')[0]}: {values.shape} values for '{name}' — expected the "
                                  f"FMU's grid {self.shape(name)}")
        self.params.tables[name] = values
        self.params.origins[name] = origin
        if unit:
            self.params.units[name] = unit
        return values


def _fit_curve(x, values, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Breakpoints ``x`` (increasing) and ``values`` (rows along x) brought to ``n`` breakpoints."""
    x = np.asarray(x, float)
    v = np.asarray(values, float).reshape(len(x), -1)
    while len(x) < n:
        k = int(np.argmax(np.diff(x)))
        x, v = np.insert(x, k + 1, (x[k] + x[k + 1]) / 2), np.insert(v, k + 1, (v[k] + v[k + 1]) / 2, axis=0)
    scale = np.where(np.ptp(v, axis=0) > 0, np.ptp(v, axis=0), 1.0)
    while len(x) > n:
        w = (x[1:-1] - x[:-2]) / (x[2:] - x[:-2])
        loss = np.max(np.abs(v[1:-1] - (1 - w)[:, None] * v[:-2] - w[:, None] * v[2:]) / scale, axis=1)
        k = 1 + int(np.argmin(loss))
        x, v = np.delete(x, k), np.delete(v, k, axis=0)
    return x, v.reshape(n, *np.shape(values)[1:])


def _stop_force(deflections, forces, deflection):
    """Tables.interp1 with linear extrapolation, zero before contact: VehicleRTM.Suspensions.stopForce."""
    d = np.asarray(deflection, float)
    end = forces[-1] + (forces[-1] - forces[-2]) / (deflections[-1] - deflections[-2]) * (d - deflections[-1])
    f = np.where(d > deflections[-1], end, np.interp(d, deflections, forces))
    return np.where(d > 0, np.maximum(f, 0.0), 0.0)


# ---------------------------------------------------------------------------------------------
# Conversion
# ---------------------------------------------------------------------------------------------


#: parameters of Brakes.PressureBrakes (line pressure -> torque; pybridge replay drives them from a log)
PRESSURE_BRAKES = ("chassis.brakePistonAreaFront", "chassis.brakePistonAreaRear", "chassis.brakeFrictionFront",
                   "chassis.brakeFrictionRear", "chassis.brakeRadiusFront", "chassis.brakeRadiusRear",
                   "chassis.brakeClampLinear", "chassis.brakeClampQuadratic", "chassis.brakeClampCubic")


def convert_mbm(mbm_dir: str | Path | MBMData, model: str | None = None, *,
                fmu: str | Path | None = None, extra_uncertain: tuple[str, ...] = (),
                variant: Mapping[str, object] | None = None) -> ParameterSet:
    """Convert the MBM data set (a directory or :class:`MBMData`) into a parameter set of ``model``.

    ``model``: default the RTM14DoF class of the data set's variant (:mod:`pybridge.convert_variant`:
    front and rear records, tyres per rear station; ``variant`` overrides any of them).
    ``fmu``: an FMU of ``model`` to take the table sizes from; default: build one (cached by fmu_build).
    ``extra_uncertain``: scalars to identify besides the default set (reason: asked for by the user).
    """
    data = mbm_dir if isinstance(mbm_dir, MBMData) else read_mbm(mbm_dir)
    chosen = choose_variant(data, variant)
    model = model or chosen.model
    out = _Builder(model, *_fmu_layout(model, fmu), data.directory)
    out.params.metadata["variant"] = chosen.as_dict()
    g = out.scalar("g", sum(data.number(f"static_corner_load.{c}") for c in ("FL", "FR", "RL", "RR"))
                   / data.number("total_mass"), "mbm_summary.yaml: sum of static_corner_load / total_mass")
    _tyres(out, data)
    unsprung = _masses(out, data, chosen)
    _geometry(out, data, unsprung, g)
    for axle in AXLES:
        record = f"{axle}AxleData"
        solid = out.start(f"{record}.solidAxle") == "true"
        out.scalar(f"{record}.solidAxle", float(solid), f"{model}: the {axle} record "
                   f"{chosen.as_dict()[f'{axle}_record']} (FMU default)")
        out.scalar(f"{record}.track", data.number(f"track.{axle}"), f"mbm_summary.yaml: track.{axle}")
        _kinematics(out, data, axle, record, solid)
        _compliance(out, data, axle, record)
        stops = _dampers_and_stops(out, data, axle, record)
        _stiffness(out, data, axle, record, solid, stops, unsprung[axle] * g)
        derived = out.params.metadata.setdefault("derived", {})
        derived[f"{record}.rollCentreHeight"] = _roll_centre(data, axle)
        derived[f"{record}.springFriction"] = friction_entry(data.kc[f"{axle}_parallel_travel"])
    if data.driveline is None:
        out.params.metadata["lateral_only"] = (
            f"{data.file('driveline.yaml')}: missing — engine, gearbox and brake gains are the FMU's defaults, so "
            "manoeuvres that drive throttle and brake themselves (acceleration, braking) are refused")
    else:
        _driveline(out, data)
    for name, reason in UNCERTAIN:
        if name not in out.params.scalars or (name == "chassis.drivelineSplit"
                                              and out.params.scalars["chassis.rearDriveline"] == 0):
            continue
        out.params.mark_uncertain(name, UNCERTAIN_FRACTION, reason=reason)
    for name in extra_uncertain:
        if name not in out.params.scalars:
            raise ConversionError(f"extra uncertain parameter '{name}': not a scalar of the converted set — "
                                  f"expected one of {', '.join(sorted(out.params.scalars))}")
        out.params.mark_uncertain(name, UNCERTAIN_FRACTION, reason="asked for by the user (extra_uncertain)")
    check_parameter_set(out.params)
    return out.params


def roll_centre_height(test: KCResults) -> float:
    """Roll-centre height above ground [m] of a K&C travel test: h = y_cp * dy_cp/dz at design (module
    docstring), mean of both wheels."""
    heights = []
    for side in SIDES:
        channel = f"contact_patch_y_{side}"
        if channel not in test.data:
            raise ConversionError(f"{test.path}: no {channel} channel — expected it for the roll-centre height")
        z, y = test.data[f"wheel_travel_{side}"].to_numpy(), test.data[channel].to_numpy()
        near = np.abs(z) <= RC_FIT_HALF_RANGE + 1e-9
        if near.sum() < 3:
            raise ConversionError(f"{test.path}: {near.sum()} points within ±{RC_FIT_HALF_RANGE * 1e3:g} mm of design "
                                  "travel — expected at least 3 for the roll-centre slope")
        fit = np.polynomial.Polynomial.fit(z[near], y[near], 2).convert()
        heights.append(fit(0.0) * fit.deriv()(0.0))
    return float(np.mean(heights))


def _roll_centre(data: MBMData, axle: str) -> dict:
    test = data.kc[f"{axle}_opposite_travel"]
    if not {"contact_patch_y_left", "contact_patch_y_right"} <= set(test.data):
        return {"value": None, "unit": "m",
                "origin": f"kc/{test.path.name}: no contact_patch_y channels — not computed"}
    return {"value": round(roll_centre_height(test), 4), "unit": "m",
            "origin": f"kc/{test.path.name}: contact_patch_y x d(contact_patch_y)/d(wheel_travel) at design "
                      f"(quadratic fit, |z| <= {RC_FIT_HALF_RANGE * 1e3:g} mm), mean of both wheels"}


def _category(body: str, axle: str, kind: str) -> str:
    """The Eq. 5-7 item of a body of the mass table (chassis.<item>)."""
    name = body.lower()
    if kind == "sprung":
        return "sprungBodies"
    if axle == "rear" and any(w in name for w in DRIVELINE_WORDS):
        return "rearDriveline"
    if kind == "linkage":
        return f"{axle}Links"
    for item, words in ROTATING:
        if any(w in name for w in words):
            return f"{axle}{item}"
    return "frontUpright" if axle == "front" else "rearFixed"


def _masses(out: _Builder, data: MBMData, variant: Variant) -> dict[str, float]:
    """Eq. 5-7 items, split factors, sprung CoG and inertias; returns the unsprung mass per corner."""
    bodies = data.masses.data.copy()
    bodies["item"] = [_category(b, a, c) for b, a, c in zip(bodies["body"], bodies["axle"], bodies["class"])]
    items = ("frontWheel", "frontBrakeDisk", "frontSpindle", "frontUpright", "frontLinks", "rearWheel",
             "rearBrakeDisk", "rearSpindle", "rearFixed", "rearLinks", "rearDriveline", "sprungBodies")
    mass = {}
    for item in items:
        chosen = bodies[bodies["item"] == item]
        whole = item in ("sprungBodies", "rearDriveline")
        mass[item] = out.scalar(f"chassis.{item}", chosen["mass"].sum() / (1 if whole else 2),
                                f"masses.csv: sum of {', '.join(chosen['body']) or 'no bodies'}"
                                + ("" if whole else " / 2 (per corner)") + " (Eq. 5-7)")
    split = {}
    for name in ("frontLinkSplit", "rearLinkSplit", "drivelineSplit"):
        split[name] = out.scalar(f"chassis.{name}", NOMINAL_SPLIT,
                                 "LCV paper Eq. 5-7: split factor, nominal half of the bodies unsprung (uncertain)")
    weight = {"sprungBodies": 1.0, "frontLinks": 1 - split["frontLinkSplit"], "rearLinks": 1 - split["rearLinkSplit"],
              "rearDriveline": 1 - split["drivelineSplit"]}
    bodies["w"] = [weight.get(item, 0.0) for item in bodies["item"]]
    sprung = bodies[bodies["w"] > 0].copy()
    for column in ("mass", "ixx", "iyy", "izz", "ixy", "ixz", "iyz"):
        sprung[column] *= sprung["w"]
    cog = combined_properties(sprung)
    for axis in ("xx", "yy", "zz", "xz"):
        out.scalar(f"chassis.I{axis}", cog[f"i{axis}"], "masses.csv: inertia of the sprung part (sprung bodies + "
                   "(1-K) x linkage bodies) about its centre of gravity, parallel-axis theorem")
    for side, axle in (("front", "front"), ("rear", "rear")):
        rotating = bodies[(bodies["axle"] == axle) & bodies["item"].isin([f"{axle}{i}" for i, _ in ROTATING])]
        out.scalar(f"chassis.{side}WheelInertia", rotating["iyy"].sum() / 2,
                   f"masses.csv: sum of iyy of {', '.join(rotating['body'])} / 2 (spin inertia per wheel station)")
    out.scalar("chassis.rearTiresPerWheel", variant.rear_tyres_per_wheel,
               f"variant: {variant.reasons['rear_tyres_per_wheel']}")
    out.params.metadata["sprung_cog"] = [float(cog[k]) for k in ("x", "y", "z")]
    front = mass["frontWheel"] + mass["frontBrakeDisk"] + mass["frontSpindle"] + mass["frontUpright"] \
        + split["frontLinkSplit"] * mass["frontLinks"]
    rear = mass["rearWheel"] + mass["rearBrakeDisk"] + mass["rearSpindle"] + mass["rearFixed"] \
        + split["drivelineSplit"] * mass["rearDriveline"] / 2 + split["rearLinkSplit"] * mass["rearLinks"]
    return {"front": front, "rear": rear, "sprung": data.masses.total_mass - 2 * front - 2 * rear}


def _geometry(out: _Builder, data: MBMData, unsprung: dict, g: float) -> None:
    wheelbase = out.scalar("chassis.wheelbase", data.number("wheelbase"), "mbm_summary.yaml: wheelbase")
    par = data.kc["front_parallel_travel"].data
    x_front = along(par.wheel_travel_left, par.wheel_centre_x_left, 0.0) if "wheel_centre_x_left" in par else 0.0
    x_cog, _, z_cog = out.params.metadata["sprung_cog"]
    a = out.scalar("chassis.cogToFrontAxle", x_front - x_cog, "masses.csv: front wheel-centre x (K&C design) - "
                   "x of the sprung part's centre of gravity")
    tyre, lift = out.params.scalars, {}
    for axle, share in (("front", (wheelbase - a) / (2 * wheelbase)), ("rear", a / (2 * wheelbase))):
        tyres = tyre["chassis.rearTiresPerWheel"] if axle == "rear" else 1
        load = (unsprung["sprung"] * share + unsprung[axle]) * g / tyres
        stiffness = tyre[f"{axle}Tire.VERTICAL_STIFFNESS"] * tyre[f"{axle}Tire.LCZ"]
        lift[axle] = tyre[f"{axle}Tire.UNLOADED_RADIUS"] - load / stiffness \
            - data.number(f"design_wheel_centre_height.{axle}")
    z = z_cog + lift["front"] + (lift["rear"] - lift["front"]) * a / wheelbase
    out.scalar("chassis.cogHeight", z, "masses.csv: z of the sprung part's centre of gravity + lift of the wheel "
               "centres from design_wheel_centre_height (mbm_summary.yaml) to the RTM's loaded tyre radius "
               "(.tir), interpolated at the CoG")
    out.scalar("chassis.steeringRatio", data.number("rack_gain"), "mbm_summary.yaml: rack_gain (pinion-to-rack ratio)")


def _channel(results: KCResults, names: tuple[str, ...], side: str) -> str | None:
    return next((f"{n}_{side}" for n in names if f"{n}_{side}" in results.data), None)


def _kinematics(out: _Builder, data: MBMData, axle: str, record: str, solid: bool) -> None:
    par = data.kc[f"{axle}_parallel_travel"]
    second = data.kc.get(f"{axle}_opposite_travel" if solid else f"{axle}_rack_travel")
    if second is None:
        raise ConversionError(f"{data.file(f'kc/{axle}_rack_travel.csv')}: missing — expected the K&C rack_travel "
                              f"test of the {axle} axle (an independent axle's maps run over wheel x rack travel)")
    x1 = (par.data.wheel_travel_left + par.data.wheel_travel_right).to_numpy() / 2 if solid \
        else par.data.wheel_travel_left.to_numpy()
    x2 = (second.data.wheel_travel_left - second.data.wheel_travel_right).to_numpy() / 2 if solid \
        else second.data.rack_travel.to_numpy()
    n1, n2 = out.shape(f"{record}.kinematics.toe")
    u1 = out.table(f"{record}.kinematics.u1", np.linspace(x1.min(), x1.max(), n1),
                   f"kc/{par.path.name}: {'zp' if solid else 'wheel travel'} grid, {n1} points over the sweep", "m")
    u2 = out.table(f"{record}.kinematics.u2", np.linspace(x2.min(), x2.max(), n2),
                   f"kc/{second.path.name}: {'zo' if solid else 'rack travel'} grid, {n2} points over the sweep", "m")
    for name, channels, sign, displacement, required in KINEMATIC_OUTPUTS:
        target = f"{record}.kinematics.{name}"
        c1, c2 = _channel(par, channels, "left"), _channel(second, channels, "left")
        if c1 is None or c2 is None:
            if required:
                path = par.path if c1 is None else second.path
                raise ConversionError(f"{path}: no channel {channels[0]}_left — expected it for the RTM map {name}")
            out.table(target, np.zeros((n1, n2)), f"kc/: no {channels[0]}_left channel: 0 (an output only)")
            continue
        f1 = sign * par.data[c1].to_numpy()
        f2 = sign * second.data[c2].to_numpy()
        table = along(x1, f1, u1)[:, None] + (along(x2, f2, u2) - along(x2, f2, 0.0))[None, :]
        if displacement:
            table -= along(x1, f1, 0.0)
        rule = ("-" if sign < 0 else "") + c1 + (" - design value" if displacement else "")
        out.table(target, table, f"kc/{par.path.name} + kc/{second.path.name}: {rule}, left wheel, "
                  "superposed f1(u1) + f2(u2) - f2(0)")


def _compliance(out: _Builder, data: MBMData, axle: str, record: str) -> None:
    tests = {(load, side): data.kc[f"{axle}_compliance_{load}_{side}"] for load in LOADS for side in SIDES}
    grids = {}
    for key, loads in (("force", ("fx", "fy")), ("moment", ("mz",))):
        span = min(min(-t.data[t.sweep].min(), t.data[t.sweep].max()) for (load, _), t in tests.items()
                   if load in loads)
        n = out.shape(f"{record}.compliance.{key}")[0]
        grids[key] = out.table(f"{record}.compliance.{key}", np.linspace(-span, span, n),
                               f"kc/{axle}_compliance_{'/'.join(loads)}_*.csv: {n} points over the smallest "
                               "common range of the load sweeps")
    for name, channels, sign in COMPLIANCE_OUTPUTS:
        for load in LOADS:
            grid = grids["moment" if load == "mz" else "force"]
            for relation in ("Own", "Opposite"):
                target = f"{record}.compliance.{name}{load.capitalize()}{relation}"
                estimates, files = [], []
                for side in SIDES:
                    test = tests[(load, side)]
                    responder = side if relation == "Own" else SIDES[1 - SIDES.index(side)]
                    channel = _channel(test, channels, responder)
                    if channel is None:
                        continue
                    mirror = 1.0 if responder == "left" or load == "fx" else -1.0
                    force = mirror * test.data[test.sweep].to_numpy()
                    response = sign * test.data[channel].to_numpy()
                    estimates.append(along(force, response, grid) - along(force, response, 0.0))
                    files.append(test.path.name)
                if not estimates:
                    out.table(target, np.zeros(len(grid)), f"kc/: no {channels[0]} channel: 0")
                    continue
                out.table(target, np.mean(estimates, axis=0),
                          f"kc/{' + '.join(files)}: {'-' if sign < 0 else ''}{channels[0]} of the "
                          f"{'loaded' if relation == 'Own' else 'other'} wheel (mirror frame) against the load "
                          "(Fy, Mz x +1 left/-1 right) minus the unloaded value; mean of both loaded sides")


def _dampers_and_stops(out: _Builder, data: MBMData, axle: str, record: str) -> dict:
    """Damper and stop maps; returns the stops as the RTM will evaluate them."""
    damper = data.curves[f"{axle}_damper"]
    v, f = _fit_curve(damper.x, damper.force, out.shape(f"{record}.damper.velocity")[0])
    out.table(f"{record}.damper.velocity", v, f"{axle}_damper.dpr: velocity breakpoints (+ extension)", "m/s")
    out.table(f"{record}.damper.force", f, f"{axle}_damper.dpr: force (+ tension), Eq. 4", "N")
    par = data.kc[f"{axle}_parallel_travel"]
    stops = {}
    for element, key, sign in (("bump_stop", "bumpStop", -1), ("rebound_stop", "reboundStop", 1)):
        curve, path = data.curves[f"{axle}_{element}"], data.file(f"{axle}_{element}.{'bum' if sign < 0 else 'reb'}")
        if curve.clearance is None:
            raise ConversionError(f"{path}: no CLEARANCE — expected [{'BUMPSTOP' if sign < 0 else 'REBOUNDSTOP'}_DATA] "
                                  "CLEARANCE (travel before the stop engages)")
        x, force = _fit_curve(curve.x, curve.force, out.shape(f"{record}.{key}.deflection")[0])
        out.table(f"{record}.{key}.deflection", x, f"{path.name}: deflection beyond the clearance", "m")
        out.table(f"{record}.{key}.force", force, f"{path.name}: stop force, Eq. 3", "N")
        design = along(par.data.wheel_travel_left, par.data[f"{element}_length_left"], 0.0)
        contact = out.scalar(f"{record}.{key}.contactLength", design + sign * curve.clearance,
                             f"kc/{par.path.name}: {element}_length_left at design {'-' if sign < 0 else '+'} "
                             f"CLEARANCE of {path.name}")
        stops[element] = (x, force, contact, sign)
    return stops


def _stiffness(out: _Builder, data: MBMData, axle: str, record: str, solid: bool, stops: dict,
               unsprung_weight: float) -> None:
    """Eq. 3 reversed: wheel load of the K&C minus unsprung weight and the stop forces the RTM adds."""
    par = data.kc[f"{axle}_parallel_travel"]
    second = data.kc[f"{axle}_opposite_travel"] if solid else data.kc.get(f"{axle}_rack_travel")
    u1 = par.data.wheel_travel_left.to_numpy()
    forces = {}
    for test in ("parallel_travel", "opposite_travel"):
        d = data.kc[f"{axle}_{test}"].data
        zl, zr = d.wheel_travel_left.to_numpy(), d.wheel_travel_right.to_numpy()
        load = d.wheel_load_left.to_numpy() - unsprung_weight
        for element, (x, force, contact, sign) in stops.items():
            channel = f"{element}_length"
            slope1 = np.gradient(par.data[f"{channel}_left"].to_numpy(), u1)
            for side, z_own in (("left", zl), ("right", zr)):
                deflection = sign * (d[f"{channel}_{side}"].to_numpy() - contact)
                if solid:
                    u2 = (second.data.wheel_travel_left - second.data.wheel_travel_right).to_numpy() / 2
                    slope2 = np.gradient(second.data[f"{channel}_left"].to_numpy(), u2)
                    mirror = 1.0 if side == "left" else -1.0
                    derivative = 0.5 * along(u1, slope1, (zl + zr) / 2) \
                        + 0.5 * mirror * along(u2, slope2, mirror * (zl - zr) / 2)
                elif side == "left":
                    derivative = along(u1, slope1, z_own)
                else:
                    continue
                load -= sign * _stop_force(x, force, deflection) * derivative
        forces[test] = (zl, load)
    low = max(z.min() for z, _ in forces.values())
    high = min(z.max() for z, _ in forces.values())
    n = out.shape(f"{record}.stiffness.travel")[0]
    travel = out.table(f"{record}.stiffness.travel", np.linspace(low, high, n),
                       f"kc/{axle}_parallel_travel.csv + kc/{axle}_opposite_travel.csv: {n} points over the "
                       "common travel range", "m")
    rule = ": wheel_load_left - unsprung weight (Eq. 5-6, nominal split) - stop forces of the RTM (Eq. 3)"
    out.table(f"{record}.stiffness.parallelForce", along(*forces["parallel_travel"], travel),
              f"kc/{axle}_parallel_travel.csv{rule}", "N")
    out.table(f"{record}.stiffness.oppositeForce", along(*forces["opposite_travel"], travel),
              f"kc/{axle}_opposite_travel.csv{rule} (anti-roll = opposite - parallel in MapAxle)", "N")


def _tyres(out: _Builder, data: MBMData) -> None:
    values = data.tir.flat()
    for prefix in ("frontTire", "rearTire"):
        out.scalar(f"{prefix}.mfVersion", data.tir.mf_version, f"{data.tir_path.name}: Magic Formula version")
        for p in MF_PARAMETERS:
            value = values.get(p.key)
            if value is None:
                out.scalar(f"{prefix}.{p.key}", p.default, f"{data.tir_path.name}: key absent, Magic Formula default")
                continue
            if isinstance(value, str) or isinstance(value, bool):
                line = data.tir.lines.get((p.section, p.key), "?")
                raise ConversionError(f"{data.tir_path}:{line}: {p.key} = {value!r} — expected a number")
            out.scalar(f"{prefix}.{p.key}", value, f"{data.tir_path.name}: [{p.section}] {p.key}")


def _driveline(out: _Builder, data: MBMData) -> None:
    path, engine, gearbox = data.file("driveline.yaml"), data.driveline.engine, data.driveline.gearbox
    if gearbox.driven_axle != "rear":
        raise ConversionError(f"{path}: gearbox.driven_axle: {gearbox.driven_axle} — expected rear (the RTM is "
                              "rear-wheel drive)")
    speed, torque = np.array(engine.speed, float), np.array(engine.torque, float).T   # [speed, throttle]
    motoring = np.array([np.interp(0.0, engine.throttle, row) for row in torque])
    torque[speed > engine.max_speed] = motoring[speed > engine.max_speed, None]
    cut = engine.max_speed * (1 + FUEL_CUT_BAND)
    if speed[-1] < engine.max_speed:
        speed, torque = np.append(speed, engine.max_speed), np.vstack([torque, torque[-1]])
        motoring = np.append(motoring, motoring[-1])
    if speed[-1] < cut:
        speed, torque = np.append(speed, cut), np.vstack([torque, np.full(torque.shape[1], motoring[-1])])
    n_speed, n_throttle = out.shape("engine.torque")
    speed, torque = _fit_curve(speed, torque, n_speed)
    throttle, torque_t = _fit_curve(engine.throttle, torque.T, n_throttle)
    out.table("engine.speed", speed, "driveline.yaml: engine.speed, + a fuel cut-off point "
              f"{FUEL_CUT_BAND:.0%} above max_speed, + midpoints", "rad/s")
    out.table("engine.throttle", throttle, "driveline.yaml: engine.throttle", "1")
    out.table("engine.torque", torque_t.T, "driveline.yaml: engine.torque transposed to [speed, throttle]; "
              "motoring torque (throttle 0) from max_speed on", "N.m")
    out.scalar("engine.idleSpeed", engine.idle_speed, "driveline.yaml: engine.idle_speed")
    out.scalar("engine.inertia", engine.inertia, "driveline.yaml: engine.inertia")
    ratios = np.asarray(gearbox.ratios, float)
    n = out.shape("driveline.gearRatios")[0]
    if not 1 <= len(ratios) <= n:
        raise ConversionError(f"{path}: gearbox.ratios has {len(ratios)} gears — expected 1 to {n}, the gear slots "
                              "of the FMU's driveline.gearRatios")
    for k in range(len(ratios) - 1):
        if not gearbox.downshift_speed * ratios[k] / ratios[k + 1] < gearbox.upshift_speed:
            raise ConversionError(f"{path}: gearbox: no shift hysteresis between gear {k + 1} and {k + 2}: "
                                  f"downshift_speed x {ratios[k]:g}/{ratios[k + 1]:g} = "
                                  f"{gearbox.downshift_speed * ratios[k] / ratios[k + 1] * 30 / np.pi:.0f} rpm — "
                                  f"expected below upshift_speed {gearbox.upshift_speed * 30 / np.pi:.0f} rpm")
    out.scalar("driveline.nGears", len(ratios), f"driveline.yaml: gearbox.ratios, {len(ratios)} gears in use "
               f"of the FMU's {n} slots")
    out.table("driveline.gearRatios", np.pad(ratios, (0, n - len(ratios)), mode="edge"),
              f"driveline.yaml: gearbox.ratios; slots {len(ratios) + 1}..{n} repeat the top gear (inactive)"
              if len(ratios) < n else "driveline.yaml: gearbox.ratios", "1")
    out.scalar("driveline.finalDriveRatio", gearbox.final_drive, "driveline.yaml: gearbox.final_drive")
    out.scalar("driveline.efficiency", gearbox.efficiency, "driveline.yaml: gearbox.efficiency")
    for name, value, rule in (("upshiftSpeed", gearbox.upshift_speed, "upshift_speed"),
                              ("upshiftSpeedNoThrottle", gearbox.upshift_speed, "upshift_speed (no throttle term)"),
                              ("downshiftSpeed", gearbox.downshift_speed, "downshift_speed")):
        out.table(f"driveline.{name}", np.full(n - 1, float(value)), f"driveline.yaml: gearbox.{rule}, every gear",
                  "rad/s")
    out.scalar("driveline.torqueGain", 1.0, "LCV paper: engine map amplification gain, nominal 1 (uncertain)")
    brakes = data.driveline.brakes
    out.scalar("chassis.brakeTorqueFront", 2 * brakes.front_torque_per_pedal,
               "driveline.yaml: brakes.front_torque_per_pedal x 2 wheels (the RTM's gain is per axle)")
    out.scalar("chassis.brakeTorqueRear", 2 * brakes.rear_torque_per_pedal,
               "driveline.yaml: brakes.rear_torque_per_pedal x 2 wheels (the RTM's gain is per axle)")
    for name in PRESSURE_BRAKES:  # in the set, so that they can be identified like any other scalar
        out.scalar(name, float(out.start(name)), f"{out.model}: the pressure brakes' default (the MBM data state no "
                   "brake hydraulics; a calliper test or an identification on logged pressures sets it)")
