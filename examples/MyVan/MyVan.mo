within MyVan;
model MyVan "The 3.5 t van with the progressive-spring, digressive-damper front axle"
  extends VehicleRTM.Vehicles.RTM14DoF(redeclare ProgressiveAxle frontAxle);
  annotation (Documentation(info = "<html>
<p><code>VehicleRTM.Vehicles.RTM14DoF</code> with its front axle redeclared as
<a href=\"modelica://MyVan.ProgressiveAxle\">ProgressiveAxle</a>: other equations for the spring and
the damper, the same maps for everything else (the RTM's axle modifiers apply to the replacement).</p>
</html>"));
end MyVan;
