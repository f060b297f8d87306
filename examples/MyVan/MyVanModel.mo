within MyVan;
model MyVanModel "The 3.5 t van with the firmer front damper"
  extends VehicleRTM.Vehicles.RTM14DoF(redeclare parameter FirmFront frontAxleData);
  annotation (Documentation(info = "<html>
<p><code>VehicleRTM.Vehicles.RTM14DoF</code> with <code>frontAxleData</code> redeclared as
<a href=\"modelica://MyVan.FirmFront\">FirmFront</a>: same equations, other data.</p>
</html>"));
end MyVanModel;
