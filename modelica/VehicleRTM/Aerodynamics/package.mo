within VehicleRTM;
package Aerodynamics "Aerodynamic drag"
  annotation (Documentation(info = "<html>
<p>Quadratic longitudinal drag: the function
<a href=\"modelica://VehicleRTM.Aerodynamics.dragForce\">dragForce</a> and the block
<a href=\"modelica://VehicleRTM.Aerodynamics.AeroDrag\">AeroDrag</a> (with the height at which the
drag acts, for the pitch moment).</p>
</html>"));
end Aerodynamics;
