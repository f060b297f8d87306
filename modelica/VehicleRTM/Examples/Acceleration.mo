within VehicleRTM.Examples;
model Acceleration "Full-throttle acceleration of the 3.5 t LCV on a straight, level road"
  parameter Units.Velocity initialSpeed = 5 "Initial speed";
  Vehicles.RTM14DoF vehicle(initialSpeed = initialSpeed);
equation
  vehicle.steeringWheelAngle = 0;
  vehicle.throttle = min(1, max(0, time - 0.5)/0.3);
  vehicle.brakePedal = 0;
  vehicle.brakePressure = 0;
  vehicle.rearWheelTorque = zeros(2);
  vehicle.roadFriction = ones(4);
  vehicle.roadHeight = zeros(4);
  annotation (experiment(StopTime = 15, Interval = 0.01), Documentation(info = "<html>
<p>Longitudinal dynamics: from 5 m/s the throttle goes to full in 0.3 s and stays. The gearbox
shifts up through its schedule. Look at longitudinal acceleration, speed, gear, engine speed and
pitch (squat: pitch negative, nose up).</p>
</html>"));
end Acceleration;
