within VehicleRTM.Vehicles.Variants;
model QuadTorSingleLeaf "RTM14DoF with a QuadTor front and a single-leaf solid axle rear"
  extends RTM14DoF(redeclare parameter Suspensions.QuadTor frontAxleData);
  annotation (Documentation(info = "<html>
<p><a href=\"modelica://VehicleRTM.Suspensions.QuadTor\">QuadTor</a> front (torsion bars, separate
anti-roll bar), <a href=\"modelica://VehicleRTM.Suspensions.SolidAxleSingleLeaf\">SolidAxleSingleLeaf</a>
rear. The record defaults are example data of different vehicles (7 t front, 3.5 t rear and chassis):
use it with a converted parameter set, which replaces every record value.</p>
</html>"));
end QuadTorSingleLeaf;
