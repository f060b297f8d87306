within VehicleRTM.QuarterCars;
model SLEKQ "Single-link equivalent kinematic quarter-car: unsprung mass on a kinematic path, strut along its line of action, homotopy coupling"
  replaceable parameter VehicleRTM.Suspensions.Corners.CornerData data
    constrainedby VehicleRTM.Suspensions.Corners.CornerData "Corner data (left corner; mirrored when side = -1)"
    annotation (choicesAllMatching = true);
  parameter Real side(unit = "1") = 1 "+1 left corner, -1 right corner (mirror in the x-z plane)";
  parameter Boolean pathInertia = true "true: kinetic energy of the horizontal path motion, m(x'^2 + y'^2)zdot^2/2, is included";
  parameter Boolean freeLengthFromLoad = true "true: spring free length so that z = 0 is the static equilibrium under FDesign; false: data.freeLength";
  parameter VehicleRTM.Units.Acceleration g = 9.81 "Gravitational acceleration";
  parameter VehicleRTM.Units.Force FDesign = data.mSprung*g "Sprung load on the corner at design ride height (used when freeLengthFromLoad)";
  parameter Real NI(unit = "N/m") = 1.0e5 "Normalisation of the position error in the homotopy term";
  parameter Real NP(unit = "N.s/m") = 1.0e4 "Normalisation of the velocity error in the homotopy term";
  parameter VehicleRTM.Units.Mass ND = 50 "Normalisation of the acceleration error in the homotopy term";
  parameter VehicleRTM.Units.Position z0 = 0 "Initial travel";
  parameter VehicleRTM.Units.Velocity v0 = 0 "Initial travel velocity";
  final parameter VehicleRTM.Units.Length Lfree = if freeLengthFromLoad then
    VehicleRTM.Suspensions.Corners.freeLength(data, FDesign, side) else data.freeLength "Spring free length used";
  final parameter VehicleRTM.Units.Mass m = data.mUnsprung "Unsprung mass";

  input VehicleRTM.Units.Force FZ "Vertical contact-patch force on the unsprung mass (tyre load), positive upward";
  input VehicleRTM.Units.Acceleration aBody "Absolute vertical acceleration of the body at this corner (0 on a K&C rig)";
  input Real lambda(unit = "1") "Homotopy coupling parameter, 0 <= lambda <= 1 (0: plain model)";
  input Real GI(unit = "1") "Homotopy gain on the position error";
  input Real GP(unit = "1") "Homotopy gain on the velocity error";
  input Real GD(unit = "1") "Homotopy gain on the acceleration error (GD*ND*lambda >= 0)";
  input VehicleRTM.Units.Position zRef "Reference (experimental) travel z_e";
  input VehicleRTM.Units.Velocity vRef "Reference travel velocity dz_e/dt";
  input VehicleRTM.Units.Acceleration aRef "Reference travel acceleration d2z_e/dt2";

  output VehicleRTM.Units.Position z(start = z0, fixed = true) "Vertical travel of the wheel centre relative to the body, positive in bump";
  output VehicleRTM.Units.Velocity v(start = v0, fixed = true) "Travel velocity";
  output VehicleRTM.Units.Acceleration a "Travel acceleration";
  output VehicleRTM.Units.Length L "Strut length (mount to mount)";
  output Real dLdz(unit = "1") "Installation ratio dL/dz";
  output VehicleRTM.Units.Length dL "Spring compression Lfree - L";
  output VehicleRTM.Units.Velocity vStrut "Damper piston speed dL/dt (negative in bump)";
  output VehicleRTM.Units.Force Fspring "Spring force (Eq. 2), positive pushing the mounts apart";
  output VehicleRTM.Units.Force Fdamper "Damper force (Eq. 1, Bezier-blended), positive pushing the mounts apart";
  output VehicleRTM.Units.Force Ffriction "Strut friction force (Dahl law, data.fFriction), positive pushing the mounts apart";
  Real sFriction(unit = "1", start = 0, fixed = true) "Dahl friction state in [-1, 1]: +1 sliding in extension (public: fmu_build's native backend drops protected states)";
  output VehicleRTM.Units.Force Q "Generalized force of spring, damper and friction on the travel, (Fspring + Fdamper + Ffriction)*dLdz";
  output VehicleRTM.Units.Force Fhomotopy "Homotopy coupling force of Eq. 5 acting on the travel";
  output VehicleRTM.Units.Force FBody "Vertical force of the corner on the body, positive upward";
  output VehicleRTM.Units.Force FBody0 "FBody at zero body acceleration (FBody = FBody0 - mu*aBody)";
  output VehicleRTM.Units.Mass mu "Coupling mass of the horizontal path inertia (FBody = FBody0 - mu*aBody)";
  output VehicleRTM.Units.Angle camber "Camber along the path, positive top outward";
  output VehicleRTM.Units.Angle toe "Toe along the path, positive toe-in";
  output VehicleRTM.Units.Angle rotY "Third rotation about Y'' along the path";
  output VehicleRTM.Units.Position xWheel "Longitudinal wheel-centre displacement along the path (body axes)";
  output VehicleRTM.Units.Position yWheel "Lateral wheel-centre displacement along the path (body axes, +y left)";
