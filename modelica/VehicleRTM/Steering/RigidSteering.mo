within VehicleRTM.Steering;
block RigidSteering "Rigid steering: rack travel = pinion-to-rack ratio x steering-wheel angle"
  parameter Real ratio(unit = "m/rad") = 0.008
    "Pinion-to-rack ratio tau: rack travel per steering-wheel angle (c-factor 50 mm/rev = 0.008 m/rad)";
  input Units.Angle steeringWheelAngle "Steering-wheel angle, positive to the left (counter-clockwise seen by the driver, ISO 8855)";
  output Units.Length rackTravel "Rack travel from centre, positive in the direction that steers the wheels to the left";
equation
  rackTravel = ratio*steeringWheelAngle;
  annotation (Documentation(info = "<html>
<p>Rigid steering system of the LCV paper: steering column and rack-and-pinion without torsion bar,
compliance, friction or power assistance. The only parameter is the pinion-to-rack transmission
ratio <code>ratio</code> (tau<sub>pin/rack</sub>), the rack travel per radian of steering-wheel
angle: <code>rackTravel = ratio*steeringWheelAngle</code>. The motion from the rack to the wheels
(toe, the quasi-Ackermann geometry) is in the kinematic maps of the front suspension, whose second
argument is this rack travel.</p>
<p>Default 0.008 m/rad, i.e. a c-factor of about 50 mm of rack travel per steering-wheel turn,
plausible for a 3.5 t van with rack-and-pinion steering (about 3.5 turns lock to lock for
&plusmn;85 mm of rack travel); plausible from public specifications, not data of a specific
vehicle.</p>
<p><b>Signs.</b> <code>steeringWheelAngle</code> is positive to the left (right-hand rule about the
steering column pointing up/back, ISO 8855). <code>rackTravel</code> is positive in the direction
that steers the wheels to the left, whatever the rack's direction in vehicle axes is (for a rack
behind the front axle it moves to the right, -y). The front kinematic maps are tabulated against
rack travel with this sign: the converter flips the MBM's rack coordinate if its test rig
counts it the other way.</p>
</html>"));
end RigidSteering;
