within;
package VehicleRTM "Real-time vehicle models (14-DoF RTM, SLEKQ quarter-car, 10-DoF four-post) converted from a multibody model"
  annotation (
    version = "0.1.0",
    Documentation(info = "<html>
<p>Lumped-parameter, map-based vehicle models for ADAS and HIL work, converted from a validated
multibody model (MBM) of a light commercial vehicle.</p>
<ul>
<li><b>Vehicles.RTM14DoF</b>: 6-DoF sprung mass, wheel travel and spin per wheel, map-based
suspension kinematics and compliance, Magic Formula tyres, rigid steering, powertrain, brakes.</li>
<li><b>QuarterCars.SLEKQ</b>: single-link equivalent kinematic quarter-car with the homotopy coupling term.</li>
<li><b>Vehicles.FourPost10DoF</b>: four SLEKQ corners on one body, driven by four posts.</li>
</ul>
<p>Conventions: SI units; ISO 8855 axes (x forward, y left, z up; yaw, roll and steering-wheel angle
positive by the right-hand rule); wheel order FL, FR, RL, RR; wheel travel positive in bump.
The core does not use the Modelica Standard Library, so any Modelica 3.x tool compiles it.</p>
</html>"));
end VehicleRTM;
