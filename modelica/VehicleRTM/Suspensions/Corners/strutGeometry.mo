within VehicleRTM.Suspensions.Corners;
function strutGeometry "Strut length between its mounts and its derivative dL/dz along the kinematic path"
  input VehicleRTM.Units.Position z "Vertical travel (positive in bump)";
  input VehicleRTM.Suspensions.Corners.CornerData data "Corner data (left corner)";
  input Real side(unit = "1") = 1 "+1 left corner, -1 right corner";
  output VehicleRTM.Units.Length L "Distance between the upper (body) and lower (unsprung) mount";
  output Real dLdz(unit = "1") "dL/dz, the installation ratio (negative when bump compresses the strut)";
protected
  VehicleRTM.Units.Position w[3] "Wheel-centre displacement";
  Real dw[3](each unit = "1") "dw/dz";
  Real d2w[3](each unit = "1/m") "d2w/dz2 (unused)";
  VehicleRTM.Units.Angle toe;
  VehicleRTM.Units.Angle camber;
  VehicleRTM.Units.Angle rotY;
  Real dtoe(unit = "rad/m");
  Real dcamber(unit = "rad/m");
  Real drotY(unit = "rad/m");
  Real R[3, 3](each unit = "1");
  Real dR[3, 3](each unit = "1/m");
  Real R0[3, 3](each unit = "1") "Orientation at design ride height";
  Real dR0[3, 3](each unit = "1/m") "(unused)";
  VehicleRTM.Units.Position s[3] "Lower mount in unsprung-mass axes, relative to the wheel centre";
  VehicleRTM.Units.Position rU[3] "Upper mount (mirrored)";
  VehicleRTM.Units.Position p[3] "Vector from the upper to the lower mount";
  Real dp[3](each unit = "1") "dp/dz";
algorithm
  (w, dw, d2w) := VehicleRTM.Suspensions.Corners.wheelCentre(z, data, side);
  (toe, camber, rotY, dtoe, dcamber, drotY) := VehicleRTM.Suspensions.Corners.wheelAngles(0, data);
  (R0, dR0) := VehicleRTM.Suspensions.Corners.orientation(toe, camber, rotY, dtoe, dcamber, drotY, side);
  (toe, camber, rotY, dtoe, dcamber, drotY) := VehicleRTM.Suspensions.Corners.wheelAngles(z, data);
  (R, dR) := VehicleRTM.Suspensions.Corners.orientation(toe, camber, rotY, dtoe, dcamber, drotY, side);
  s := transpose(R0)*{data.rLower[1], side*data.rLower[2], data.rLower[3]};
  rU := {data.rUpper[1], side*data.rUpper[2], data.rUpper[3]};
  p := w + R*s - rU;
  dp := dw + dR*s;
  L := sqrt(p*p);
  dLdz := (p*dp)/L;
  annotation (Documentation(info = "<html>
<p>The lower strut mount is fixed to the unsprung mass. Its body-axes position at travel <i>z</i> is</p>
<p><i>r<sub>L</sub>(z) = w(z) + R(z) R(0)<sup>T</sup> r<sub>L,0</sub></i>,</p>
<p>with <i>w(z)</i> the wheel-centre displacement
(<a href=\"modelica://VehicleRTM.Suspensions.Corners.wheelCentre\">wheelCentre</a>), <i>R(z)</i> the
orientation (<a href=\"modelica://VehicleRTM.Suspensions.Corners.orientation\">orientation</a>) and
<i>r<sub>L,0</sub></i> the design position of the mount (<code>data.rLower</code>, mirrored for a right
corner). The strut length is <i>L = |r<sub>L</sub> - r<sub>U</sub>|</i> and its derivative</p>
<p><i>dL/dz = (r<sub>L</sub> - r<sub>U</sub>)&middot;(w'(z) + R'(z) R(0)<sup>T</sup> r<sub>L,0</sub>) / L</i>.</p>
<p><b>Line of action, virtual work.</b> A force <i>F</i> along the strut (positive pushing the mounts
apart) does the virtual work <i>F &delta;L = F (dL/dz) &delta;z</i>, so its generalized force on the
travel coordinate is <i>Q = F&middot;dL/dz</i>, and the piston speed is
<i>v = (dL/dz)&middot;&zdot;</i>. Both hold exactly for the nonlinear path, whatever the strut
inclination; <i>|dL/dz|</i> is the (travel-dependent) installation ratio.</p>
</html>"));
end strutGeometry;
