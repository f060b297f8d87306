"""The identification's internal step, chosen per parameter set: a step the model can take.

A fixed-step integrator is stable only while the step resolves the model's fastest mode; with RK4 the
product |h·λ| must stay below about 2.8. The fastest modes of the RTM are its tyres' (``Tires.Tire``):

- the relaxed lateral slip, λ = v/σα, fastest at the highest speed driven;
- the wheel spin with the relaxed longitudinal slip, the matrix [[-v/σκ, Re/σκ], [-Re·Kxk/J, 0]]:
  an oscillation of about sqrt(Re²·Kxk/(J·σκ)) rad/s, least damped at the lowest speed driven,

- the pressure brakes' friction state (``Brakes.PressureBrakes.z``, released or not), λ = ω/(φs + τr·ω) at the
  highest wheel speed ω = v/Re, at most 1/τr (``brakeStictionAngle`` φs, ``brakeSlidingLag`` τr: the set's,
  else the FMU's start values),

with the relaxation lengths σκ, σα and the slip stiffness Kxk of the parameter set's tyre at its
nominal load FNOMIN·LFZO (``Tires.relaxationLengths``; never below the model's sigmaMin, 0.05 m), J the
wheel's spin inertia and Re its unloaded radius. :func:`choose_step` takes the largest step, among
those that divide the 100 Hz communication step and do not exceed the integrator's validated step
(``IDENTIFICATION_STEPS``), whose |h·λ| is at most ``MARGIN`` on every mode (the rule), and then checks
it: the nominal evaluation at that step must succeed and give the fitness of the 1 ms step (the FMU's
default, the one a rig sees) within ``FITNESS_BAR``; if not, the next smaller step is tried. A nominal
evaluation that fails at 1 ms too is the start point failing (``StartPointFailed``). Measured on the
shipped van: fastest mode the wheel spin, 109 s⁻¹ (rule: 10 ms; nominal fitness +0.056 % from 1 ms); the
van with its relaxation lengths shortened to 0.05 m (at FNOMIN): the lateral slip at 27.8 m/s, 420 s⁻¹,
2.5 ms (+0.006 %; at 10 ms its ramp steer diverged at t = 15.47 s, tireFL.tanAlpha = -inf; 5 ms passes the
check too, +0.09 %, at |h·λ| = 2.1, inside RK4's limit but outside the rule's margin). The choice costs
two nominal evaluations, one at 1 ms (on the van 1.4 s of CPU together). The brake state at 80 km/h: 98 s⁻¹
with τr = 10 ms; with the 3 ms it had before τr existed, 317 s⁻¹: 10 ms diverged (the ramp steer and sine
sweep at t = 12.84 s) on both shipped vans, which then ran at 5 ms.
"""
from __future__ import annotations

import math

import numpy as np

from pybridge.identify.evaluations import StartPointFailed

__all__ = ["CANDIDATES", "FITNESS_BAR", "MARGIN", "choose_step", "fastest_modes"]

CANDIDATES = (10e-3, 5e-3, 2.5e-3, 2e-3, 1e-3)  # s, divisors of the 10 ms communication step
REFERENCE_STEP = 1e-3  # s: the FMU's default internal step
MARGIN = 1.5           # largest |h·λ| the rule allows (RK4's stability limit is about 2.8)
FITNESS_BAR = 0.005    # relative fitness difference to the 1 ms step (benchmarks/rtm_accuracy.py's bar)
SIGMA_MIN = 0.05       # m, Tires.Tire's sigmaMin
AXLES = {"front": ("frontTire", "chassis.frontWheelInertia"), "rear": ("rearTire", "chassis.rearWheelInertia")}
BRAKE = ("brakeStictionAngle", "brakeSlidingLag")  # RTM14DoF: the pressure brakes' friction state


def _tyre(scalars: dict, prefix: str) -> dict | None:
    """σκ, σα, Kxk and Re of one axle's tyre at its nominal load (None: the set lacks its coefficients)."""
    def get(name, default=None):
        return scalars.get(f"{prefix}.{name}", default)

    needed = ("FNOMIN", "UNLOADED_RADIUS", "PKX1", "PTX1", "PTY1", "PTY2")
    if any(get(name) is None for name in needed):
        return None
    lfzo = get("LFZO", 1.0)
    load = get("FNOMIN") * lfzo
    radius = get("UNLOADED_RADIUS")
    kxk = abs(load * get("PKX1") * get("LKX", 1.0))
    if get("mfVersion", 52.0) >= 61 and get("LONGITUDINAL_STIFFNESS", 0.0) > 0 and get("LATERAL_STIFFNESS", 0.0) > 0:
        kya = abs(get("PKY1", 0.0) * load * math.sin(get("PKY4", 2.0) * math.atan(1.0 / get("PKY2", 1.0)))
                  * get("LKY", 1.0))
        sigma_kappa, sigma_alpha = kxk / get("LONGITUDINAL_STIFFNESS"), kya / get("LATERAL_STIFFNESS")
    else:
        sigma_kappa = lfzo * get("PTX1") * radius * get("LSGKP", 1.0)
        sigma_alpha = get("PTY1") * math.sin(2 * math.atan(1.0 / get("PTY2"))) * radius * lfzo * get("LSGAL", 1.0)
    return {"sigma_kappa": max(abs(sigma_kappa), SIGMA_MIN), "sigma_alpha": max(abs(sigma_alpha), SIGMA_MIN),
            "kxk": kxk, "radius": radius}


