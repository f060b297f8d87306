within VehicleRTM.Suspensions;
package Corners "SLEKQ corner descriptions: kinematic path, strut line of action, cubic spring, Bezier-blended damper"
  annotation (Documentation(info = "<html>
<p>Records and functions that describe one corner of a single-link equivalent kinematic quarter-car
(SLEKQ, Hall, Uchida, Loh, Schmitke, McPhee, <i>Reduction of a vehicle multibody dynamic model using
homotopy optimization</i>, Arch. Mech. Eng. LX(1), 2013). The dynamic model that uses them is
<a href=\"modelica://VehicleRTM.QuarterCars.SLEKQ\">QuarterCars.SLEKQ</a>.</p>
<h4>Records</h4>
<ul>
<li><a href=\"modelica://VehicleRTM.Suspensions.Corners.CornerData\">CornerData</a>: base record; its
defaults describe the classic linear quarter car (vertical strut, no kinematic path).</li>
<li><a href=\"modelica://VehicleRTM.Suspensions.Corners.MacPherson\">MacPherson</a> and
<a href=\"modelica://VehicleRTM.Suspensions.Corners.SemiTrailingArm\">SemiTrailingArm</a>: the two
variants of the paper (front MacPherson strut, rear semi-trailing-arm multilink) with plausible
mid-size SUV data. Concrete vehicle records extend them (see
<a href=\"modelica://VehicleRTM.Data.SUV\">Data.SUV</a>).</li>
</ul>
<h4>Functions</h4>
<ul>
<li><a href=\"modelica://VehicleRTM.Suspensions.Corners.damperForce\">damperForce</a>: Eq. 1 with
quadratic Bezier blends (C1).</li>
<li><a href=\"modelica://VehicleRTM.Suspensions.Corners.springForce\">springForce</a>: Eq. 2.</li>
<li><a href=\"modelica://VehicleRTM.Suspensions.Corners.wheelCentre\">wheelCentre</a>,
<a href=\"modelica://VehicleRTM.Suspensions.Corners.wheelAngles\">wheelAngles</a>,
<a href=\"modelica://VehicleRTM.Suspensions.Corners.orientation\">orientation</a>: the kinematic
path of the unsprung mass (polynomials of the vertical travel).</li>
<li><a href=\"modelica://VehicleRTM.Suspensions.Corners.strutGeometry\">strutGeometry</a>: strut
length and installation ratio dL/dz along the path.</li>
<li><a href=\"modelica://VehicleRTM.Suspensions.Corners.freeLength\">freeLength</a>: spring free
length that puts the design ride height in static equilibrium (paper, Sec. 4).</li>
</ul>
<h4>Coordinates and signs</h4>
<p>A corner record describes the <b>left</b> corner of its axle in body axes (ISO 8855: x forward,
y left, z up), with the origin at the design position of the wheel centre. The right corner is its
mirror image in the x-z plane (the model parameter <code>side = -1</code> mirrors y, toe and camber).
The vertical travel z of the wheel centre relative to the body is positive in bump.</p>
</html>"));
end Corners;
