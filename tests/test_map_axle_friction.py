"""Spring friction of the RTM's map-based axle (``StiffnessMaps.friction``, Dahl law on each wheel's travel),
simulated by rumoca: a slow sine of parallel travel gives a wheel force loop whose width at design is twice
the friction force (less the presliding part Dahl's law predicts), and the default (0) gives none."""
from __future__ import annotations

import numpy as np
import pytest

HARNESS = """
model FrictionLoop
  parameter Real f(unit = "Hz") = 0.5;
  parameter Real amplitude(unit = "m") = 0.002;
  VehicleRTM.Suspensions.MapAxle rough(redeclare VehicleRTM.Suspensions.QuadLeaf data(stiffness(friction = 300,
    frictionTravel = 5e-4)));
  VehicleRTM.Suspensions.MapAxle smooth(redeclare VehicleRTM.Suspensions.QuadLeaf data);
  Real z(unit = "m") = amplitude*sin(2*3.141592653589793*f*time);
  Real v(unit = "m/s") = amplitude*2*3.141592653589793*f*cos(2*3.141592653589793*f*time);
equation
  rough.travel = {z, z};
  rough.travelRate = {v, v};
  smooth.travel = {z, z};
  smooth.travelRate = {v, v};
  rough.rackTravel = 0;
  smooth.rackTravel = 0;
  rough.wheelFx = {0, 0};
  rough.wheelFy = {0, 0};
  rough.wheelMz = {0, 0};
  rough.contactFx = {0, 0};
  rough.contactFy = {0, 0};
  smooth.wheelFx = {0, 0};
  smooth.wheelFy = {0, 0};
  smooth.wheelMz = {0, 0};
  smooth.contactFx = {0, 0};
  smooth.contactFy = {0, 0};
end FrictionLoop;
"""


def _width(t, z, force):
    """Force on the way up minus on the way down where the travel crosses design, in the second period."""
    second = t >= 2.0
    t, z, force = t[second], z[second], force[second]
    up = np.flatnonzero((z[:-1] < 0) & (z[1:] >= 0))[0]
    down = np.flatnonzero((z[:-1] > 0) & (z[1:] <= 0))[0]
    at = lambda i: force[i] + (force[i + 1] - force[i]) * (0 - z[i]) / (z[i + 1] - z[i])  # noqa: E731
    return float(at(up) - at(down))


def test_map_axle_friction_loop_has_the_parameters_width(compile_source):
    result = compile_source(HARNESS, "FrictionLoop").simulate(t=(0.0, 4.0), dt=0.002)
    t, z = np.asarray(result.time), np.asarray(result["z"])
    rough, smooth = np.asarray(result["rough.verticalForce[1]"]), np.asarray(result["smooth.verticalForce[1]"])
    assert np.max(np.abs(np.asarray(result["rough.frictionState[1]"]))) <= 1.0 + 1e-3
    # the default carries no friction force: the loop is the damper's alone (about 35 N at 6 mm/s)
    width_0 = _width(t, z, smooth)
    assert abs(width_0) < 0.1 * 600.0
    # bump needs the friction force more, rebound less: the loop widens by twice the force, less what the
    # Dahl state has not built up since the reversal, an amplitude A ago: s = 1 - 2 exp(-A/frictionTravel)
    assert _width(t, z, rough) - width_0 == pytest.approx(600.0 * (1 - 2 * np.exp(-0.002 / 5e-4)), rel=0.01)
