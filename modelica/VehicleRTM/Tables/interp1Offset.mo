within VehicleRTM.Tables;
function interp1Offset "1D linear interpolation in a located segment, given the abscissa's offset in it and its width"
  input Real y[:] "Values at the breakpoints";
  input Integer i "Segment of the abscissa u (segment(x, u))";
  input Real du "u - x[i]";
  input Real dx "x[i + 1] - x[i]";
  output Real v "Interpolated value (the end segment continued outside the grid)";
algorithm
  v := y[i] + (y[i + 1] - y[i])*du/dx;
  annotation (Documentation(info = "<html>
<p>The value of <a href=\"modelica://VehicleRTM.Tables.interp1Segment\">interp1Segment</a>, operation for
operation (the same results to the last bit), with the breakpoint differences computed once by the caller
for all the tables it reads on the same breakpoints and abscissa (the compliance maps of a wheel): per
table two reads of the values instead of two of the values and two of the breakpoints.</p>
</html>"));
end interp1Offset;
