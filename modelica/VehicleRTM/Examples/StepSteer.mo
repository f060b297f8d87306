within VehicleRTM.Examples;
model StepSteer "Step steer (ISO 7401) of the 3.5 t LCV at 80 km/h"
  parameter Units.Velocity targetSpeed = 80/3.6 "Test speed";
  parameter Units.Angle steerAmplitude = 40*3.14159265358979/180 "Steering-wheel step amplitude";
  parameter Units.Time stepTime = 1 "Start of the steering step";
  parameter Units.Time stepDuration = 0.2 "Rise time of the steering step";
  parameter Real speedGain(unit = "s/m") = 0.5 "Throttle per m/s of speed error (driver speed control)";
  Vehicles.RTM14DoF vehicle(initialSpeed = targetSpeed);
equation
  vehicle.steeringWheelAngle = steerAmplitude*min(1, max(0, (time - stepTime)/stepDuration));
  vehicle.throttle = min(1, max(0, 0.12 + speedGain*(targetSpeed - vehicle.vx)));
  vehicle.brakePedal = 0;
  vehicle.brakePressure = 0;
  vehicle.rearWheelTorque = zeros(2);
  vehicle.roadFriction = ones(4);
  vehicle.roadHeight = zeros(4);
  annotation (experiment(StopTime = 5, Interval = 0.01), Documentation(info = "<html>
<p>Transient handling test after ISO 7401: at 80 km/h the steering wheel turns 40 deg to the left
in 0.2 s and is held. A proportional driver keeps the speed with the throttle. Look at yaw rate,
lateral acceleration, roll and sideslip: response time, overshoot and the steady state.</p>
</html>"));
end StepSteer;
