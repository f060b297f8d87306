within VehicleRTM.Tires;
function pureLateral "Pure side slip force Fy0, cornering stiffness and the factors the aligning moment needs (Magic Formula)"
  input Units.Force Fz "Vertical load, already limited to [0, FZMAX]";
  input Units.Angle alpha "Slip angle, already limited to [ALPMIN, ALPMAX]";
  input Units.Angle gamma "Inclination angle (ISO), already limited to [CAMMIN, CAMMAX]";
  input MFCoefficients c "Tyre coefficients";
  input Units.Ratio roadFriction = 1 "Road friction relative to the tyre file's road (scales LMUY)";
  output Units.Force Fy0 "Pure side slip force";
  output Real Kya(unit = "N/rad") "Cornering stiffness BCD = dFy0/dalpha at alpha = -SHy";
  output Units.Ratio muy "Lateral peak friction coefficient";
  output Real By(unit = "1/rad") "Stiffness factor";
  output Units.Ratio Cy "Shape factor";
  output Units.Angle SHy "Horizontal shift";
  output Units.Force SVy "Vertical shift";
protected
  constant Real eps(unit = "N") = 1e-6 "Guard of divisions at zero load";
  Boolean mf61 "MF 6.1 equations";
  Units.Force Fz0p "Scaled nominal load Fz0' = FNOMIN*LFZO";
  Units.Ratio dfz "Normalised load increment";
  Units.Ratio dpi "Normalised pressure increment";
  Units.Angle as "Slip quantity alpha* (alpha for MF 5.2, tan(alpha) for MF 6.1)";
  Units.Angle gy "Inclination entering Fy (LGAY*gamma for MF 5.2, sin(gamma) for MF 6.1)";
  Real Kyap(unit = "N/rad") "Cornering stiffness guarded against 0";
  Real Kyg0(unit = "N/rad") "Camber stiffness (MF 6.1)";
  Units.Force SVyg "Camber induced vertical shift (MF 6.1)";
  Units.Force Dy "Peak factor";
  Units.Ratio Ey "Curvature factor";
  Units.Angle ay "Shifted slip angle";
algorithm
  mf61 := c.mfVersion >= 61;
  Fz0p := c.FNOMIN*c.LFZO;
  dfz := (Fz - Fz0p)/Fz0p;
  dpi := pressureIncrement(c);
  // MF 6.1: alpha* = tan(alpha), gy = sin(gamma); MF 5.2: alpha* = alpha, gy = LGAY*gamma (an if-statement:
  // the lane model then calls tan and sin only where a lane has MF 6.1)
  if mf61 then
    as := tan(alpha);
    gy := sin(gamma);
  else
    as := alpha;
    gy := gamma*c.LGAY;
  end if;
  Cy := c.PCY1*c.LCY;
  muy := (c.PDY1 + c.PDY2*dfz)*(1 + c.PPY3*dpi + c.PPY4*dpi^2)*(1 - c.PDY3*gy^2)*c.LMUY*roadFriction;
  Dy := muy*Fz;
  if mf61 then
    Kya := c.PKY1*Fz0p*(1 + c.PPY1*dpi)*(1 - c.PKY3*abs(gy))
      *sin(c.PKY4*atan(Fz/((c.PKY2 + c.PKY5*gy^2)*(1 + c.PPY2*dpi)*Fz0p)))*c.LKY;
  else
    Kya := c.PKY1*Fz0p*sin(2*atan(Fz/(c.PKY2*Fz0p)))*(1 - c.PKY3*abs(gy))*c.LKY;
  end if;
  Kyap := Kya + (if Kya >= 0 then eps else -eps);
  if mf61 then
    Kyg0 := Fz*(c.PKY6 + c.PKY7*dfz)*(1 + c.PPY5*dpi)*c.LKYC;
    SVyg := Fz*(c.PVY3 + c.PVY4*dfz)*gy*c.LKYC*c.LMUY*roadFriction;
    SHy := (c.PHY1 + c.PHY2*dfz)*c.LHY + (Kyg0*gy - SVyg)/Kyap;
    SVy := Fz*(c.PVY1 + c.PVY2*dfz)*c.LVY*c.LMUY*roadFriction + SVyg;
  else
    Kyg0 := 0;
    SVyg := 0;
    SHy := (c.PHY1 + c.PHY2*dfz)*c.LHY + c.PHY3*gy;
    SVy := Fz*((c.PVY1 + c.PVY2*dfz)*c.LVY + (c.PVY3 + c.PVY4*dfz)*gy)*c.LMUY*roadFriction;
  end if;
  ay := as + SHy;
  Ey := min((c.PEY1 + c.PEY2*dfz)*(1 + (if mf61 then c.PEY5*gy^2 else 0)
    - (c.PEY3 + c.PEY4*gy)*(if ay >= 0 then 1 else -1))*c.LEY, 1);
  By := Kya/(Cy*Dy + (if Cy*Dy >= 0 then eps else -eps));
  Fy0 := Dy*sin(Cy*atan(By*ay - Ey*(By*ay - atan(By*ay)))) + SVy;
  annotation (Documentation(info = "<html>
<p>Pure side slip force of the Magic Formula, equations listed in
<a href=\"modelica://VehicleRTM.Tires.combinedSlip\">combinedSlip</a>. The inputs must already be
limited to the ranges of the .tir file (combinedSlip does that). Also returns the cornering
stiffness <code>Kya</code> and the factors <code>muy, By, Cy, SHy, SVy</code> that the combined-slip
force and the aligning moment reuse. With PKY1 &lt; 0 (all usual .tir files) a positive slip angle
gives a negative side force.</p>
</html>"));
end pureLateral;
