package MyVanOneFile "The worked example MyVan as one file, as a Modelica editor saves a new package"
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
  model MyVan "The 3.5 t van with the progressive-spring, digressive-damper front axle"
    extends VehicleRTM.Vehicles.RTM14DoF(redeclare ProgressiveAxle frontAxle);
    annotation (Documentation(info = "<html>
  <p><code>VehicleRTM.Vehicles.RTM14DoF</code> with its front axle redeclared as
  <a href=\"modelica://MyVanOneFile.ProgressiveAxle\">ProgressiveAxle</a>: other equations for the spring and
  the damper, the same maps for everything else (the RTM's axle modifiers apply to the replacement).</p>
  </html>"));
  end MyVan;
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
  annotation (Documentation(info = "<html>
<p>The same three classes as the folder package <code>examples/MyVan</code>, nested in one file
(the single-file form of the Modelica specification, section 13.4, which OMEdit and Dymola write for a
new package), found on the Modelica path the same way:</p>
<pre>MODELICAPATH=examples fmu-build MyVanOneFile.MyVan -o out
fmu-build MyVanOneFile.MyVan --modelica-path examples -o out</pre>
</html>"));
end MyVanOneFile;
