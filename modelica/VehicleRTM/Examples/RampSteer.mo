within VehicleRTM.Examples;
model RampSteer "Constant-speed ramp steer (ISO 4138, steer-angle method) of the 3.5 t LCV at 80 km/h"
  parameter Units.Velocity targetSpeed = 80/3.6 "Test speed";
  parameter Real steerRate(unit = "rad/s") = 10*3.14159265358979/180 "Steering-wheel angle rate";
  parameter Units.Time rampStart = 1 "Start of the ramp";
  parameter Real speedGain(unit = "s/m") = 0.5 "Throttle per m/s of speed error (driver speed control)";
  Vehicles.RTM14DoF vehicle(initialSpeed = targetSpeed);
equation
  vehicle.steeringWheelAngle = steerRate*max(0, time - rampStart);
  vehicle.throttle = min(1, max(0, 0.12 + speedGain*(targetSpeed - vehicle.vx)));
  vehicle.brakePedal = 0;
  vehicle.brakePressure = 0;
  vehicle.rearWheelTorque = zeros(2);
  vehicle.roadFriction = ones(4);
  vehicle.roadHeight = zeros(4);
  annotation (experiment(StopTime = 10, Interval = 0.02), Documentation(info = "<html>
<p>Quasi-steady-state cornering after ISO 4138: constant speed 80 km/h, the steering-wheel angle
rises slowly (10 deg/s) so the vehicle passes through steady states of increasing lateral
acceleration. Gives the understeer gradient (steering-wheel angle against lateral acceleration),
roll gradient and sideslip gradient.</p>
</html>"));
end RampSteer;
