within VehicleRTM.Suspensions.Corners;
function wheelCentre "Wheel-centre displacement along the kinematic path and its first two derivatives with respect to the travel"
  input VehicleRTM.Units.Position z "Vertical travel (positive in bump)";
  input VehicleRTM.Suspensions.Corners.CornerData data "Corner data (left corner)";
  input Real side(unit = "1") = 1 "+1 left corner, -1 right corner (mirror in the x-z plane)";
  output VehicleRTM.Units.Position r[3] "Displacement of the wheel centre from its design position (body axes)";
  output Real drdz[3](each unit = "1") "dr/dz";
  output Real d2rdz2[3](each unit = "1/m") "d2r/dz2";
algorithm
  r := {z*(data.xPath1 + z*(data.xPath2 + z*data.xPath3)),
        side*z*(data.yPath1 + z*(data.yPath2 + z*data.yPath3)),
        z};
  drdz := {data.xPath1 + z*(2*data.xPath2 + 3*z*data.xPath3),
           side*(data.yPath1 + z*(2*data.yPath2 + 3*z*data.yPath3)),
           1};
  d2rdz2 := {2*data.xPath2 + 6*z*data.xPath3,
             side*(2*data.yPath2 + 6*z*data.yPath3),
             0};
  annotation (Documentation(info = "<html>
<p>Translation of the wheel centre along the SLEKQ kinematic path, in body axes:
<i>r(z) = (x(z), side&middot;y(z), z)</i> with the cubic polynomials of
<a href=\"modelica://VehicleRTM.Suspensions.Corners.CornerData\">CornerData</a> (no constant term: the
origin is the design wheel centre). <i>y(z)</i> is given for the left corner (positive outward); the
right corner mirrors it with <code>side = -1</code>. The derivatives give the velocity direction of
the unsprung mass (kinetic energy <i>m|dr/dz|<sup>2</sup>&zdot;<sup>2</sup>/2</i>).</p>
</html>"));
end wheelCentre;
