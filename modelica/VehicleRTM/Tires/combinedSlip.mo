within VehicleRTM.Tires;
function combinedSlip "Steady-state Magic Formula forces and moments at combined slip (use mode 4, no turn slip)"
  input Units.Force Fz "Vertical load (negative is treated as 0)";
  input Units.Ratio kappa "Longitudinal slip (omega*Re - vx)/|vx|, positive in traction";
  input Units.Angle alpha "Slip angle atan(vy/|vx|), positive when the contact point slides to the left";
  input Units.Angle gamma "Inclination angle (ISO: positive when the wheel top leans to the right)";
  input Units.Velocity Vx "Longitudinal speed of the wheel centre (for the rolling resistance)";
  input MFCoefficients c "Tyre coefficients";
  input Units.Ratio roadFriction = 1 "Road friction relative to the tyre file's road (scales LMUX and LMUY)";
  output Units.Force Fx "Longitudinal force (ISO wheel axes)";
  output Units.Force Fy "Lateral force (ISO wheel axes)";
  output Units.Torque Mz "Self-aligning moment (ISO wheel axes)";
  output Units.Torque My "Rolling resistance moment (negative when rolling forwards)";
  output Units.Torque Mx "Overturning moment";
protected
  constant Real eps(unit = "N/rad") = 1e-6 "Guard of the cornering stiffness at zero load";
  constant Real pi(unit = "1") = 3.14159265358979323846;
  constant Real muMin(unit = "1") = 1e-6
    "Lower bound of roadFriction in the trail and residual-torque stiffness factors (1/LMUY): finite at zero friction";
  Boolean mf61 "MF 6.1 equations";
  Units.Force FzL "Load limited to [0, FZMAX]";
  Units.Ratio kL "Slip limited to [KPUMIN, KPUMAX]";
  Units.Angle aL "Slip angle limited to [ALPMIN, ALPMAX]";
  Units.Angle gL "Inclination limited to [CAMMIN, CAMMAX]";
  Units.Force Fz0p "Scaled nominal load Fz0' = FNOMIN*LFZO";
  Units.Ratio dfz "Normalised load increment";
  Units.Ratio dpi "Normalised pressure increment";
  Units.Angle as "Slip quantity alpha* (alpha for MF 5.2, tan(alpha) for MF 6.1)";
  Units.Angle gs "Unscaled inclination gamma* (gamma for MF 5.2, sin(gamma) for MF 6.1)";
  Units.Angle gz "Inclination entering Mz (LGAZ*gamma for MF 5.2, sin(gamma) for MF 6.1)";
  Units.Force Fx0 "Pure slip longitudinal force";
  Units.Force Kxk "Longitudinal slip stiffness";
  Units.Ratio mux "Longitudinal friction coefficient";
  Units.Force Fy0 "Pure slip lateral force";
  Units.Force Fy0g0 "Pure slip lateral force at zero inclination (MF 6.1)";
  Real Kya(unit = "N/rad") "Cornering stiffness";
  Real Kyap(unit = "N/rad") "Cornering stiffness guarded against 0";
  Units.Ratio muy "Lateral friction coefficient";
  Real By(unit = "1/rad") "Fy stiffness factor";
  Units.Ratio Cy "Fy shape factor";
  Units.Angle SHy "Fy horizontal shift";
  Units.Force SVy "Fy vertical shift";
  Real Bxa(unit = "1/rad") "Fx reduction stiffness factor";
  Units.Ratio Exa "Fx reduction curvature factor";
  Units.Angle xa "Shifted slip angle of the Fx reduction";
  Units.Ratio Gxa "Fx weighting function";
  Units.Ratio Byk "Fy reduction stiffness factor";
  Units.Ratio Eyk "Fy reduction curvature factor";
  Units.Ratio SHyk "Fy reduction shift";
  Units.Ratio ks "Shifted slip of the Fy reduction";
  Units.Ratio Gyk "Fy weighting function";
  Units.Force DVyk "Peak of the kappa induced side force";
  Units.Force SVyk "Kappa induced side force";
  Units.Angle SHt "Pneumatic trail horizontal shift";
  Units.Angle at "Pneumatic trail slip angle";
  Units.Angle ar "Residual torque slip angle";
  Units.Angle ateq "Equivalent combined slip angle of the trail";
  Units.Angle areq "Equivalent combined slip angle of the residual torque";
  Real Bt(unit = "1/rad") "Trail stiffness factor";
  Units.Ratio Ct "Trail shape factor";
  Units.Length Dt "Trail peak factor";
  Units.Ratio Et "Trail curvature factor";
  Real Br(unit = "1/rad") "Residual torque stiffness factor";
  Units.Torque Dr "Residual torque peak factor";
  Units.Ratio r2 "(Kxk/Kya*kappa)^2";
  Units.Length t "Pneumatic trail";
  Units.Torque Mzr "Residual torque";
  Units.Length s "Moment arm of Fx";
  Units.Force Fyp "Side force acting at the pneumatic trail";
