within VehicleRTM.Tires;
function pureLongitudinal "Pure longitudinal slip force Fx0, slip stiffness and friction coefficient (Magic Formula)"
  input Units.Force Fz "Vertical load, already limited to [0, FZMAX]";
  input Units.Ratio kappa "Longitudinal slip, already limited to [KPUMIN, KPUMAX]";
  input Units.Angle gamma "Inclination angle (ISO), already limited to [CAMMIN, CAMMAX]";
  input MFCoefficients c "Tyre coefficients";
  input Units.Ratio roadFriction = 1 "Road friction relative to the tyre file's road (scales LMUX)";
  output Units.Force Fx0 "Pure longitudinal slip force";
  output Units.Force Kxk "Longitudinal slip stiffness BCD = dFx0/dkappa at kappa = -SHx";
  output Units.Ratio mux "Longitudinal peak friction coefficient";
protected
  constant Real eps(unit = "N") = 1e-6 "Guard of the B factor at zero load";
  Boolean mf61 "MF 6.1 equations";
  Units.Force Fz0p "Scaled nominal load Fz0' = FNOMIN*LFZO";
  Units.Ratio dfz "Normalised load increment";
  Units.Ratio dpi "Normalised pressure increment";
  Units.Angle gx "Inclination entering Fx (LGAX*gamma for MF 5.2, sin(gamma) for MF 6.1)";
  Units.Ratio Cx "Shape factor";
  Units.Force Dx "Peak factor";
  Units.Ratio Ex "Curvature factor";
  Units.Ratio Bx "Stiffness factor";
  Units.Ratio SHx "Horizontal shift";
  Units.Force SVx "Vertical shift";
  Units.Ratio kx "Shifted slip";
algorithm
  mf61 := c.mfVersion >= 61;
  Fz0p := c.FNOMIN*c.LFZO;
  dfz := (Fz - Fz0p)/Fz0p;
  dpi := pressureIncrement(c);
  // MF 6.1: gx = sin(gamma); MF 5.2: gx = LGAX*gamma (an if-statement: the lane model then calls sin only
  // where a lane has MF 6.1)
  if mf61 then
    gx := sin(gamma);
  else
    gx := gamma*c.LGAX;
  end if;
  Cx := c.PCX1*c.LCX;
  mux := (c.PDX1 + c.PDX2*dfz)*(1 + c.PPX3*dpi + c.PPX4*dpi^2)*(1 - c.PDX3*gx^2)*c.LMUX*roadFriction;
  Dx := mux*Fz;
  Kxk := Fz*(c.PKX1 + c.PKX2*dfz)*exp(c.PKX3*dfz)*(1 + c.PPX1*dpi + c.PPX2*dpi^2)*c.LKX;
  Bx := Kxk/(Cx*Dx + (if Cx*Dx >= 0 then eps else -eps));
  SHx := (c.PHX1 + c.PHX2*dfz)*c.LHX;
  SVx := Fz*(c.PVX1 + c.PVX2*dfz)*c.LVX*c.LMUX*roadFriction;
  kx := kappa + SHx;
  Ex := min((c.PEX1 + c.PEX2*dfz + c.PEX3*dfz^2)*(1 - c.PEX4*(if kx >= 0 then 1 else -1))*c.LEX, 1);
  Fx0 := Dx*sin(Cx*atan(Bx*kx - Ex*(Bx*kx - atan(Bx*kx)))) + SVx;
  annotation (Documentation(info = "<html>
<p>Pure longitudinal slip force of the Magic Formula, equations listed in
<a href=\"modelica://VehicleRTM.Tires.combinedSlip\">combinedSlip</a>. The inputs must already be
limited to the ranges of the .tir file (combinedSlip does that). Also returns the slip stiffness
<code>Kxk</code> (used for the combined-slip aligning moment and the MF 6.1 relaxation length) and
the peak friction coefficient <code>mux</code> (the peak force is <code>mux*Fz + SVx</code>).</p>
</html>"));
end pureLongitudinal;
