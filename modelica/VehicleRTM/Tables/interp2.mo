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
  Integer n1 = size(x1, 1);
  Integer n2 = size(x2, 1);
  Integer i;
  Integer j;
  Real a;
  Real b;
  Real c1;
  Real c2;
algorithm
  c1 := if linearExtrapolation then u1 else min(max(u1, x1[1]), x1[n1]);
  c2 := if linearExtrapolation then u2 else min(max(u2, x2[1]), x2[n2]);
  i := segment(x1, c1);
  j := segment(x2, c2);
  a := (c1 - x1[i])/(x1[i + 1] - x1[i]);
  b := (c2 - x2[j])/(x2[j + 1] - x2[j]);
  v := (1 - a)*(1 - b)*y[i, j] + a*(1 - b)*y[i + 1, j] + (1 - a)*b*y[i, j + 1] + a*b*y[i + 1, j + 1];
  annotation (Documentation(info = "<html>
<p>Bilinear interpolation of <code>y(x1, x2)</code>. Outside the grid the edge values are held
(clamped) or the edge cells are continued bilinearly, as chosen by <code>linearExtrapolation</code>.</p>
</html>"));
end interp2;
