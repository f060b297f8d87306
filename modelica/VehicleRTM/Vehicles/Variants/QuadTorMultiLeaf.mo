within VehicleRTM.Vehicles.Variants;
model QuadTorMultiLeaf "RTM14DoF of the 7 t LCV: QuadTor front, multi-leaf solid axle rear, dual rear tyres"
  extends RTM14DoF(
    redeclare parameter Data.LCV70t chassis,
    redeclare parameter Suspensions.QuadTor frontAxleData,
    redeclare parameter Suspensions.SolidAxleMultiLeaf rearAxleData,
    redeclare parameter Data.Tires.LCV7t_225_75R16C frontTire,
    redeclare parameter Data.Tires.LCV7t_225_75R16C rearTire,
    redeclare parameter Powertrain.Engine30DieselHD engine);
  annotation (Documentation(info = "<html>
<p>The heavy end of the LCV family: <a href=\"modelica://VehicleRTM.Data.LCV70t\">Data.LCV70t</a>
(two tyres per rear wheel station), <a href=\"modelica://VehicleRTM.Suspensions.QuadTor\">QuadTor</a>
front (torsion bars and a separate anti-roll bar: the parallel/opposite split of the stiffness maps,
Eq. 2, carries it), <a href=\"modelica://VehicleRTM.Suspensions.SolidAxleMultiLeaf\">SolidAxleMultiLeaf</a>
rear. A converted parameter set replaces every record value.</p>
</html>"));
end QuadTorMultiLeaf;
