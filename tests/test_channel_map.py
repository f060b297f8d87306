"""Mapping files (pybridge.mbm.channel_map) and the unit texts of result files (pybridge.mbm.units)."""
import math

import pytest

from pybridge.mbm.channel_map import ChannelMap, ChannelMapError, ChannelSpec, load_channel_map
from pybridge.mbm.units import UnitError, parse_unit, si_factor

MAP = """format: vehiclertm-map 1
traces:
  ay: {source: Gyro.gyro_ACCY, unit: g}
  roll: {source: chassis.roll, scale: -1, offset: 0.01}
  yaw_rate: chassis.yaw
kc:
  sides: {left: L1, right: R1}
  tests: {parallel_travel: "*bounce*"}
  channels:
    toe: {source: "Toe.{side}", unit: deg}
    rack_travel: rack.displacement
"""


def _write(tmp_path, text):
    path = tmp_path / "map.yaml"
    path.write_text(text)
    return path


def test_map_reads_specs_sides_and_overlays_the_default(tmp_path):
    m = load_channel_map(_write(tmp_path, MAP))
    assert m.traces["ay"] == ChannelSpec("Gyro.gyro_ACCY", "g")
    assert m.traces["roll"] == ChannelSpec("chassis.roll", None, -1.0, 0.01)
    assert m.traces["yaw_rate"] == ChannelSpec("chassis.yaw")
    assert m.kc.column("toe_right") == ChannelSpec("Toe.R1", "deg")
    assert m.kc.column("rack_travel").source == "rack.displacement"
    assert m.kc.column("camber_left") is None
    both = ChannelMap.default().overlaid(m)
    assert both.traces["ay"].source == "Gyro.gyro_ACCY"
    assert both.traces["speed"].source == "chassis_velocities.longitudinal"
    assert both.kc.column("camber_left").source == "camber_angle.L1"   # default source, the map's sides
    assert both.kc.tests["parallel_travel"] == ("*bounce*",)
    assert both.kc.tests["opposite_travel"] == ChannelMap.default().kc.tests["opposite_travel"]
    assert both.path == m.path
    assert both.manoeuvres["step_steer"] == ("*step_steer*",) and "corner_force_sweep_FL" in both.manoeuvres


def test_default_map_names_every_trace_channel_and_kc_column():
    from pybridge.mbm.kc_results import CHANNEL_KINDS
    from pybridge.simulate.scenarios import OUTPUT_CHANNELS
    default = ChannelMap.default()
    assert set(default.traces) == set(OUTPUT_CHANNELS)
    assert default.kc.column("toe_left").source == "toe_angle.left"
    assert all(default.kc.column(c) is not None for c in CHANNEL_KINDS)
    sources = [s.source for s in default.traces.values()]
    assert len(sources) == len(set(sources))


@pytest.mark.parametrize("body, message", [
    ("traces:\n  ayy: x\n", r"map.yaml: traces.ayy: unknown key \(did you mean ay\?\)"),
    ("traces:\n  ay: x\n  ay: y\n", r"map.yaml:4:3: .*duplicate key 'ay'"),
    ("traces:\n  ay: {source: x, unit: mm}\n", r"traces.ay.unit: unit 'mm' .* convertible to m/s\^2"),
    ("traces:\n  ay: {source: x, unit: furlong}\n", r"traces.ay.unit: .*'furlong' is not a unit name"),
    ("traces:\n  ay: {source: x, scale: yes}\n", r"traces.ay.scale: True — expected a finite number"),
    ("traces:\n  ay: {source: x, scale: 0}\n", r"traces.ay.scale: 0 — expected a non-zero"),
    ("traces:\n  ay: {source: x, gain: 2}\n", r"traces.ay.gain: unknown key"),
    ("traces:\n  ay: {unit: g}\n", r"traces.ay.source: None — expected"),
    ("kc:\n  channels:\n    toe: toe_angle.left\n", r"kc.channels.toe.source: .* expected '\{side\}'"),
    ("kc:\n  sides: {left: L, right: L}\n", r"kc.sides: left and right both 'L'"),
    ("kc:\n  tests:\n    bounce: x\n", r"kc.tests.bounce: unknown key"),
    ("kc:\n  tests:\n    parallel_travel: []\n", r"kc.tests.parallel_travel: \[\] — expected a name pattern"),
    ("traces: 3\n", r"traces: int 3 — expected a mapping"),
    ("trace: {}\n", r"\(top level\).trace: unknown key \(did you mean traces\?\)"),
    ("manoeuvres:\n  step-steer: x\n", r"manoeuvres.step-steer: expected a trace name of letters"),
    ("manoeuvres:\n  step_steer: 3\n", r"manoeuvres.step_steer: 3 — expected a name pattern"),
])
def test_map_errors_name_file_and_key(tmp_path, body, message):
    with pytest.raises(ChannelMapError, match=message):
        load_channel_map(_write(tmp_path, "format: vehiclertm-map 1\n" + body))


def test_map_needs_its_format_line(tmp_path):
    with pytest.raises(ChannelMapError, match=r"map.yaml: format: None — expected 'vehiclertm-map 1'"):
        load_channel_map(_write(tmp_path, "traces: {}\n"))


@pytest.mark.parametrize("text, factor, si", [
    ("newton/meter**2", 1.0, "Pa"), ("meter/second**2", 1.0, "m/s^2"), ("sec", 1.0, "s"),
    ("deg", math.pi / 180, "rad"), ("deg/sec", math.pi / 180, "rad/s"), ("newton-meter", 1.0, "N m"),
    ("Newton", 1.0, "N"), ("mm", 1e-3, "m"), ("km/h", 1 / 3.6, "m/s"), ("g", 9.80665, "m/s^2"),
    ("kg*mm**2", 1e-6, "kg m^2"), ("meter/sec", 1.0, "m/s"), ("rpm", math.pi / 30, "rad/s"), ("%", 0.01, "1"),
])
def test_unit_spellings_to_si(text, factor, si):
    assert si_factor(text, si) == pytest.approx(factor, rel=1e-15)


def test_units_of_another_quantity_are_refused():
    assert parse_unit("deg").dimension != parse_unit("mm").dimension
    with pytest.raises(UnitError, match="not a unit of the same quantity as 'rad'"):
        si_factor("mm", "rad")
    with pytest.raises(UnitError, match="more than one '/'"):
        parse_unit("m/s/s")
