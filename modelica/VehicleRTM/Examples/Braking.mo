within VehicleRTM.Examples;
model Braking "Straight-line braking of the 3.5 t LCV from 80 km/h"
  parameter Units.Velocity initialSpeed = 80/3.6 "Initial speed";
  parameter Units.Ratio pedal = 0.4 "Brake pedal in the hold phase";
  parameter Units.Time brakeStart = 1 "Start of braking";
  Vehicles.RTM14DoF vehicle(initialSpeed = initialSpeed);
equation
  vehicle.steeringWheelAngle = 0;
  vehicle.throttle = 0;
  vehicle.brakePedal = pedal*min(1, max(0, (time - brakeStart)/0.3));
  vehicle.brakePressure = 0;
  vehicle.rearWheelTorque = zeros(2);
  vehicle.roadFriction = ones(4);
  vehicle.roadHeight = zeros(4);
  annotation (experiment(StopTime = 5, Interval = 0.01), Documentation(info = "<html>
<p>Longitudinal dynamics: at 80 km/h the brake pedal rises to 40 % in 0.3 s and is held (about 5.5 m/s2). Look at
deceleration, dive (pitch positive, nose down) and the front/rear load transfer.</p>
</html>"));
end Braking;
