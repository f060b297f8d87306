within VehicleRTM.Suspensions;
model MapAxle "Map-based axle: kinematics and compliance, vertical stiffness, anti-roll term, dampers and stops"
  extends PartialMapAxle;
equation
  for i in 1:2 loop
    // Force elements (Eq. 3-4): the damper map against the damper's length rate; the parallel-travel
    // stiffness map at the own travel plus the anti-roll term with the sign of the side.
    damperForce[i] = Tables.interp1(data.damper.velocity, data.damper.force, damperVelocity[i], true);
    springForce[i] = Tables.interp1(data.stiffness.travel, data.stiffness.parallelForce, travel[i], true)
      + side[i]*antiRollForce;
  end for;
  annotation (Documentation(info = "<html>
<p>The map-based axle of the LCV paper (the force laws here, the rest in
<a href=\"modelica://VehicleRTM.Suspensions.PartialMapAxle\">PartialMapAxle</a>), the same structure for every suspension design:</p>
<ul>
<li><b>Kinematics</b>: 2D maps of the left wheel (wheel travel &times; rack travel for independent
wheels; parallel &times; opposite travel for a solid axle); the right wheel is the mirror image.</li>
<li><b>Compliance</b>: 1D maps against Fx, Fy, Mz on the own and the opposite wheel, superposed on
the kinematics (Eq. 1).</li>
<li><b>Vertical stiffness</b>: parallel-travel map at the own travel plus the anti-roll term
opposite(zo) - parallel(zo) with the sign of the side; negative for a typical solid axle.</li>
<li><b>Dampers and stops</b>: 1D maps of the element against its length (rate), brought to the wheel
centre by the length derivative of the kinematic map (Eq. 3, Eq. 4).</li>
<li><b>Jacking</b>: the tyre horizontal forces act on the wheel travels through the derivatives of
the wheel-centre path (virtual work), which is what a roll centre does in a geometric model. The same derivatives times the travel
rates give the contact point's velocity relative to the body (<code>contactPathVx</code>,
<code>contactPathVy</code>), which the vehicle adds to the body's motion for the tyre slip, so that
the jacking forces and the slip are power-consistent.</li>
</ul>
<p>Sign conventions: travel positive in bump; <code>verticalForce</code> pushes the wheel down and the
body up; damper force positive in tension with velocity positive in extension.</p>
</html>"));
end MapAxle;
