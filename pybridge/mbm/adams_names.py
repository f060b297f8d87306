"""The built-in channel map: Adams/Car's request names for the K&C and full-vehicle channels.

Suspension analyses (parallel / opposite wheel travel, steering, static load) report the suspension
characteristics as requests with one component per wheel (``toe_angle.left``, ``camber_angle.right``),
the test rig's wheel travel and tyre forces (``wheel_travel.left``, ``left_tire_forces.normal``) and the
steering rack's input. Full-vehicle analyses report the chassis motion (``chassis_accelerations``,
``chassis_velocities``, ``chassis_displacements``), the driver's demands and the tyre forces.
Where Adams/Car has no standard request for a channel of the project's vocabulary (load transfers,
heave, the four-post rig), the name is the project's own, under the request ``vehiclertm``.
docs/mbm_formats.md lists the whole table; a mapping file (``--map``) overrides any entry.
"""
from __future__ import annotations

from pybridge.mbm.channel_map import ChannelSpec, KCMap

__all__ = ["DEFAULT_KC", "DEFAULT_TRACES", "default_manoeuvres"]

_WHEELS = {"fl": "front_left", "fr": "front_right", "rl": "rear_left", "rr": "rear_right"}

_TRACE_SOURCES = {
    "time": "time.TIME",
    "speed": "chassis_velocities.longitudinal",
    "ax": "chassis_accelerations.longitudinal",
    "ay": "chassis_accelerations.lateral",
    "yaw_rate": "chassis_velocities.yaw",
    "roll": "chassis_displacements.roll",
    "pitch": "chassis_displacements.pitch",
    "sideslip": "chassis_displacements.side_slip",
    "steering_wheel_angle": "driver_demands.steering",
    "throttle": "driver_demands.throttle",
    "brake": "driver_demands.brake",
    "gear": "driver_demands.gear",
    "engine_speed": "engine_speed.engine_speed",
    **{f"fz_{c}": f"{w}_tire_forces.normal" for c, w in _WHEELS.items()},
}
#: trace channel -> its source; the rest of the vocabulary under the project's own request ``vehiclertm``
DEFAULT_TRACES: dict[str, ChannelSpec] = {}


def _fill() -> None:
    from pybridge.simulate.scenarios import OUTPUT_CHANNELS
    for name in OUTPUT_CHANNELS:
        DEFAULT_TRACES[name] = ChannelSpec(_TRACE_SOURCES.get(name, f"vehiclertm.{name}"))


_fill()

_KC_SOURCES = {
    "wheel_travel": "wheel_travel.{side}",
    "rack_travel": "steering_rack_input.rack_input",
    "wheel_load": "{side}_tire_forces.normal",
    "fx": "{side}_tire_forces.longitudinal",
    "fy": "{side}_tire_forces.lateral",
    "mz": "{side}_tire_forces.aligning",
    "toe": "toe_angle.{side}",
    "camber": "camber_angle.{side}",
    "caster": "caster_angle.{side}",
    "kingpin_inclination": "kingpin_incl_angle.{side}",
    "wheel_centre_x": "wheel_center_location_x.{side}",
    "wheel_centre_y": "wheel_center_location_y.{side}",
    "contact_patch_x": "contact_patch_location_x.{side}",
    "contact_patch_y": "contact_patch_location_y.{side}",
    "spring_length": "spring_length.{side}",
    "damper_length": "damper_length.{side}",
    "bump_stop_length": "bump_stop_length.{side}",
    "rebound_stop_length": "rebound_stop_length.{side}",
    "anti_roll_bar_length": "anti_roll_bar_length.{side}",
    "spring_force": "spring_force.{side}",
    "damper_force": "damper_force.{side}",
}

DEFAULT_KC = KCMap(
    channels={name: ChannelSpec(source) for name, source in _KC_SOURCES.items()},
    sides={"left": "left", "right": "right"},
    tests={
        "parallel_travel": ("*parallel_travel*", "*parallel_wheel_travel*", "*wheel_travel_parallel*"),
        "opposite_travel": ("*opposite_travel*", "*opposite_wheel_travel*", "*wheel_travel_opposite*"),
        "rack_travel": ("*steering*", "*rack_travel*"),
        "compliance_fx": ("*compliance_fx*", "*static_load_fx*", "*longitudinal_compliance*"),
        "compliance_fy": ("*compliance_fy*", "*static_load_fy*", "*lateral_compliance*"),
        "compliance_mz": ("*compliance_mz*", "*static_load_mz*", "*aligning_compliance*"),
    },
    axles={"front": ("*front*",), "rear": ("*rear*",)},
    loaded_side={"left": ("*_left", "*_left_*", "*_lh*"), "right": ("*_right", "*_right_*", "*_rh*")},
)


def default_manoeuvres() -> dict[str, tuple[str, ...]]:
    """Trace name -> analysis-name patterns: every shipped scenario by its name, the corner sweeps per corner."""
    from pybridge.simulate.scenarios import list_scenarios
    names = [p.stem for p in list_scenarios() if p.stem != "corner_force_sweep"]
    patterns = {name: (f"*{name}*",) for name in names}
    patterns.update({f"corner_force_sweep_{c}": (f"*corner_force_sweep_{c}*",) for c in ("FL", "FR", "RL", "RR")})
    patterns["sine_sweep"] = ("*sine_sweep*", "*swept_sine*")
    return patterns
