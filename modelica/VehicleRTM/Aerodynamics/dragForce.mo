within VehicleRTM.Aerodynamics;
function dragForce "Aerodynamic drag 0.5*rho*CdA*v*|v| (sign of v)"
  input Real v(unit = "m/s") "Longitudinal speed of the vehicle relative to the air";
  input Real rho(unit = "kg/m3") "Air density";
  input Real cdA(unit = "m2") "Drag area Cd*A";
  output Real force(unit = "N") "Drag force with the sign of v (it acts on the vehicle as -force along x)";
algorithm
  force := 0.5*rho*cdA*v*abs(v);
  annotation (Documentation(info = "<html>
<p>Quadratic aerodynamic drag <code>force = 0.5*rho*cdA*v*|v|</code>. The result has the sign of
<code>v</code>, i.e. it is the resistance; the vehicle model applies <code>-force</code> along its
x axis. Continuously differentiable in <code>v</code> (no event at v = 0).</p>
</html>"));
end dragForce;