protected
  VehicleRTM.Units.Position w[3] "Wheel-centre displacement";
  Real dw[3](each unit = "1") "dw/dz";
  Real d2w[3](each unit = "1/m") "d2w/dz2";
  Real dtoe(unit = "rad/m");
  Real dcamber(unit = "rad/m");
  Real drotY(unit = "rad/m");
  VehicleRTM.Units.Mass mEff "Effective mass of the travel, m|dw/dz|^2";
  VehicleRTM.Units.Force Fquad "Velocity-squared path inertia term m(dw/dz . d2w/dz2) zdot^2";
  VehicleRTM.Units.Force Hknown "Homotopy force without the acceleration feedback";
  VehicleRTM.Units.Force R "Right-hand side of the travel equation at zero body acceleration";
  VehicleRTM.Units.Mass mTotal "mEff plus the homotopy added mass lambda*GD*ND";
equation
  assert(data.k1 > 0, "data.k1 = " + String(data.k1) + ": the linear spring rate must be > 0");
  assert(data.d2 > 0 and data.d5 > 0, "data.d2 = " + String(data.d2) + ", data.d5 = " + String(data.d5)
    + ": the damper transition speeds must be > 0");
  assert(data.xFriction > 0, "data.xFriction = " + String(data.xFriction) + ": the presliding length must be > 0");
  (w, dw, d2w) = VehicleRTM.Suspensions.Corners.wheelCentre(z, data, side);
  (toe, camber, rotY, dtoe, dcamber, drotY) = VehicleRTM.Suspensions.Corners.wheelAngles(z, data);
  xWheel = w[1];
  yWheel = w[2];
  (L, dLdz) = VehicleRTM.Suspensions.Corners.strutGeometry(z, data, side);
  dL = Lfree - L;
  vStrut = dLdz*v;
  Fspring = VehicleRTM.Suspensions.Corners.springForce(dL, data.k0, data.k1, data.k2, data.k3);
  Fdamper = VehicleRTM.Suspensions.Corners.damperForce(vStrut, data.d1, data.d2, data.d3, data.d4, data.d5, data.d6, data.blend);
  der(sFriction) = (vStrut - abs(vStrut)*sFriction)/data.xFriction;
  Ffriction = -data.fFriction*sFriction;
  Q = (Fspring + Fdamper + Ffriction)*dLdz;
  // Travel equation (Lagrange): mEff*a + Fquad + m*aBody = FZ - m*g + Q + Fhomotopy
  mEff = if pathInertia then m*(dw*dw) else m;
  Fquad = if pathInertia then m*(dw*d2w)*v^2 else 0;
  // Homotopy term (Eq. 5); its acceleration part lambda*GD*ND*(aRef - a) is moved to the left as added mass
  Hknown = lambda*(GI*NI*(zRef - z) + GP*NP*(vRef - v) + GD*ND*aRef);
  mTotal = mEff + lambda*GD*ND;
  R = FZ - m*g + Q - Fquad + Hknown;
  der(z) = v;
  der(v) = a;
  a = (R - m*aBody)/mTotal;
  Fhomotopy = Hknown - lambda*GD*ND*a;
  // Vertical force on the body (Newton on the unsprung mass, vertical direction), split so that an
  // assembly can solve its body accelerations explicitly: FBody = FBody0 - mu*aBody
  mu = m*(mEff - m)/mTotal;
  FBody0 = FZ - m*g + Hknown - (m + lambda*GD*ND)/mTotal*R;
  FBody = FZ - m*g + Fhomotopy - m*(aBody + a);
  annotation (Documentation(info = "<html>
<p>Single-link equivalent kinematic quarter-car (SLEKQ) of Hall et al. (2013): all suspension linkages
are lumped into one unsprung mass that moves along a kinematic path given by polynomials of its
vertical travel (<a href=\"modelica://VehicleRTM.Suspensions.Corners\">Suspensions.Corners</a>);
a nonlinear spring (Eq. 2) and damper (Eq. 1, C1 Bezier blends) act along the strut's line of action.</p>
<h4>Degree of freedom and equation of motion</h4>
<p>The single DoF is the vertical travel <i>z</i> of the wheel centre relative to the body (positive
in bump, zero at design ride height). With the wheel-centre displacement <i>w(z)</i>, the strut length
<i>L(z)</i> and the body's vertical acceleration at the corner <i>a<sub>B</sub></i>, Lagrange's
equation is</p>
<p><i>m<sub>eff</sub> z&#776; + m (w'&middot;w'') &zdot;<sup>2</sup> + m a<sub>B</sub> = F<sub>Z</sub> - m g +
(F<sub>k</sub> + F<sub>d</sub> + F<sub>f</sub>) dL/dz + H</i>, &nbsp; <i>m<sub>eff</sub> = m |w'|<sup>2</sup> = m(1 + x'<sup>2</sup> + y'<sup>2</sup>)</i>,</p>
<p>where <i>F<sub>k</sub> = springForce(L<sub>free</sub> - L)</i>, <i>F<sub>d</sub> = damperForce(v<sub>strut</sub>)</i>, <i>F<sub>f</sub></i> the strut friction (Dahl's law, see
<a href=\"modelica://VehicleRTM.Suspensions.Corners.CornerData\">CornerData</a>; zero with the default
<code>fFriction = 0</code>, its state <code>sFriction</code> then carries no force)
with the piston speed <i>v<sub>strut</sub> = (dL/dz)&zdot;</i>. The strut force enters through
<i>dL/dz</i> by virtual work (see <a href=\"modelica://VehicleRTM.Suspensions.Corners.strutGeometry\">strutGeometry</a>).
<code>pathInertia = false</code> drops the horizontal path terms (<i>m<sub>eff</sub> = m</i>, no
velocity-squared term). The contact force <i>F<sub>Z</sub></i> is applied vertically at the wheel centre
(the contact patch, the lowest point of the cambered wheel, moves vertically by
<i>1 + r sin(&gamma;) d&gamma;/dz</i> per unit travel; with a 0.36 m tyre and the shipped data the
difference is below 0.3&nbsp;% at design ride height and below 1.6&nbsp;% over &plusmn;80 mm travel); the rotational inertia of the unsprung mass is not modelled (the paper
identifies a lumped mass only).</p>
<h4>Homotopy coupling (Eq. 3, 5)</h4>
<p><i>H = &lambda;{G<sub>I</sub>N<sub>I</sub>(z<sub>e</sub> - z) + G<sub>P</sub>N<sub>P</sub>(&zdot;<sub>e</sub> - &zdot;) +
G<sub>D</sub>N<sub>D</sub>(z&#776;<sub>e</sub> - z&#776;)}</i>. The term in <i>z&#776;</i> would make an algebraic
loop; it is solved analytically by moving <i>&lambda;G<sub>D</sub>N<sub>D</sub> z&#776;</i> to the left as an
added mass:</p>
<p><i>z&#776; = (R - m a<sub>B</sub>)/(m<sub>eff</sub> + &lambda;G<sub>D</sub>N<sub>D</sub>)</i>, &nbsp;
<i>R = F<sub>Z</sub> - m g + Q - m(w'&middot;w'')&zdot;<sup>2</sup> + &lambda;{G<sub>I</sub>N<sub>I</sub>(z<sub>e</sub>-z) +
G<sub>P</sub>N<sub>P</sub>(&zdot;<sub>e</sub>-&zdot;) + G<sub>D</sub>N<sub>D</sub>z&#776;<sub>e</sub>}</i>,</p>
<p>so the model stays explicit. &lambda; = 0 gives the plain model exactly (the added mass and every
coupling force are multiplied by &lambda;). The gains <i>G</i> and the reference signals
<i>z<sub>e</sub>, &zdot;<sub>e</sub>, z&#776;<sub>e</sub></i> are inputs; the normalisations <i>N</i> are
parameters with units (so <i>G</i> are dimensionless, as in the paper's Table 1). The added mass must be
non-negative: <i>&lambda;G<sub>D</sub>N<sub>D</sub> &ge; 0</i>.</p>
<h4>Force on the body</h4>
<p>Newton's law for the vertical motion of the unsprung mass gives the vertical force of the corner
on the body, <i>F<sub>Body</sub> = F<sub>Z</sub> - m g + F<sub>homotopy</sub> - m(a<sub>B</sub> + z&#776;)</i>.
Substituting <i>z&#776;</i> splits it into <i>F<sub>Body</sub> = F<sub>Body0</sub> - &mu; a<sub>B</sub></i> with
the coupling mass <i>&mu; = m(m<sub>eff</sub> - m)/(m<sub>eff</sub> + &lambda;G<sub>D</sub>N<sub>D</sub>)</i>
(zero without path inertia), so a vehicle model can include <i>&mu;</i> in its own mass matrix and stay
explicit (see <a href=\"modelica://VehicleRTM.Vehicles.FourPost10DoF\">FourPost10DoF</a>). Without path
inertia and with &lambda; = 0, <i>F<sub>Body</sub> = -Q</i>. Horizontal forces on the body are not
output (the assemblies of this library are vertical ride models).</p>
<h4>Spring free length</h4>
<p>With <code>freeLengthFromLoad = true</code> (default) the free length is computed so that <i>z = 0</i>
is the static equilibrium under <code>FDesign</code> (paper Sec. 4: the undeformed length is chosen so that
the ride height matches the multibody model), see
<a href=\"modelica://VehicleRTM.Suspensions.Corners.freeLength\">freeLength</a>; otherwise
<code>data.freeLength</code> is used.</p>
<h4>Inputs, outputs and units</h4>
<p>Inputs: <code>FZ</code> [N], <code>aBody</code> [m/s2], <code>lambda</code>, <code>GI</code>,
<code>GP</code>, <code>GD</code> [1], <code>zRef</code> [m], <code>vRef</code> [m/s], <code>aRef</code> [m/s2].
Outputs: travel <code>z</code> [m], <code>v</code> [m/s], <code>a</code> [m/s2], strut length
<code>L</code> [m], <code>dLdz</code> [1], compression <code>dL</code> [m], piston speed <code>vStrut</code>
[m/s], <code>Fspring</code>, <code>Fdamper</code>, <code>Ffriction</code>, <code>Q</code>, <code>Fhomotopy</code>, <code>FBody</code>,
<code>FBody0</code> [N], <code>mu</code> [kg], <code>camber</code>, <code>toe</code>, <code>rotY</code> [rad],
<code>xWheel</code>, <code>yWheel</code> [m].</p>
</html>"));
end SLEKQ;
