within MyVan;
model BumpRide "MyVan settling on its springs, then driving over a 30 mm bump at 36 km/h"
  parameter VehicleRTM.Units.Velocity targetSpeed = 10 "Test speed";
  parameter VehicleRTM.Units.Length bumpHeight = 0.03 "Height of the cosine bump";
  parameter VehicleRTM.Units.Length bumpLength = 0.5 "Length of the cosine bump";
  parameter VehicleRTM.Units.Time bumpTime = 1.5 "Time the front wheels reach the bump";
  parameter Real speedGain(unit = "s/m") = 0.5 "Throttle per m/s of speed error (driver speed control)";
  MyVan vehicle(initialSpeed = targetSpeed);
protected
  constant Real pi(unit = "1") = 3.14159265358979 "Circle constant";
  final parameter VehicleRTM.Units.Time bumpDuration = bumpLength/targetSpeed;
  final parameter VehicleRTM.Units.Time axleDelay = vehicle.chassis.wheelbase/targetSpeed;
  VehicleRTM.Units.Length frontBump "Road height under the front wheels";
  VehicleRTM.Units.Length rearBump "Road height under the rear wheels";
equation
  frontBump = if time > bumpTime and time < bumpTime + bumpDuration
    then bumpHeight/2*(1 - cos(2*pi*(time - bumpTime)/bumpDuration)) else 0;
  rearBump = if time > bumpTime + axleDelay and time < bumpTime + axleDelay + bumpDuration
    then bumpHeight/2*(1 - cos(2*pi*(time - bumpTime - axleDelay)/bumpDuration)) else 0;
  vehicle.roadHeight = {frontBump, frontBump, rearBump, rearBump};
  vehicle.steeringWheelAngle = 0;
  vehicle.throttle = min(1, max(0, 0.12 + speedGain*(targetSpeed - vehicle.vx)));
  vehicle.brakePedal = 0;
  vehicle.brakePressure = 0;
  vehicle.rearWheelTorque = zeros(2);
  vehicle.roadFriction = ones(4);
  annotation (experiment(StopTime = 2.5, Interval = 0.005), Documentation(info = "<html>
<p>Inputs defined inside (a harness like the library's <code>Examples</code>): the van starts at
design position and 36 km/h, settles on its springs, and at 1.5 s the front wheels, one wheelbase
later the rear wheels, run over a 30 mm, 0.5 m cosine bump, which drives the front dampers well
beyond their knee velocity.</p>
</html>"));
end BumpRide;
