within VehicleRTM.Tires;
function rollingResistance "Rolling resistance moment My of the Magic Formula (QSY1..QSY4, MF 6.1: QSY5..QSY8)"
  input Units.Force Fz "Vertical load (negative is treated as 0)";
  input Units.Force Fx "Longitudinal force";
  input Units.Velocity Vx "Longitudinal speed of the wheel centre";
  input Units.Angle gamma "Inclination angle (ISO)";
  input MFCoefficients c "Tyre coefficients";
  output Units.Torque My "Rolling resistance moment about the wheel axis (y, left); opposes forward rolling";
protected
  Units.Force Fz0 "Nominal load FNOMIN";
  Units.Force FzP "Non-negative load";
  Units.Ratio vr "Speed ratio Vx/LONGVL";
  Units.Angle gL "Inclination limited to [CAMMIN, CAMMAX]";
  Units.Ratio pr "Pressure ratio INFLPRES/NOMPRES (1 when the pressure is not given)";
  Units.Torque m "Moment magnitude for forward rolling";
  Units.Ratio direction "Vx/VXLOW limited to [-1, 1]";
algorithm
  Fz0 := c.FNOMIN;
  FzP := max(Fz, 0);
  vr := Vx/c.LONGVL;
  gL := min(max(gamma, c.CAMMIN), c.CAMMAX);
  if c.mfVersion >= 61 then
    pr := if c.NOMPRES > 0 and c.INFLPRES > 0 then c.INFLPRES/c.NOMPRES else 1;
    m := c.UNLOADED_RADIUS*Fz0*c.LMY*(c.QSY1 + c.QSY2*Fx/Fz0 + c.QSY3*abs(vr) + c.QSY4*vr^4
      + (c.QSY5 + c.QSY6*FzP/Fz0)*gL^2)*(FzP/Fz0)^c.QSY7*pr^c.QSY8;
  else
    pr := 1;
    m := c.UNLOADED_RADIUS*FzP*c.LMY*(c.QSY1 + c.QSY2*Fx/Fz0 + c.QSY3*abs(vr) + c.QSY4*vr^4);
  end if;
  direction := min(max(Vx/max(c.VXLOW, 1e-6), -1), 1);
  My := -m*direction;
  annotation (Documentation(info = "<html>
<p>Rolling resistance moment about the wheel spin axis (ISO y, to the left), so it is negative when
the wheel rolls forwards (omega &gt; 0) and opposes the rotation:</p>
<pre>
MF 5.2: My = -R0*Fz*LMY*(QSY1 + QSY2*Fx/Fz0 + QSY3*|Vx/V0| + QSY4*(Vx/V0)^4)*d
MF 6.1: My = -R0*Fz0*LMY*(QSY1 + QSY2*Fx/Fz0 + QSY3*|Vx/V0| + QSY4*(Vx/V0)^4 + (QSY5 + QSY6*Fz/Fz0)*gamma^2)
             *(Fz/Fz0)^QSY7*(INFLPRES/NOMPRES)^QSY8*d
d = min(max(Vx/VXLOW, -1), 1)
</pre>
<p>with Fz0 = FNOMIN (unscaled), V0 = LONGVL, R0 = UNLOADED_RADIUS. The factor <code>d</code> is
the one deviation from the published formula: it reverses the moment when rolling backwards and
fades it linearly to zero below VXLOW, so the moment is continuous through standstill. At
|Vx| &ge; VXLOW the formula is the published one.</p>
</html>"));
end rollingResistance;