algorithm
  // limits of the .tir ranges
  FzL := min(max(Fz, 0), c.FZMAX);
  kL := min(max(kappa, c.KPUMIN), c.KPUMAX);
  aL := min(max(alpha, c.ALPMIN), c.ALPMAX);
  gL := min(max(gamma, c.CAMMIN), c.CAMMAX);
  mf61 := c.mfVersion >= 61;
  Fz0p := c.FNOMIN*c.LFZO;
  dfz := (FzL - Fz0p)/Fz0p;
  dpi := pressureIncrement(c);
  // MF 6.1: alpha* = tan(alpha), gamma* = gz = sin(gamma); MF 5.2: alpha* = alpha, gamma* = gamma, gz = LGAZ*gamma.
  // An if-statement, not if-expressions: the lane model then calls tan and sin only where a lane has MF 6.1.
  if mf61 then
    as := tan(aL);
    gs := sin(gL);
    gz := gs;
  else
    as := aL;
    gs := gL;
    gz := gL*c.LGAZ;
  end if;
  // pure slip
  (Fx0, Kxk, mux) := pureLongitudinal(FzL, kL, gL, c, roadFriction);
  (Fy0, Kya, muy, By, Cy, SHy, SVy) := pureLateral(FzL, aL, gL, c, roadFriction);
  // combined slip longitudinal force
  Bxa := (c.RBX1 + (if mf61 then c.RBX3*gs^2 else 0))*cos(atan(c.RBX2*kL))*c.LXAL;
  Exa := min(c.REX1 + c.REX2*dfz, 1);
  xa := as + c.RHX1;
  Gxa := cos(c.RCX1*atan(Bxa*xa - Exa*(Bxa*xa - atan(Bxa*xa))))
    /cos(c.RCX1*atan(Bxa*c.RHX1 - Exa*(Bxa*c.RHX1 - atan(Bxa*c.RHX1))));
  Fx := Gxa*Fx0;
  // combined slip lateral force
  Byk := (c.RBY1 + (if mf61 then c.RBY4*gs^2 else 0))*cos(atan(c.RBY2*(as - c.RBY3)))*c.LYKA;
  Eyk := min(c.REY1 + c.REY2*dfz, 1);
  SHyk := c.RHY1 + c.RHY2*dfz;
  ks := kL + SHyk;
  Gyk := cos(c.RCY1*atan(Byk*ks - Eyk*(Byk*ks - atan(Byk*ks))))
    /cos(c.RCY1*atan(Byk*SHyk - Eyk*(Byk*SHyk - atan(Byk*SHyk))));
  DVyk := muy*FzL*(c.RVY1 + c.RVY2*dfz + c.RVY3*gs)*cos(atan(c.RVY4*as));
  // RVY6 = 0 (most .tir files) makes sin(RVY5*atan(RVY6*kL)) zero: the same value without the two calls
  SVyk := if c.RVY6 == 0 then 0 else DVyk*sin(c.RVY5*atan(c.RVY6*kL))*c.LVYKA;
  Fy := Gyk*Fy0 + SVyk;
  // aligning moment
  Kyap := Kya + (if Kya >= 0 then eps else -eps);
  SHt := c.QHZ1 + c.QHZ2*dfz + (c.QHZ3 + c.QHZ4*dfz)*gz;
  at := as + SHt;
  ar := as + SHy + SVy/Kyap;
  Bt := (c.QBZ1 + c.QBZ2*dfz + c.QBZ3*dfz^2)*(1 + c.QBZ4*gz + c.QBZ5*abs(gz))*c.LKY/(c.LMUY*max(roadFriction, muMin));
  Ct := c.QCZ1;
  Dt := FzL*(c.QDZ1 + c.QDZ2*dfz)*(1 - c.PPZ1*dpi)*(1 + c.QDZ3*gz + c.QDZ4*gz^2)*c.UNLOADED_RADIUS/Fz0p*c.LTR;
  Et := min((c.QEZ1 + c.QEZ2*dfz + c.QEZ3*dfz^2)*(1 + (c.QEZ4 + c.QEZ5*gz)*(2/pi)*atan(Bt*Ct*at)), 1);
  Br := c.QBZ9*c.LKY/(c.LMUY*max(roadFriction, muMin)) + c.QBZ10*By*Cy;
  if mf61 then
    Dr := FzL*c.UNLOADED_RADIUS*((c.QDZ6 + c.QDZ7*dfz)*c.LRES
      + ((c.QDZ8 + c.QDZ9*dfz)*(1 + c.PPZ2*dpi) + (c.QDZ10 + c.QDZ11*dfz)*abs(gz))*gz*c.LKZC)*c.LMUY*roadFriction;
  else
    Dr := FzL*c.UNLOADED_RADIUS*((c.QDZ6 + c.QDZ7*dfz)*c.LRES + (c.QDZ8 + c.QDZ9*dfz)*gz)*c.LMUY*roadFriction;
  end if;
  r2 := (Kxk/Kyap*kL)^2;
  ateq := atan(sqrt(tan(at)^2 + r2))*(if at >= 0 then 1 else -1);
  areq := atan(sqrt(tan(ar)^2 + r2))*(if ar >= 0 then 1 else -1);
  t := Dt*cos(Ct*atan(Bt*ateq - Et*(Bt*ateq - atan(Bt*ateq))))*cos(aL);
  Mzr := Dr*cos(atan(Br*areq))*cos(aL);
  s := c.UNLOADED_RADIUS*(c.SSZ1 + c.SSZ2*Fy/Fz0p + (c.SSZ3 + c.SSZ4*dfz)*gs)*c.LS;
  if mf61 then
    Fy0g0 := pureLateral(FzL, aL, 0, c, roadFriction);
    Fyp := Gyk*Fy0g0;
  else
    Fy0g0 := Fy0;
    Fyp := Fy - SVyk;
  end if;
  Mz := -t*Fyp + Mzr + s*Fx;
  // overturning and rolling resistance moments
  Mx := c.UNLOADED_RADIUS*FzL*(c.QSX1*c.LVMX - c.QSX2*gs + c.QSX3*Fy/Fz0p)*c.LMX;
  My := rollingResistance(Fz, Fx, Vx, gamma, c);
  annotation (Documentation(info = "<html>
<p>Steady-state forces and moments of the Magic Formula at combined slip (PAC2002 use mode 4,
turn slip ignored), in the ISO wheel axes of CONVENTIONS.md: x forward, y left, z up. The
version is chosen by <code>c.mfVersion</code> (52 = PAC2002 / MF 5.2, 61 = MF 6.1). No event is
generated: the function body has no relations that a tool turns into events.</p>
<h4>Inputs and limits</h4>
<p>As in PAC2002, the Magic Formula is evaluated with the inputs limited to the ranges of the
.tir file: <code>Fz</code> to [0, FZMAX], <code>kappa</code> to [KPUMIN, KPUMAX], <code>alpha</code>
to [ALPMIN, ALPMAX], <code>gamma</code> to [CAMMIN, CAMMAX]. FZMIN is not applied: below it the
formula is evaluated as it is, and every force and moment goes to 0 with the load. Divisions by
quantities that vanish at zero load (C*D, Kya) are guarded by eps = 1e-6, so nothing is NaN at
Fz = 0 or Vx = 0.</p>
<h4>Notation</h4>
<p>Fz0' = FNOMIN*LFZO, dfz = (Fz - Fz0')/Fz0', R0 = UNLOADED_RADIUS, sgn(x) = 1 for x &ge; 0 and -1
otherwise, MF(B,C,D,E,x) = D*sin(C*atan(B*x - E*(B*x - atan(B*x)))),
W(B,C,E,x) = cos(C*atan(B*x - E*(B*x - atan(B*x)))).<br/>
MF 5.2: alpha* = alpha, gamma* = gamma, gx = LGAX*gamma, gy = LGAY*gamma, gz = LGAZ*gamma, dpi = 0.<br/>
MF 6.1: alpha* = tan(alpha), gamma* = gx = gy = gz = sin(gamma),
dpi = (INFLPRES - NOMPRES)/NOMPRES (0 if either pressure is 0); the terms marked [6.1] are 0 for MF 5.2.</p>
<h4>Pure longitudinal slip (<a href=\"modelica://VehicleRTM.Tires.pureLongitudinal\">pureLongitudinal</a>)</h4>
<pre>
Cx  = PCX1*LCX
mux = (PDX1 + PDX2*dfz)*(1 + PPX3*dpi + PPX4*dpi^2)*(1 - PDX3*gx^2)*LMUX,  Dx = mux*Fz
Kxk = Fz*(PKX1 + PKX2*dfz)*exp(PKX3*dfz)*(1 + PPX1*dpi + PPX2*dpi^2)*LKX
Bx  = Kxk/(Cx*Dx + eps*sgn(Cx*Dx))
SHx = (PHX1 + PHX2*dfz)*LHX,  SVx = Fz*(PVX1 + PVX2*dfz)*LVX*LMUX,  kx = kappa + SHx
Ex  = min((PEX1 + PEX2*dfz + PEX3*dfz^2)*(1 - PEX4*sgn(kx))*LEX, 1)
Fx0 = MF(Bx, Cx, Dx, Ex, kx) + SVx
</pre>
<h4>Pure side slip (<a href=\"modelica://VehicleRTM.Tires.pureLateral\">pureLateral</a>)</h4>
<pre>
Cy  = PCY1*LCY
muy = (PDY1 + PDY2*dfz)*(1 + PPY3*dpi + PPY4*dpi^2)*(1 - PDY3*gy^2)*LMUY,  Dy = muy*Fz
MF 5.2: Kya = PKY1*Fz0'*sin(2*atan(Fz/(PKY2*Fz0')))*(1 - PKY3*|gy|)*LKY
        SHy = (PHY1 + PHY2*dfz)*LHY + PHY3*gy
        SVy = Fz*((PVY1 + PVY2*dfz)*LVY + (PVY3 + PVY4*dfz)*gy)*LMUY