def fastest_modes(scalars: dict, speeds: list[float]) -> list[dict]:
    """The tyre modes of the parameter set's ``scalars`` at the ``speeds`` driven (m/s): one entry per
    axle and mode with its rate |λ| (1/s), fastest first."""
    modes = []
    low, high = max(min(speeds), 1.0), max(speeds)
    for axle, (prefix, inertia_name) in AXLES.items():
        tyre = _tyre(scalars, prefix)
        if tyre is None:
            continue
        modes.append({"mode": f"{axle} tyre lateral slip relaxation at {high:.3g} m/s",
                      "rate": high / tyre["sigma_alpha"], "sigma_m": tyre["sigma_alpha"]})
        inertia = scalars.get(inertia_name)
        if inertia:
            rate = 0.0
            for v in (low, high):
                s, r = tyre["sigma_kappa"], tyre["radius"]
                rate = max(rate, *np.abs(np.linalg.eigvals([[-v / s, r / s], [-r * tyre["kxk"] / inertia, 0.0]])))
            modes.append({"mode": f"{axle} wheel spin with longitudinal slip relaxation, {low:.3g}-{high:.3g} m/s",
                          "rate": float(rate), "sigma_m": tyre["sigma_kappa"]})
    brake = _brake_mode(scalars, high)
    return sorted(modes + ([brake] if brake else []), key=lambda m: -m["rate"])


def _brake_mode(scalars: dict, speed: float) -> dict | None:
    """The pressure brakes' friction state at ``speed`` (m/s) on the smallest wheel (None: not in the set)."""
    angle, lag = (scalars.get(name) for name in BRAKE)
    radii = [scalars.get(f"{prefix}.UNLOADED_RADIUS") for prefix, _ in AXLES.values()]
    radii = [r for r in radii if r]
    if angle is None or lag is None or not radii:
        return None
    omega = speed / min(radii)
    return {"mode": f"pressure brakes' friction state at {speed:.3g} m/s", "rate": omega / (angle + lag * omega),
            "sigma_m": angle * min(radii)}


def _rule(modes: list[dict], largest: float) -> float:
    fastest = modes[0]["rate"] if modes else 0.0
    for step in CANDIDATES:
        if step <= largest + 1e-12 and step * fastest <= MARGIN:
            return step
    return REFERENCE_STEP


def _fmu_starts(fmu, names) -> dict:
    """The start values of the parameters ``names`` that the FMU has (none without an FMU)."""
    from fmu_build.inspect import read_fmu

    if fmu is None:
        return {}
    return {p.name: float(p.start) for p in read_fmu(fmu).parameters if p.name in names and p.start is not None}


def _nominal(problem, step: float):
    problem.internal_step = step
    return problem.evaluate(problem.nominal)


def choose_step(problem, speeds: list[float]) -> dict:
    """Choose ``problem``'s internal step (sets ``problem.internal_step``; see the module); returns the
    choice with its reason, for run.yaml and result.yaml. ``speeds``: the speeds its manoeuvres drive."""
    largest = problem.internal_step
    if largest is None or largest <= REFERENCE_STEP:
        return {"step_s": largest, "reason": "the FMU's own fixedStepSize (not a native build that locates its "
                                             "events inside the step)" if largest is None else "the FMU's step"}
    modes = fastest_modes({**_fmu_starts(problem.fmu, BRAKE), **problem.params.scalars}, speeds)
    first = _rule(modes, largest)
    reference = _nominal(problem, REFERENCE_STEP)
    if reference.failed:
        problem.internal_step = largest
        raise StartPointFailed("the nominal parameter set fails at the 1 ms step, so no optimizer starts: "
                               + "; ".join(f"{m}: {why}" for m, why in reference.failed.items()))
    tried = []
    for step in [s for s in CANDIDATES if s <= first + 1e-12 and s > REFERENCE_STEP]:
        result = _nominal(problem, step)
        difference = abs(result.value - reference.value) / max(abs(reference.value), 1e-12)
        tried.append({"step_s": step, "failed": dict(result.failed) or None,
                      "fitness_difference_percent": None if result.failed else round(100 * difference, 4)})
        if not result.failed and difference <= FITNESS_BAR:
            break
    else:
        step = REFERENCE_STEP
        problem.internal_step = step
    fastest = modes[0] if modes else None
    reason = (f"fastest mode {fastest['mode']}: {fastest['rate']:.4g} 1/s (relaxation length {fastest['sigma_m']:.3g} m),"
              f" rule |h*lambda| <= {MARGIN} gives {1e3 * first:g} ms" if fastest else
              f"no tyre coefficients in the set, rule gives {1e3 * first:g} ms")
    reason += (f"; nominal fitness at {1e3 * step:g} ms within {100 * FITNESS_BAR:g} % of the 1 ms step's"
               if step > REFERENCE_STEP else "; every coarser step failed the check against the 1 ms step")
    return {"step_s": step, "reason": reason, "largest_validated_s": largest, "rule_s": first,
            "modes": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in m.items()} for m in modes],
            "checked": tried, "reference_fitness": float(reference.value)}
