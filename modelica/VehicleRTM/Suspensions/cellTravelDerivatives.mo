within VehicleRTM.Suspensions;
function cellTravelDerivatives "Derivatives of a 2D kinematic map with respect to both wheel travels, in a located grid cell"
  input Real u1[:] "Breakpoints of the first map argument";
  input Real u2[:] "Breakpoints of the second map argument";
  input Real table[size(u1, 1), size(u2, 1)] "Map values";
  input Integer i "Row segment (Tables.gridCell)";
  input Integer j "Column segment (Tables.gridCell)";
  input Real a "Position in the row segment (Tables.gridCell)";
  input Real b "Position in the column segment (Tables.gridCell)";
  input Real c1 "First map argument";
  input Real c2 "Second map argument";
  input Real dc1ds[2] "d c1 / d travel[j] of the axle's two wheels";
  input Real dc2ds[2] "d c2 / d travel[j] of the axle's two wheels";
  input Boolean linearExtrapolation "Continue the map linearly beyond the grid";
  output Real dvalueds[2] "d value / d travel[j]";
protected
  Real dvdc1 "Slope of the map along c1";
  Real dvdc2 "Slope of the map along c2";
algorithm
  (dvdc1, dvdc2) := Tables.cellSlopes(u1, u2, table, i, j, a, b, c1, c2, linearExtrapolation);
  dvalueds := {dvdc1*dc1ds[1] + dvdc2*dc2ds[1], dvdc1*dc1ds[2] + dvdc2*dc2ds[2]};
  annotation (Documentation(info = "<html>
<p>The chain rule of <a href=\"modelica://VehicleRTM.Suspensions.travelDerivative\">travelDerivative</a>
for both travels of the axle at once, in the cell
<a href=\"modelica://VehicleRTM.Tables.gridCell\">Tables.gridCell</a> located.</p>
</html>"));
end cellTravelDerivatives;
