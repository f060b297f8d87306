within VehicleRTM.Tables;
function interp2SlopeY "Partial derivative dy/dx2 of the bilinear interpolant"
  input Real x1[:] "Strictly increasing breakpoints of the first argument (rows)";
  input Real x2[:] "Strictly increasing breakpoints of the second argument (columns)";
  input Real y[size(x1, 1), size(x2, 1)] "Values, y[i,j] at (x1[i], x2[j])";
  input Real u1 "First argument";
  input Real u2 "Second argument";
  input Boolean linearExtrapolation = false "true: end cells continue; false: zero slope outside the grid in x2";
  output Real dvdu2 "Partial derivative with respect to the second argument";
protected
  Integer i;
  Integer j;
  Real a;
  Real b;
  Real dvdu1 "The other slope (not returned)";
algorithm
  (i, j, a, b) := gridCell(x1, x2, u1, u2, linearExtrapolation);
  (dvdu1, dvdu2) := cellSlopes(x1, x2, y, i, j, a, b, u1, u2, linearExtrapolation);
  annotation (Documentation(info = "<html>
<p>Partial derivative of the bilinear interpolant with respect to its second argument, consistent
with <a href=\"modelica://VehicleRTM.Tables.interp2\">interp2</a>. Used for the rate of map
outputs of a solid axle with respect to opposite travel.</p>
</html>"));
end interp2SlopeY;
