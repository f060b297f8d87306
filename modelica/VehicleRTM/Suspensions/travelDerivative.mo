within VehicleRTM.Suspensions;
function travelDerivative "Derivative of a 2D kinematic map with respect to one wheel travel (chain rule)"
  input Real u1[:] "Breakpoints of the first map argument";
  input Real u2[:] "Breakpoints of the second map argument";
  input Real table[size(u1, 1), size(u2, 1)] "Map values";
  input Real c1 "First map argument";
  input Real c2 "Second map argument";
  input Real dc1ds "Derivative of c1 with respect to the wheel travel";
  input Real dc2ds "Derivative of c2 with respect to the wheel travel";
  input Boolean linearExtrapolation "Continue the map linearly beyond the grid";
  output Real dvalueds "Derivative of the map value with respect to the wheel travel";
protected
  Integer i;
  Integer j;
  Real a;
  Real b;
  Real dvdc1 "Slope of the map along c1";
  Real dvdc2 "Slope of the map along c2";
algorithm
  (i, j, a, b) := Tables.gridCell(u1, u2, c1, c2, linearExtrapolation);
  (dvdc1, dvdc2) := Tables.cellSlopes(u1, u2, table, i, j, a, b, c1, c2, linearExtrapolation);
  dvalueds := dvdc1*dc1ds + dvdc2*dc2ds;
  annotation (Documentation(info = "<html>
<p>Derivative of a kinematic map value with respect to one wheel travel of the axle. For an
independent wheel c1 is the own travel; for a solid axle c1 = zp and c2 = &plusmn;zo depend on both
travels. The derivatives of the force-element lengths are the installation ratios of Eq. 3-4;
those of the wheel-centre translations turn tyre forces into generalized forces on the travels
(virtual work).</p>
</html>"));
end travelDerivative;
