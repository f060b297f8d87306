within VehicleRTM.Tires;
function verticalForce "Vertical tyre force from deflection and deflection rate (linear spring and damper, no adhesion)"
  input Units.Length deflection "Tyre deflection, positive in compression";
  input Units.Velocity deflectionRate "Rate of the deflection";
  input MFCoefficients c "Tyre coefficients";
  output Units.Force Fz "Vertical force, >= 0";
algorithm
  Fz := if deflection > 0 then max(0, c.VERTICAL_STIFFNESS*c.LCZ*deflection + c.VERTICAL_DAMPING*deflectionRate) else 0;
  annotation (Documentation(info = "<html>
<p>Vertical force of the tyre as a linear spring (VERTICAL_STIFFNESS*LCZ) and damper
(VERTICAL_DAMPING) in parallel: <code>Fz = max(0, Cz*deflection + d*deflectionRate)</code> while in
contact (deflection &gt; 0), and 0 when the tyre has lifted off. The force never pulls
(no adhesion): when the damper would make it negative it is 0.</p>
</html>"));
end verticalForce;