MF 6.1: Kya = PKY1*Fz0'*(1 + PPY1*dpi)*(1 - PKY3*|gy|)*sin(PKY4*atan(Fz/((PKY2 + PKY5*gy^2)*(1 + PPY2*dpi)*Fz0')))*LKY
        Kyg0 = Fz*(PKY6 + PKY7*dfz)*(1 + PPY5*dpi)*LKYC,  SVyg = Fz*(PVY3 + PVY4*dfz)*gy*LKYC*LMUY
        SHy = (PHY1 + PHY2*dfz)*LHY + (Kyg0*gy - SVyg)/Kya'
        SVy = Fz*(PVY1 + PVY2*dfz)*LVY*LMUY + SVyg
Kya' = Kya + eps*sgn(Kya),  ay = alpha* + SHy
Ey  = min((PEY1 + PEY2*dfz)*(1 + [6.1] PEY5*gy^2 - (PEY3 + PEY4*gy)*sgn(ay))*LEY, 1)
By  = Kya/(Cy*Dy + eps*sgn(Cy*Dy))
Fy0 = MF(By, Cy, Dy, Ey, ay) + SVy
</pre>
<h4>Combined slip</h4>
<pre>
Bxa = (RBX1 + [6.1] RBX3*gamma*^2)*cos(atan(RBX2*kappa))*LXAL,  Exa = min(REX1 + REX2*dfz, 1)
Gxa = W(Bxa, RCX1, Exa, alpha* + RHX1)/W(Bxa, RCX1, Exa, RHX1),  Fx = Gxa*Fx0
Byk = (RBY1 + [6.1] RBY4*gamma*^2)*cos(atan(RBY2*(alpha* - RBY3)))*LYKA,  Eyk = min(REY1 + REY2*dfz, 1)
SHyk = RHY1 + RHY2*dfz,  Gyk = W(Byk, RCY1, Eyk, kappa + SHyk)/W(Byk, RCY1, Eyk, SHyk)
DVyk = muy*Fz*(RVY1 + RVY2*dfz + RVY3*gamma*)*cos(atan(RVY4*alpha*))
SVyk = DVyk*sin(RVY5*atan(RVY6*kappa))*LVYKA,  Fy = Gyk*Fy0 + SVyk
</pre>
<h4>Aligning moment</h4>
<pre>
SHt = QHZ1 + QHZ2*dfz + (QHZ3 + QHZ4*dfz)*gz,  at = alpha* + SHt,  ar = alpha* + SHy + SVy/Kya'
Bt = (QBZ1 + QBZ2*dfz + QBZ3*dfz^2)*(1 + QBZ4*gz + QBZ5*|gz|)*LKY/LMUY,  Ct = QCZ1
Dt = Fz*(QDZ1 + QDZ2*dfz)*(1 - [6.1] PPZ1*dpi)*(1 + QDZ3*gz + QDZ4*gz^2)*(R0/Fz0')*LTR
Et = min((QEZ1 + QEZ2*dfz + QEZ3*dfz^2)*(1 + (QEZ4 + QEZ5*gz)*(2/pi)*atan(Bt*Ct*at)), 1)
Br = QBZ9*LKY/LMUY + QBZ10*By*Cy
MF 5.2: Dr = Fz*R0*((QDZ6 + QDZ7*dfz)*LRES + (QDZ8 + QDZ9*dfz)*gz)*LMUY
MF 6.1: Dr = Fz*R0*((QDZ6 + QDZ7*dfz)*LRES + ((QDZ8 + QDZ9*dfz)*(1 + PPZ2*dpi) + (QDZ10 + QDZ11*dfz)*|gz|)*gz*LKZC)*LMUY
at,eq = atan(sqrt(tan(at)^2 + (Kxk/Kya'*kappa)^2))*sgn(at)   (ar,eq likewise with ar)
t   = Dt*cos(Ct*atan(Bt*at,eq - Et*(Bt*at,eq - atan(Bt*at,eq))))*cos(alpha)
Mzr = Dr*cos(atan(Br*ar,eq))*cos(alpha)
s   = R0*(SSZ1 + SSZ2*Fy/Fz0' + (SSZ3 + SSZ4*dfz)*gamma*)*LS
Fy' = Fy - SVyk (MF 5.2),  Fy' = Gyk*Fy0(gamma = 0) (MF 6.1)
Mz  = -t*Fy' + Mzr + s*Fx
</pre>
<h4>Overturning and rolling resistance moments</h4>
<pre>
Mx = R0*Fz*(QSX1*LVMX - QSX2*gamma* + QSX3*Fy/Fz0')*LMX
My = rollingResistance(Fz, Fx, Vx, gamma)
</pre>
<p>Sources: H. B. Pacejka, <i>Tire and Vehicle Dynamics</i> (2nd ed. 2006, 3rd ed. 2012), the
MF 5.2 / PAC2002 equations; MF 6.1 pressure, camber-stiffness and combined-slip terms as in the
3rd edition, with the MF-Tyre forms of Bt, Dt (QBZ4/QBZ5, signed QDZ3) and of the equivalent
slip angles. Not modelled: turn slip, the gyroscopic couple (QTZ1), the speed dependence of
friction (LMUV), the MF 6.1 overturning moment terms QSX4 and higher, mirroring for the other
vehicle side, and the low-speed reductions of the commercial implementations (the transient
model <a href=\"modelica://VehicleRTM.Tires.Tire\">Tire</a> handles standstill instead).
The direction of travel enters through the slip definitions with |vx| (see Tire); the aligning
moment is not mirrored when rolling backwards.</p>
</html>"));
end combinedSlip;
