within VehicleRTM.Suspensions.Corners;
function orientation "Rotation matrix of the unsprung mass (toe about Z, camber about X', rotY about Y'') and its derivative with respect to the travel"
  input VehicleRTM.Units.Angle toe "Toe angle, positive toe-in";
  input VehicleRTM.Units.Angle camber "Camber angle, positive top outward";
  input VehicleRTM.Units.Angle rotY "Third rotation about Y''";
  input Real dtoe(unit = "rad/m") "d(toe)/dz";
  input Real dcamber(unit = "rad/m") "d(camber)/dz";
  input Real drotY(unit = "rad/m") "d(rotY)/dz";
  input Real side(unit = "1") = 1 "+1 left corner, -1 right corner";
  output Real R[3, 3](each unit = "1") "Rotation matrix, unsprung-mass axes to body axes";
  output Real dR[3, 3](each unit = "1/m") "dR/dz";
protected
  VehicleRTM.Units.Angle psi "Rotation about Z";
  VehicleRTM.Units.Angle phi "Rotation about X'";
  VehicleRTM.Units.Angle theta "Rotation about Y''";
  Real Rz[3, 3](each unit = "1");
  Real Rx[3, 3](each unit = "1");
  Real Ry[3, 3](each unit = "1");
  Real dRz[3, 3](each unit = "1") "dRz/dpsi";
  Real dRx[3, 3](each unit = "1") "dRx/dphi";
  Real dRy[3, 3](each unit = "1") "dRy/dtheta";
algorithm
  psi := -side*toe;
  phi := -side*camber;
  theta := rotY;
  Rz := [cos(psi), -sin(psi), 0; sin(psi), cos(psi), 0; 0, 0, 1];
  Rx := [1, 0, 0; 0, cos(phi), -sin(phi); 0, sin(phi), cos(phi)];
  Ry := [cos(theta), 0, sin(theta); 0, 1, 0; -sin(theta), 0, cos(theta)];
  dRz := [-sin(psi), -cos(psi), 0; cos(psi), -sin(psi), 0; 0, 0, 0];
  dRx := [0, 0, 0; 0, -sin(phi), -cos(phi); 0, cos(phi), -sin(phi)];
  dRy := [-sin(theta), 0, cos(theta); 0, 0, 0; -cos(theta), 0, -sin(theta)];
  R := Rz*Rx*Ry;
  dR := (-side*dtoe)*(dRz*Rx*Ry) + (-side*dcamber)*(Rz*dRx*Ry) + drotY*(Rz*Rx*dRy);
  annotation (Documentation(info = "<html>
<p>Orientation of the unsprung mass as three body-fixed rotations (paper, Sec. 3):
<i>R = R<sub>Z</sub>(&psi;) R<sub>X</sub>(&phi;) R<sub>Y</sub>(&theta;)</i>, first about Z, then about
the rotated X', then about Y''. The automotive angles map to the rotation angles as</p>
<ul>
<li>&psi; = -side&middot;toe: toe-in turns the front of a left wheel (side = +1) towards -y, a negative
rotation about z; on the right wheel (side = -1) it is a positive rotation;</li>
<li>&phi; = -side&middot;camber: positive camber tilts the top of a left wheel outward (+y), a negative
rotation about x;</li>
<li>&theta; = rotY on both sides (mirroring in the x-z plane leaves rotations about y unchanged).</li>
</ul>
<p>This is the mirror relation <i>R<sub>right</sub> = M R<sub>left</sub> M</i>, M = diag(1, -1, 1).
<code>dR</code> is the derivative with respect to the travel by the product rule, with the angle
derivatives from <a href=\"modelica://VehicleRTM.Suspensions.Corners.wheelAngles\">wheelAngles</a>.</p>
</html>"));
end orientation;
