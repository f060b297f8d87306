within VehicleRTM.ADAS;
block AdaptiveCruise "Adaptive cruise control: follows a lead vehicle at a constant time gap with throttle and brake pedal"
  parameter Units.Velocity leadInitialSpeed = 20 "Speed of the lead vehicle at the start";
  parameter Units.Velocity leadFinalSpeed = 15 "Speed of the lead vehicle after its speed change";
  parameter Units.Time leadChangeStart = 2 "Time at which the lead vehicle starts to change speed";
  parameter Units.Time leadChangeDuration = 4 "Duration of the lead vehicle's linear speed change (> 0)";
  parameter Units.Length initialGap = 35 "Gap (bumper to bumper) to the lead vehicle at the start";
  parameter Units.Length standstillGap = 5 "Desired gap at standstill";
  parameter Units.Time timeGap = 1.5 "Desired time gap: desiredGap = standstillGap + timeGap*speed";
  parameter Real gapGain(unit = "s-2") = 0.2 "Acceleration demand per metre of gap error";
  parameter Real speedGain(unit = "s-1") = 0.8 "Acceleration demand per m/s of closing speed (lead minus own)";
  parameter Real integralGain(unit = "s-3") = 0.02 "Acceleration demand per m.s of integrated gap error";
  parameter Units.Acceleration initialDemand = 0.3
    "Acceleration demand of the integral part at the start (the throttle that holds the initial speed)";
  parameter Units.Acceleration throttleAcceleration = 2 "Acceleration demand that asks for full throttle";
  parameter Units.Acceleration brakeDeceleration = 8 "Deceleration demand that asks for full brake pedal";
  input Units.Velocity speed "Speed of the controlled vehicle (the vehicle model's output speed)";
  output Units.Ratio throttle "Accelerator pedal 0..1 (to the vehicle model's input throttle)";
  output Units.Ratio brakePedal "Brake pedal 0..1 (to the vehicle model's input brakePedal)";
  output Units.Velocity leadSpeed "Speed of the lead vehicle";
  output Units.Length gap(start = initialGap, fixed = true) "Gap to the lead vehicle";
  output Units.Length desiredGap "Gap the controller aims at";
  output Units.Acceleration accelerationDemand "Acceleration the controller asks for (negative: braking)";
  Real gapErrorIntegral(unit = "m.s", start = initialDemand/integralGain, fixed = true)
    "Integrated gap error";
equation
  assert(leadChangeDuration > 0, "leadChangeDuration = " + String(leadChangeDuration)
    + " s: the lead vehicle's speed change needs a duration > 0");
  assert(integralGain <> 0, "integralGain = " + String(integralGain)
    + ": must be non-zero (the integral starts at initialDemand/integralGain)");
  leadSpeed = leadInitialSpeed + (leadFinalSpeed - leadInitialSpeed)*min(max((time - leadChangeStart)/leadChangeDuration, 0), 1);
  der(gap) = leadSpeed - speed;
  desiredGap = standstillGap + timeGap*speed;
  der(gapErrorIntegral) = gap - desiredGap;
  accelerationDemand = gapGain*(gap - desiredGap) + speedGain*(leadSpeed - speed) + integralGain*gapErrorIntegral;
  throttle = min(max(accelerationDemand/throttleAcceleration, 0), 1);
  brakePedal = min(max(-accelerationDemand/brakeDeceleration, 0), 1);
  annotation (Documentation(info = "<html>
<p>A constant-time-gap adaptive cruise controller, the closed-loop example of the co-simulation
bridge. The lead vehicle drives at <code>leadInitialSpeed</code> and changes linearly to
<code>leadFinalSpeed</code> between <code>leadChangeStart</code> and
<code>leadChangeStart + leadChangeDuration</code>. The gap follows from the two speeds,
<code>der(gap) = leadSpeed - speed</code>. The controller asks for the acceleration</p>
<pre>
accelerationDemand = gapGain*(gap - desiredGap) + speedGain*(leadSpeed - speed)
                   + integralGain*integral(gap - desiredGap),   desiredGap = standstillGap + timeGap*speed
</pre>
<p>and turns it into pedals: <code>throttle = accelerationDemand/throttleAcceleration</code> when
positive, <code>brakePedal = -accelerationDemand/brakeDeceleration</code> when negative, each
clamped to 0..1. The integral part holds the throttle that balances drag and rolling resistance,
so at a constant lead speed the gap settles at <code>desiredGap</code> and the speed at
<code>leadSpeed</code>; it starts at <code>initialDemand</code>.</p>
<p>Inputs and outputs carry the vehicle model's names and units, so in a system file the
connections are <code>vehicle.speed -&gt; acc.speed</code>, <code>acc.throttle -&gt;
vehicle.throttle</code>, <code>acc.brakePedal -&gt; vehicle.brakePedal</code>.</p>
</html>"));
end AdaptiveCruise;
