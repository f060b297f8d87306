within MyVan;
record FirmFront "QuadLeaf front axle with a 30 % firmer damper (data-only variant)"
  extends VehicleRTM.Suspensions.QuadLeaf(
    damper(force = {-3640, -1950, -585, 0, 1300, 4160, 7150}));
  annotation (Documentation(info = "<html>
<p>The 3.5 t van's front axle (<code>VehicleRTM.Suspensions.QuadLeaf</code>) with every damper force
1.3 times the original at the same velocity breakpoints [N].</p>
</html>"));
end FirmFront;
