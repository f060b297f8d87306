within VehicleRTM.Tables;
function cellSlopes "Both partial derivatives of the bilinear interpolant in a located grid cell"
  input Real x1[:] "Strictly increasing breakpoints of the first argument (rows)";
  input Real x2[:] "Strictly increasing breakpoints of the second argument (columns)";
  input Real y[size(x1, 1), size(x2, 1)] "Values, y[i,j] at (x1[i], x2[j])";
  input Integer i "Row segment (gridCell)";
  input Integer j "Column segment (gridCell)";
  input Real a "Position in the row segment (gridCell)";
  input Real b "Position in the column segment (gridCell)";
  input Real u1 "First argument (as given to gridCell)";
  input Real u2 "Second argument (as given to gridCell)";
  input Boolean linearExtrapolation = false "true: edge cells continue; false: zero slope across a clamped edge";
  output Real dvdu1 "Partial derivative with respect to the first argument";
  output Real dvdu2 "Partial derivative with respect to the second argument";
algorithm
  if not linearExtrapolation and (u1 < x1[1] or u1 > x1[size(x1, 1)]) then
    dvdu1 := 0;
  else
    dvdu1 := ((1 - b)*(y[i + 1, j] - y[i, j]) + b*(y[i + 1, j + 1] - y[i, j + 1]))/(x1[i + 1] - x1[i]);
  end if;
  if not linearExtrapolation and (u2 < x2[1] or u2 > x2[size(x2, 1)]) then
    dvdu2 := 0;
  else
    dvdu2 := ((1 - a)*(y[i, j + 1] - y[i, j]) + a*(y[i + 1, j + 1] - y[i + 1, j]))/(x2[j + 1] - x2[j]);
  end if;
  annotation (Documentation(info = "<html>
<p>The slopes of <a href=\"modelica://VehicleRTM.Tables.interp2SlopeX\">interp2SlopeX</a> and
<a href=\"modelica://VehicleRTM.Tables.interp2SlopeY\">interp2SlopeY</a> in the cell that
<a href=\"modelica://VehicleRTM.Tables.gridCell\">gridCell</a> located: the derivative of the
bilinear interpolant inside the grid, zero across a clamped edge.</p>
</html>"));
end cellSlopes;
