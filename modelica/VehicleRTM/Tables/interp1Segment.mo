within VehicleRTM.Tables;
function interp1Segment "1D linear interpolation in a located segment (no search, no clamping)"
  input Real x[:] "Strictly increasing breakpoints";
  input Real y[size(x, 1)] "Values at the breakpoints";
  input Real u "Abscissa (already clamped if the caller clamps)";
  input Integer i "Segment of u (segment(x, u))";
  output Real v "Interpolated value (the end segment continued outside the grid)";
algorithm
  v := y[i] + (y[i + 1] - y[i])*(u - x[i])/(x[i + 1] - x[i]);
  annotation (Documentation(info = "<html>
<p>The value of <a href=\"modelica://VehicleRTM.Tables.interp1\">interp1</a> for a segment found
once by <a href=\"modelica://VehicleRTM.Tables.segment\">segment</a>, so several tables on the same
breakpoints and abscissa (the compliance maps of a wheel) share one search.</p>
</html>"));
end interp1Segment;
