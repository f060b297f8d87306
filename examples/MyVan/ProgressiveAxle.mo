within MyVan;
model ProgressiveAxle "Map-based axle with a progressive spring and a digressive two-stage damper"
  extends VehicleRTM.Suspensions.PartialMapAxle;
  parameter VehicleRTM.Units.Force springPreload = 6000 "Spring force at the wheel centre at zero travel";
  parameter VehicleRTM.Units.TranslationalSpringConstant springRate = 35000 "Wheel rate at zero travel";
  parameter Real progression(unit = "N/m2") = 1.0e6
    "Rate rise in bump: the wheel rate is springRate + 2*progression*travel for travel > 0";
  parameter VehicleRTM.Units.TranslationalDampingConstant lowSpeedDamping = 12000
    "Damper slope below the knee velocity (along the damper)";
  parameter VehicleRTM.Units.TranslationalDampingConstant highSpeedDamping = 3000
    "Damper slope above the knee velocity";
  parameter VehicleRTM.Units.Velocity kneeVelocity = 0.1 "Damper velocity where the slope drops";
equation
  for i in 1:2 loop
    // Progressive in bump, linear in rebound; the maps' anti-roll term as in MapAxle.
    springForce[i] = springPreload + springRate*travel[i] + progression*noEvent(max(travel[i], 0))^2
      + side[i]*antiRollForce;
    // Two slopes meeting at +-kneeVelocity: lowSpeedDamping*v inside, continuing with highSpeedDamping outside.
    damperForce[i] = highSpeedDamping*damperVelocity[i]
      + (lowSpeedDamping - highSpeedDamping)*noEvent(max(-kneeVelocity, min(kneeVelocity, damperVelocity[i])));
  end for;
  annotation (Documentation(info = "<html>
<p>The map-based axle (<code>VehicleRTM.Suspensions.PartialMapAxle</code>: kinematics, compliance,
stops, anti-roll term and jacking from the axle's maps) with two force laws of its own instead of
the stiffness and damper maps of <code>VehicleRTM.Suspensions.MapAxle</code>:</p>
<ul>
<li><b>Progressive spring</b> at the wheel centre: F = springPreload + springRate*s +
progression*max(s, 0)<sup>2</sup> (s = wheel travel, positive in bump), so the wheel rate rises from
35 N/mm at design by 2 N/mm per mm of bump travel, plus the maps' anti-roll term.</li>
<li><b>Digressive two-stage damper</b> along the damper: slope lowSpeedDamping up to kneeVelocity in
either direction, highSpeedDamping beyond it (force continuous at the knee).</li>
</ul>
<p>With a preload of 6000 N under the van's 6581 N static corner load the spring settles about 12 mm
into bump (a linear 35 N/mm spring would settle 17 mm in), i.e. the van sits about 12 mm lower at
the front than on QuadLeaf's stiffness map, which carries the static load at design.</p>
</html>"));
end ProgressiveAxle;
