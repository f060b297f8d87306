within VehicleRTM.Examples;
model SineSweep "Steering sine sweep (frequency response, ISO 7401) of the 3.5 t LCV at 80 km/h"
  parameter Units.Velocity targetSpeed = 80/3.6 "Test speed";
  parameter Units.Angle steerAmplitude = 20*3.14159265358979/180 "Steering-wheel amplitude";
  parameter Units.Frequency f0 = 0.2 "Start frequency";
  parameter Units.Frequency f1 = 2.0 "End frequency";
  parameter Units.Time sweepTime = 12 "Duration of the linear sweep";
  parameter Real speedGain(unit = "s/m") = 0.5 "Throttle per m/s of speed error (driver speed control)";
  Vehicles.RTM14DoF vehicle(initialSpeed = targetSpeed);
equation
  // Linear chirp: phase = 2*pi*(f0*t + (f1-f0)*t^2/(2*T))
  vehicle.steeringWheelAngle = steerAmplitude*sin(2*3.14159265358979*(f0*time + (f1 - f0)*time^2/(2*sweepTime)));
  vehicle.throttle = min(1, max(0, 0.12 + speedGain*(targetSpeed - vehicle.vx)));
  vehicle.brakePedal = 0;
  vehicle.brakePressure = 0;
  vehicle.rearWheelTorque = zeros(2);
  vehicle.roadFriction = ones(4);
  vehicle.roadHeight = zeros(4);
  annotation (experiment(StopTime = 12, Interval = 0.01), Documentation(info = "<html>
<p>Frequency-response test after ISO 7401: steering-wheel sine of 20 deg with the frequency
sweeping linearly from 0.2 to 2 Hz in 12 s at 80 km/h. Gives the yaw-rate and lateral-acceleration
gains and phase lags against frequency.</p>
</html>"));
end SineSweep;
