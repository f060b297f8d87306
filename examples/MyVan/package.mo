within;
package MyVan "Worked example of a user's own package: the VehicleRTM van with a front axle of new equations"
  annotation (Documentation(info = "<html>
<p>A package outside the project's library, found the way Modelica tools find packages: put the
folder that holds <code>MyVan/</code> on the Modelica path and build, e.g.</p>
<pre>MODELICAPATH=examples fmu-build MyVan.MyVan -o out
fmu-build MyVan.MyVan --modelica-path examples -o out
fmu-build MyVan.BumpRide --modelica-path examples -o out</pre>
<ul>
<li><a href=\"modelica://MyVan.ProgressiveAxle\">ProgressiveAxle</a> extends
<code>VehicleRTM.Suspensions.PartialMapAxle</code> (the map-based axle without its force laws) with a
progressive spring and a digressive two-stage damper: new equations, not only new data.</li>
<li><a href=\"modelica://MyVan.MyVan\">MyVan</a> is <code>VehicleRTM.Vehicles.RTM14DoF</code> with
<code>frontAxle</code> redeclared as that axle.</li>
<li><a href=\"modelica://MyVan.BumpRide\">BumpRide</a> is a harness with its inputs inside: the van
settles on the new springs and drives over a bump.</li>
</ul>
<p>The native backend generates the C of all three from this Modelica: no C is written by hand.</p>
</html>"));
end MyVan;
