within VehicleRTM.Suspensions.Corners;
function wheelAngles "Toe, camber and third rotation of the unsprung mass along the kinematic path, with their derivatives"
  input VehicleRTM.Units.Position z "Vertical travel (positive in bump)";
  input VehicleRTM.Suspensions.Corners.CornerData data "Corner data";
  output VehicleRTM.Units.Angle toe "Toe angle, positive toe-in";
  output VehicleRTM.Units.Angle camber "Camber angle, positive top outward";
  output VehicleRTM.Units.Angle rotY "Third rotation about Y'' (right-hand rule, top forward)";
  output Real dtoe(unit = "rad/m") "d(toe)/dz";
  output Real dcamber(unit = "rad/m") "d(camber)/dz";
  output Real drotY(unit = "rad/m") "d(rotY)/dz";
algorithm
  toe := data.toe0 + z*(data.toe1 + z*(data.toe2 + z*data.toe3));
  camber := data.camber0 + z*(data.camber1 + z*(data.camber2 + z*data.camber3));
  rotY := data.rotY0 + z*(data.rotY1 + z*(data.rotY2 + z*data.rotY3));
  dtoe := data.toe1 + z*(2*data.toe2 + 3*z*data.toe3);
  dcamber := data.camber1 + z*(2*data.camber2 + 3*z*data.camber3);
  drotY := data.rotY1 + z*(2*data.rotY2 + 3*z*data.rotY3);
  annotation (Documentation(info = "<html>
<p>Cubic polynomials of the vertical travel for the three body-fixed rotations that orient the
unsprung mass (paper, Sec. 3): toe (about Z, positive toe-in), camber (about the rotated X',
positive top outward) and the third rotation rotY (about Y''). Toe and camber are the automotive
angles, so they have the same value and sign convention on the left and on the right corner; the
mirroring into rotation angles is done in
<a href=\"modelica://VehicleRTM.Suspensions.Corners.orientation\">orientation</a>.</p>
</html>"));
end wheelAngles;
