within VehicleRTM.Tables;
function interp2 "2D bilinear interpolation on a fixed rectangular grid"
  input Real x1[:] "Strictly increasing breakpoints of the first argument (rows)";
  input Real x2[:] "Strictly increasing breakpoints of the second argument (columns)";
  input Real y[size(x1, 1), size(x2, 1)] "Values, y[i,j] at (x1[i], x2[j])";
  input Real u1 "First argument";
  input Real u2 "Second argument";
  input Boolean linearExtrapolation = false "true: continue the end segments; false: hold the edge values";
  output Real v "Interpolated value";
protected
  Integer i;
  Integer j;
  Real a;
  Real b;
algorithm
  (i, j, a, b) := gridCell(x1, x2, u1, u2, linearExtrapolation);
  v := cellValue(y, i, j, a, b);
  annotation (Documentation(info = "<html>
<p>Bilinear interpolation of <code>y(x1, x2)</code>. Outside the grid the edge values are held
(clamped) or the edge cells are continued bilinearly, as chosen by <code>linearExtrapolation</code>.</p>
</html>"));
end interp2;
