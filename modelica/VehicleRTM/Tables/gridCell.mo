within VehicleRTM.Tables;
function gridCell "Cell of a rectangular grid that holds (u1, u2) and the position in it (one search per axis)"
  input Real x1[:] "Strictly increasing breakpoints of the first argument (rows)";
  input Real x2[:] "Strictly increasing breakpoints of the second argument (columns)";
  input Real u1 "First argument";
  input Real u2 "Second argument";
  input Boolean linearExtrapolation = false "true: continue the edge cells; false: clamp (u1, u2) to the grid";
  output Integer i "Row segment, 1 <= i <= size(x1, 1) - 1";
  output Integer j "Column segment, 1 <= j <= size(x2, 1) - 1";
  output Real a "Position in the row segment: 0 at x1[i], 1 at x1[i + 1]";
  output Real b "Position in the column segment: 0 at x2[j], 1 at x2[j + 1]";
protected
  Real c1 "First argument, clamped unless linearExtrapolation";
  Real c2 "Second argument, clamped unless linearExtrapolation";
algorithm
  c1 := if linearExtrapolation then u1 else min(max(u1, x1[1]), x1[size(x1, 1)]);
  c2 := if linearExtrapolation then u2 else min(max(u2, x2[1]), x2[size(x2, 1)]);
  i := segment(x1, c1);
  j := segment(x2, c2);
  a := (c1 - x1[i])/(x1[i + 1] - x1[i]);
  b := (c2 - x2[j])/(x2[j + 1] - x2[j]);
  annotation (Documentation(info = "<html>
<p>Locates <code>(u1, u2)</code> on the grid once, so several maps on the same grid (the kinematic
maps of an axle) are interpolated with <a href=\"modelica://VehicleRTM.Tables.cellValue\">cellValue</a>
and <a href=\"modelica://VehicleRTM.Tables.cellSlopes\">cellSlopes</a> without searching again.
Outside the grid the edge cell is returned; <code>a</code> and <code>b</code> are then in [0, 1]
when clamped, or beyond it when <code>linearExtrapolation</code> continues the edge cells.</p>
</html>"));
end gridCell;
