within VehicleRTM.Tires;
function effectiveRollingRadius "Effective rolling radius Re(Fz) of PAC2002 (BREFF, DREFF, FREFF)"
  input Units.Force Fz "Vertical load (negative is treated as 0)";
  input MFCoefficients c "Tyre coefficients";
  output Units.Length Re "Effective rolling radius";
protected
  Real Cz(unit = "N/m") "Vertical stiffness";
  Units.Ratio rho_d "Normalised deflection rho/rho_Fz0 = Fz/FNOMIN";
algorithm
  Cz := c.VERTICAL_STIFFNESS*c.LCZ;
  rho_d := max(Fz, 0)/c.FNOMIN;
  Re := c.UNLOADED_RADIUS - c.FNOMIN/Cz*(c.DREFF*atan(c.BREFF*rho_d) + c.FREFF*rho_d);
  annotation (Documentation(info = "<html>
<p>Effective rolling radius of PAC2002 (and of MF 6.1 without the speed growth of the free radius):</p>
<pre>
Re = R0 - rho_Fz0*(DREFF*atan(BREFF*rho_d) + FREFF*rho_d),  rho_Fz0 = Fz0/Cz,  rho_d = rho/rho_Fz0
</pre>
<p>with R0 = UNLOADED_RADIUS, Fz0 = FNOMIN (unscaled), Cz = VERTICAL_STIFFNESS*LCZ and rho the
vertical deflection. With the linear vertical stiffness of the record rho = Fz/Cz, so the
normalised deflection is rho_d = Fz/Fz0. For usual values Re lies between the loaded radius
R0 - Fz/Cz and the free radius R0; at Fz = 0 it is R0.</p>
</html>"));
end effectiveRollingRadius;
