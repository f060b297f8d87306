within VehicleRTM.Tires;
function relaxationLengths "Relaxation lengths of the longitudinal and lateral slip (PTX1..3, PTY1..2; MF 6.1: carcass stiffnesses)"
  input Units.Force Fz "Vertical load (limited to [0, FZMAX])";
  input Units.Angle gamma "Inclination angle (ISO, limited to [CAMMIN, CAMMAX])";
  input MFCoefficients c "Tyre coefficients";
  output Units.Length sigmaKappa "Longitudinal relaxation length";
  output Units.Length sigmaAlpha "Lateral relaxation length";
protected
  Units.Force FzL "Limited load";
  Units.Angle gL "Limited inclination";
  Units.Force Fz0p "Scaled nominal load Fz0' = FNOMIN*LFZO";
  Units.Ratio dfz "Normalised load increment";
  Units.Ratio dpi "Normalised pressure increment";
  Units.Angle gy "Inclination entering the lateral relaxation (LGAY*gamma for MF 5.2, sin(gamma) for MF 6.1)";
  Units.Force Kxk "Longitudinal slip stiffness";
  Real Kya(unit = "N/rad") "Cornering stiffness";
  Real Cx(unit = "N/m") "Longitudinal carcass stiffness";
  Real Cy(unit = "N/m") "Lateral carcass stiffness";
algorithm
  FzL := min(max(Fz, 0), c.FZMAX);
  gL := min(max(gamma, c.CAMMIN), c.CAMMAX);
  Fz0p := c.FNOMIN*c.LFZO;
  dfz := (FzL - Fz0p)/Fz0p;
  dpi := pressureIncrement(c);
  if c.mfVersion >= 61 and c.LONGITUDINAL_STIFFNESS > 0 and c.LATERAL_STIFFNESS > 0 then
    (Kxk, Kya) := slipStiffnesses(FzL, gL, c);
    Cx := c.LONGITUDINAL_STIFFNESS*(1 + c.PCFX1*dfz + c.PCFX2*dfz^2)*(1 + c.PCFX3*dpi);
    Cy := c.LATERAL_STIFFNESS*(1 + c.PCFY1*dfz + c.PCFY2*dfz^2)*(1 + c.PCFY3*dpi);
    sigmaKappa := abs(Kxk/Cx);
    sigmaAlpha := abs(Kya/Cy);
  else
    // MF 6.1: gy = sin(gamma); MF 5.2: gy = LGAY*gamma (an if-statement: the lane model then calls sin only
    // where a lane has MF 6.1)
    if c.mfVersion >= 61 then
      gy := sin(gL);
    else
      gy := gL*c.LGAY;
    end if;
    sigmaKappa := FzL*(c.PTX1 + c.PTX2*dfz)*exp(-c.PTX3*dfz)*c.UNLOADED_RADIUS/c.FNOMIN*c.LSGKP;
    sigmaAlpha := c.PTY1*sin(2*atan(FzL/(c.PTY2*Fz0p)))*(1 - c.PKY3*abs(gy))*c.UNLOADED_RADIUS*c.LFZO*c.LSGAL;
  end if;
  annotation (Documentation(info = "<html>
<p>Relaxation lengths of the first-order slip model of <a href=\"modelica://VehicleRTM.Tires.Tire\">Tire</a>.
PAC2002 / MF 5.2 (and MF 6.1 when LONGITUDINAL_STIFFNESS or LATERAL_STIFFNESS is 0):</p>
<pre>
sigmaKappa = Fz*(PTX1 + PTX2*dfz)*exp(-PTX3*dfz)*(R0/Fz0)*LSGKP
sigmaAlpha = PTY1*sin(2*atan(Fz/(PTY2*Fz0')))*(1 - PKY3*|gy|)*R0*LFZO*LSGAL
</pre>
<p>with Fz0 = FNOMIN, Fz0' = FNOMIN*LFZO, dfz = (Fz - Fz0')/Fz0', R0 = UNLOADED_RADIUS,
gy = LGAY*gamma (MF 5.2) or sin(gamma) (MF 6.1). MF 6.1 with carcass stiffnesses given:
sigmaKappa = |Kxk/Cx|, sigmaAlpha = |Kya/Cy|, Cx = LONGITUDINAL_STIFFNESS*(1 + PCFX1*dfz +
PCFX2*dfz^2)*(1 + PCFX3*dpi), Cy likewise with LATERAL_STIFFNESS and PCFY1..3. Both lengths
vanish at zero load; the Tire model bounds them from below.</p>
</html>"));
end relaxationLengths;
