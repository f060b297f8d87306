within VehicleRTM;
package Aerodynamics "Aerodynamic drag"
  annotation (Documentation(info = "<html>
<p>Aerodynamic drag.</p>
</html>"));
end Aerodynamics;
