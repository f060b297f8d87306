within VehicleRTM;
package Suspensions "Map-based suspension corners and axles (kinematics, compliance, stiffness, stops, dampers) and the SLEKQ corner variants"
  annotation (Documentation(info = "<html>
<p>Map-based suspension corners and axles (kinematics, compliance, stiffness, stops, dampers) and the SLEKQ corner variants.</p>
</html>"));
end Suspensions;
