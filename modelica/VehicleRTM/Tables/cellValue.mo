within VehicleRTM.Tables;
function cellValue "Bilinear interpolant in a located grid cell"
  input Real y[:, :] "Values, y[i,j] at (x1[i], x2[j])";
  input Integer i "Row segment (gridCell)";
  input Integer j "Column segment (gridCell)";
  input Real a "Position in the row segment (gridCell)";
  input Real b "Position in the column segment (gridCell)";
  output Real v "Interpolated value";
algorithm
  v := (1 - a)*(1 - b)*y[i, j] + a*(1 - b)*y[i + 1, j] + (1 - a)*b*y[i, j + 1] + a*b*y[i + 1, j + 1];
  annotation (Documentation(info = "<html>
<p>The value of <a href=\"modelica://VehicleRTM.Tables.interp2\">interp2</a> in the cell that
<a href=\"modelica://VehicleRTM.Tables.gridCell\">gridCell</a> located (the same arithmetic, so the
same result to the last bit).</p>
</html>"));
end cellValue;
