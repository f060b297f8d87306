within VehicleRTM.Suspensions;
record AxleData "Complete map-based description of one axle"
  parameter Boolean solidAxle = false
    "true: dependent (solid) axle, maps over parallel x opposite travel; false: independent wheels, maps over wheel x rack travel";
  parameter Units.Length track = 1.7 "Track width at design position";
  parameter KinematicMaps kinematics "Kinematic maps of the left wheel";
  parameter ComplianceMaps compliance "Compliance maps of the left wheel";
  parameter StiffnessMaps stiffness "Vertical stiffness maps at the wheel centre";
  parameter DamperMap damper "Damper characteristic";
  parameter StopMap bumpStop "Bump-stop characteristic";
  parameter StopMap reboundStop "Rebound-stop characteristic";
  annotation (Documentation(info = "<html>
<p>Everything the map-based axle <a href=\"modelica://VehicleRTM.Suspensions.MapAxle\">MapAxle</a>
needs: kinematics (2D), compliance (1D, own and opposite wheel), vertical stiffness (parallel and
opposite travel), damper, bump stop and rebound stop. The structure is the same for every
suspension design; the variants (<code>QuadLeaf</code>, <code>QuadTor</code>,
<code>SolidAxleSingleLeaf</code>, <code>SolidAxleMultiLeaf</code>) only change the data.</p>
</html>"));
end AxleData;
