within VehicleRTM.Tables;
function interp2SlopeX "Partial derivative dy/dx1 of the bilinear interpolant"
  input Real x1[:] "Strictly increasing breakpoints of the first argument (rows)";
  input Real x2[:] "Strictly increasing breakpoints of the second argument (columns)";
  input Real y[size(x1, 1), size(x2, 1)] "Values, y[i,j] at (x1[i], x2[j])";
  input Real u1 "First argument";
  input Real u2 "Second argument";
  input Boolean linearExtrapolation = false "true: end cells continue; false: zero slope outside the grid in x1";
  output Real dvdu1 "Partial derivative with respect to the first argument";
protected
  Integer n1 = size(x1, 1);
  Integer n2 = size(x2, 1);
  Integer i;
  Integer j;
  Real b;
  Real c2;
algorithm
  c2 := if linearExtrapolation then u2 else min(max(u2, x2[1]), x2[n2]);
  i := segment(x1, u1);
  j := segment(x2, c2);
  b := (c2 - x2[j])/(x2[j + 1] - x2[j]);
  if not linearExtrapolation and (u1 < x1[1] or u1 > x1[n1]) then
    dvdu1 := 0;
  else
    dvdu1 := ((1 - b)*(y[i + 1, j] - y[i, j]) + b*(y[i + 1, j + 1] - y[i, j + 1]))/(x1[i + 1] - x1[i]);
  end if;
  annotation (Documentation(info = "<html>
<p>Partial derivative of the bilinear interpolant with respect to its first argument, consistent
with <a href=\"modelica://VehicleRTM.Tables.interp2\">interp2</a>. Used for installation ratios of
force elements from the 2D kinematic maps (length change per unit wheel travel).</p>
</html>"));
end interp2SlopeX;
