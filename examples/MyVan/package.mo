within;
package MyVan "Worked example of a user's own package: a data-only variant of the VehicleRTM van"
  annotation (Documentation(info = "<html>
<p>A package outside the project's library, found the way Modelica tools find packages: put the
folder that holds <code>MyVan/</code> on the Modelica path and build, e.g.</p>
<pre>MODELICAPATH=examples fmu-build MyVan.MyVanModel --backend native -o out
fmu-build MyVan.MyVanModel --modelica-path examples -o out</pre>
<p><code>MyVanModel</code> extends <code>VehicleRTM.Vehicles.RTM14DoF</code> and only swaps data
(a redeclared axle record), so the native backend builds it with the RTM's C. A variant that changes
equations (a new damper law, a new suspension class) builds with <code>--backend openmodelica</code>
until fmu_build's code generator replaces the hand-written C.</p>
</html>"));
end MyVan;
