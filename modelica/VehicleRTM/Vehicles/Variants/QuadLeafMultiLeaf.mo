within VehicleRTM.Vehicles.Variants;
model QuadLeafMultiLeaf "RTM14DoF with a QuadLeaf front and a multi-leaf solid axle rear"
  extends RTM14DoF(redeclare parameter Suspensions.SolidAxleMultiLeaf rearAxleData);
  annotation (Documentation(info = "<html>
<p><a href=\"modelica://VehicleRTM.Suspensions.QuadLeaf\">QuadLeaf</a> front (transverse leaf: spring
and anti-roll bar in one), <a href=\"modelica://VehicleRTM.Suspensions.SolidAxleMultiLeaf\">SolidAxleMultiLeaf</a>
rear. The record defaults are example data of different vehicles (3.5 t front and chassis, 7 t rear):
use it with a converted parameter set, which replaces every record value.</p>
</html>"));
end QuadLeafMultiLeaf;
