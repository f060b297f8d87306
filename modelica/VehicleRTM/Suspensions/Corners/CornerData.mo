within VehicleRTM.Suspensions.Corners;
record CornerData "SLEKQ corner: kinematic path, strut line of action, cubic spring, Bezier-blended damper, masses, tyre"
  // Kinematic path of the wheel centre (translation relative to its design position, body axes)
  parameter Real xPath1(unit = "1") = 0 "x(z) = xPath1*z + xPath2*z^2 + xPath3*z^3: linear coefficient (dx/dz at z = 0)";
  parameter Real xPath2(unit = "1/m") = 0 "Quadratic coefficient of x(z)";
  parameter Real xPath3(unit = "1/m2") = 0 "Cubic coefficient of x(z)";
  parameter Real yPath1(unit = "1") = 0 "y(z) = yPath1*z + yPath2*z^2 + yPath3*z^3 (left corner, +y outward): linear coefficient";
  parameter Real yPath2(unit = "1/m") = 0 "Quadratic coefficient of y(z)";
  parameter Real yPath3(unit = "1/m2") = 0 "Cubic coefficient of y(z)";
  // Orientation of the unsprung mass along the path (automotive angles, same meaning on both sides)
  parameter VehicleRTM.Units.Angle toe0 = 0 "toe(z) = toe0 + toe1*z + toe2*z^2 + toe3*z^3, positive toe-in: static toe";
  parameter Real toe1(unit = "rad/m") = 0 "Linear coefficient of toe(z) (bump steer)";
  parameter Real toe2(unit = "rad/m2") = 0 "Quadratic coefficient of toe(z)";
  parameter Real toe3(unit = "rad/m3") = 0 "Cubic coefficient of toe(z)";
  parameter VehicleRTM.Units.Angle camber0 = 0 "camber(z) = camber0 + ... , positive top outward: static camber";
  parameter Real camber1(unit = "rad/m") = 0 "Linear coefficient of camber(z) (camber gain)";
  parameter Real camber2(unit = "rad/m2") = 0 "Quadratic coefficient of camber(z)";
  parameter Real camber3(unit = "rad/m3") = 0 "Cubic coefficient of camber(z)";
  parameter VehicleRTM.Units.Angle rotY0 = 0 "Third rotation (about the twice-rotated Y'' axis, right-hand rule, top forward) rotY(z) = rotY0 + ...: static value";
  parameter Real rotY1(unit = "rad/m") = 0 "Linear coefficient of rotY(z)";
  parameter Real rotY2(unit = "rad/m2") = 0 "Quadratic coefficient of rotY(z)";
  parameter Real rotY3(unit = "rad/m3") = 0 "Cubic coefficient of rotY(z)";
  // Strut line of action (left corner, body axes, origin at the design wheel centre)
  parameter VehicleRTM.Units.Position rUpper[3] = {0, 0, 0.5} "Upper strut mount on the body";
  parameter VehicleRTM.Units.Position rLower[3] = {0, 0, 0} "Lower strut mount on the unsprung mass, at design ride height (z = 0)";
  // Cubic spring, Eq. 2: F = k3*dL^3 + k2*dL^2 + k1*dL + k0, dL = compression from the free length
  parameter VehicleRTM.Units.Force k0 = 0 "Constant term of the spring force";
  parameter VehicleRTM.Units.TranslationalSpringConstant k1(min = 0) = 30000 "Linear spring rate";
  parameter Real k2(unit = "N/m2") = 0 "Quadratic spring coefficient";
  parameter Real k3(unit = "N/m3") = 0 "Cubic spring coefficient";
  parameter VehicleRTM.Units.Length freeLength = 0.64715 "Strut length at which the spring force is k0 (dL = 0); used when the model does not compute it from the design load";
  // Damper, Eq. 1 (piston speed v = dL/dt, negative in bump/compression)
  parameter VehicleRTM.Units.TranslationalDampingConstant d1(min = 0) = 1500 "Low-speed bump (compression) rate";
  parameter VehicleRTM.Units.Velocity d2(min = 0) = 0.1 "Bump transition speed (transition at v = -d2)";
  parameter VehicleRTM.Units.TranslationalDampingConstant d3(min = 0) = 1500 "High-speed bump rate";
  parameter VehicleRTM.Units.TranslationalDampingConstant d4(min = 0) = 1500 "Low-speed rebound (extension) rate";
  parameter VehicleRTM.Units.Velocity d5(min = 0) = 0.1 "Rebound transition speed (transition at v = d5)";
  parameter VehicleRTM.Units.TranslationalDampingConstant d6(min = 0) = 1500 "High-speed rebound rate";
  parameter VehicleRTM.Units.Velocity blend = 0.01 "Half-width of the quadratic Bezier blends at v = -d2, 0, d5 (0: sharp corners)";
  // Strut friction (a leaf pack's inter-leaf friction), Dahl law
  parameter VehicleRTM.Units.Force fFriction(min = 0) = 0 "Coulomb friction force along the strut (0: none)";
  parameter VehicleRTM.Units.Length xFriction(min = 0) = 0.001 "Presliding compression of the friction: after a reversal the force builds up to fFriction over about this length (initial rate fFriction/xFriction)";
  // Masses and tyre
  parameter VehicleRTM.Units.Mass mUnsprung(min = 0) = 45 "Unsprung mass (all linkages lumped, identified)";
  parameter VehicleRTM.Units.Mass mSprung(min = 0) = 450 "Sprung mass carried by this corner at design ride height (corner weight minus unsprung weight, over g)";
  parameter VehicleRTM.Units.TranslationalSpringConstant cTyre(min = 0) = 250000 "Tyre vertical stiffness";
  parameter VehicleRTM.Units.TranslationalDampingConstant dTyre(min = 0) = 100 "Tyre vertical damping";
  annotation (Documentation(info = "<html>
<p>Parameters of one corner of a single-link equivalent kinematic quarter-car (SLEKQ). The record
describes the <b>left</b> corner; <a href=\"modelica://VehicleRTM.QuarterCars.SLEKQ\">SLEKQ</a>
mirrors it for a right corner (<code>side = -1</code>).</p>
<h4>Kinematic path (paper, Sec. 3)</h4>
<p>The single degree of freedom is the vertical travel <i>z</i> of the wheel centre relative to the
body, positive in bump, zero at design ride height. The wheel centre moves by
(x(z), y(z), z) in body axes, x and y being cubic polynomials without constant term. The
orientation of the unsprung mass is given by three body-fixed rotations, each a cubic polynomial of
<i>z</i>: first toe (about Z), then camber (about the rotated X'), then the third rotation rotY (about
Y''). Toe (positive toe-in) and camber (positive top outward) are the automotive angles; see
<a href=\"modelica://VehicleRTM.Suspensions.Corners.orientation\">orientation</a> for the rotation
matrix on either side.</p>
<h4>Strut line of action</h4>
<p><code>rUpper</code> is fixed to the body; <code>rLower</code> is fixed to the unsprung mass and
moves with its translation and rotation. Both are given in body axes relative to the design wheel
centre. The spring and the damper both act along the line between them; the strut length
<i>L(z)</i> is the mount-to-mount distance.</p>
<h4>Force elements</h4>
<ul>
<li>Spring, Eq. 2: <i>F<sub>k</sub> = k3 &Delta;L<sup>3</sup> + k2 &Delta;L<sup>2</sup> + k1 &Delta;L + k0</i>,
<i>&Delta;L = freeLength - L</i> (compression), positive force pushes the mounts apart.</li>
<li>Damper, Eq. 1 with C1 Bezier blends, see
<a href=\"modelica://VehicleRTM.Suspensions.Corners.damperForce\">damperForce</a>.</li>
<li>Friction (a multi-leaf pack's inter-leaf friction), Dahl's law along the strut:
<i>F<sub>f</sub> = -fFriction&middot;s</i>, <i>ds/dt = (v - |v| s)/xFriction</i>, <i>v</i> the piston speed:
<i>s</i> stays within &plusmn;1, the force reaches &plusmn;fFriction while the strut slides and after a
reversal changes with the rate fFriction/xFriction, so a loop of small amplitude is stiffer and
narrower than a Coulomb loop. fFriction = 0 (default) gives no force.</li>
</ul>
<h4>Defaults</h4>
<p>The defaults are the classic linear quarter car: vertical strut (installation ratio 1), no
kinematic path, linear spring of 30 kN/m, symmetric linear damper of 1500 N&middot;s/m, 45 kg
unsprung and 450 kg sprung mass; <code>freeLength</code> = 0.5 m + 450&middot;9.81/30000 m puts
z = 0 in static equilibrium. The variants
<a href=\"modelica://VehicleRTM.Suspensions.Corners.MacPherson\">MacPherson</a> and
<a href=\"modelica://VehicleRTM.Suspensions.Corners.SemiTrailingArm\">SemiTrailingArm</a> extend
this record.</p>
</html>"));
end CornerData;
