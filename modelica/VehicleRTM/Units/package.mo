within VehicleRTM;
package Units "SI types used throughout the library (the core does not depend on the Modelica Standard Library)"
  annotation (Documentation(info = "<html>
<p>Real types carrying SI <code>quantity</code> and <code>unit</code> attributes, so every variable of the
library has a unit without depending on the Modelica Standard Library.</p>
</html>"));
end Units;
