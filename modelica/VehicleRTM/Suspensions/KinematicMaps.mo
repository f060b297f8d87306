within VehicleRTM.Suspensions;
record KinematicMaps "2D kinematic maps of one wheel (left wheel; the right wheel is its mirror image)"
  parameter Units.Length u1[:]
    "First map argument: wheel travel (independent) or parallel travel zp (solid axle), positive in bump";
  parameter Units.Length u2[:]
    "Second map argument: rack travel (independent) or opposite travel zo (solid axle)";
  parameter Units.Length tx[size(u1, 1), size(u2, 1)]
    "Contact-patch longitudinal displacement (x forward; the tyre forces act there, jacking by virtual work)";
  parameter Units.Length ty[size(u1, 1), size(u2, 1)]
    "Contact-patch lateral displacement (y left; the tyre forces act there, jacking by virtual work)";
  parameter Units.Angle toe[size(u1, 1), size(u2, 1)]
    "Wheel rotation rz about z (ISO: positive = wheel heading turns left; toe-in of a left wheel is negative)";
  parameter Units.Angle camber[size(u1, 1), size(u2, 1)]
    "Camber angle (positive = wheel top outward)";
  parameter Units.Angle caster[size(u1, 1), size(u2, 1)]
    "Caster angle (positive = steering axis top rearward)";
  parameter Units.Length springLength[size(u1, 1), size(u2, 1)]
    "Spring length";
  parameter Units.Length damperLength[size(u1, 1), size(u2, 1)]
    "Damper length (its derivative is the damper installation ratio)";
  parameter Units.Length bumpStopLength[size(u1, 1), size(u2, 1)]
    "Bump-stop length (gap included; the stop engages below its contact length)";
  parameter Units.Length reboundStopLength[size(u1, 1), size(u2, 1)]
    "Rebound-stop length (the stop engages above its contact length)";
  parameter Units.Length antiRollBarLength[size(u1, 1), size(u2, 1)]
    "Anti-roll-bar drop-link length";
  parameter Boolean linearExtrapolation = true
    "Continue the maps linearly beyond the grid (keeps installation ratios outside the measured range)";
  annotation (Documentation(info = "<html>
<p>Kinematic maps of the left wheel of an axle, from the parallel and opposite wheel-travel tests
of the multibody model (LCV paper, Sect. <i>Kinematics and compliance</i>). Every output is a 2D
table over the fixed grid <code>u1 &times; u2</code>:</p>
<ul>
<li>independent suspension: <code>u1</code> = own wheel travel, <code>u2</code> = rack travel;</li>
<li>solid axle: <code>u1</code> = parallel travel zp = (zL+zR)/2, <code>u2</code> = opposite travel zo = (zL-zR)/2 (Eq. 2).</li>
</ul>
<p>The right wheel is the mirror image: it reads the map at (u1, -u2) and flips the signs of
<code>ty</code> and <code>toe</code>. Lengths of the force elements are used through their
derivatives with respect to wheel travel (installation ratios, Eq. 3-4).</p>
</html>"));
end KinematicMaps;
