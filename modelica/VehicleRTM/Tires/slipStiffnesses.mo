within VehicleRTM.Tires;
function slipStiffnesses "Longitudinal slip stiffness Kxk and cornering stiffness Kya at a load and inclination"
  input Units.Force Fz "Vertical load (limited to [0, FZMAX])";
  input Units.Angle gamma "Inclination angle (ISO, limited to [CAMMIN, CAMMAX])";
  input MFCoefficients c "Tyre coefficients";
  output Units.Force Kxk "Longitudinal slip stiffness dFx0/dkappa";
  output Real Kya(unit = "N/rad") "Cornering stiffness dFy0/dalpha (negative for PKY1 < 0)";
protected
  Units.Force FzL "Limited load";
  Units.Angle gL "Limited inclination";
  Units.Force Fx0 "Unused";
  Units.Ratio mux "Unused";
algorithm
  FzL := min(max(Fz, 0), c.FZMAX);
  gL := min(max(gamma, c.CAMMIN), c.CAMMAX);
  (Fx0, Kxk, mux) := pureLongitudinal(FzL, 0, gL, c);
  (, Kya) := pureLateral(FzL, 0, gL, c);
  annotation (Documentation(info = "<html>
<p>Slip stiffnesses BCD of the pure-slip Magic Formula, as in
<a href=\"modelica://VehicleRTM.Tires.pureLongitudinal\">pureLongitudinal</a> and
<a href=\"modelica://VehicleRTM.Tires.pureLateral\">pureLateral</a>: the slopes of Fx0 and Fy0 at
zero shifted slip. For MF 5.2:
<code>Kya = PKY1*Fz0'*sin(2*atan(Fz/(PKY2*Fz0')))*(1 - PKY3*|LGAY*gamma|)*LKY</code> with
Fz0' = FNOMIN*LFZO. Used for the MF 6.1 relaxation lengths and for checks.</p>
</html>"));
end slipStiffnesses;
