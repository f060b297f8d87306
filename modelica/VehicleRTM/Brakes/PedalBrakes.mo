within VehicleRTM.Brakes;
block PedalBrakes "Brake pedal to brake torque per wheel through one gain per axle"
  parameter Units.Torque torqueGainFront = 8000
    "Front-axle brake torque (both wheels) per unit pedal, i.e. at full pedal";
  parameter Units.Torque torqueGainRear = 4500
    "Rear-axle brake torque (both wheels) per unit pedal, i.e. at full pedal";
  input Units.Ratio pedal "Brake pedal travel fraction: 0 released, 1 full braking; clamped to 0..1";
  output Units.Torque brakeTorque[4] "Brake torque magnitude per wheel FL, FR, RL, RR (non-negative)";
protected
  Units.Ratio pedalLimited "Pedal clamped to 0..1";
equation
  pedalLimited = min(max(pedal, 0), 1);
  brakeTorque[1] = torqueGainFront*pedalLimited/2;
  brakeTorque[2] = torqueGainFront*pedalLimited/2;
  brakeTorque[3] = torqueGainRear*pedalLimited/2;
  brakeTorque[4] = torqueGainRear*pedalLimited/2;
  annotation (Documentation(info = "<html>
<p>Brake system of the LCV paper: a pedal-to-brake-torque actuation gain per axle. The pedal input
is the pedal travel as a fraction of the travel for full braking (0 = released, 1 = full
braking, clamped to 0..1); pedal travel, line pressure and brake torque are taken as linear
(no pedal free travel, no booster knee, no fading). Each axle's torque is split equally between
its wheels:</p>
<pre>
brakeTorque[1] = brakeTorque[2] = torqueGainFront*pedal/2   (FL, FR)
brakeTorque[3] = brakeTorque[4] = torqueGainRear*pedal/2    (RL, RR)
</pre>
<p>The outputs are magnitudes (non-negative); the vehicle model turns them into torques opposing
the wheel spin with <a href=\"modelica://VehicleRTM.Brakes.wheelBrakeTorque\">wheelBrakeTorque</a>.
</p>
<p>Defaults for a 3.5 t van: 12.5 kN.m in total at full pedal, about 1.0 g at 3.5 t with 0.35 m tyre
radius, split 64/36 front/rear (disc brakes on both axles, distribution for the laden van);
plausible from public specifications, not data of a specific vehicle.</p>
</html>"));
end PedalBrakes;
