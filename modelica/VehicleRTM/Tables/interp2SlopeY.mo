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
  Integer n1 = size(x1, 1);
  Integer n2 = size(x2, 1);
  Integer i;
  Integer j;
  Real a;
  Real c1;
algorithm
  c1 := if linearExtrapolation then u1 else min(max(u1, x1[1]), x1[n1]);
  i := segment(x1, c1);
  j := segment(x2, u2);
  a := (c1 - x1[i])/(x1[i + 1] - x1[i]);
  if not linearExtrapolation and (u2 < x2[1] or u2 > x2[n2]) then
    dvdu2 := 0;
  else
    dvdu2 := ((1 - a)*(y[i, j + 1] - y[i, j]) + a*(y[i + 1, j + 1] - y[i + 1, j]))/(x2[j + 1] - x2[j]);
  end if;
  annotation (Documentation(info = "<html>
<p>Partial derivative of the bilinear interpolant with respect to its second argument, consistent
with <a href=\"modelica://VehicleRTM.Tables.interp2\">interp2</a>. Used for the rate of map
outputs of a solid axle with respect to opposite travel.</p>
</html>"));
end interp2SlopeY;
