within VehicleRTM.Tables;
function interp1 "1D linear interpolation on a fixed grid"
  input Real x[:] "Strictly increasing breakpoints";
  input Real y[size(x, 1)] "Values at the breakpoints";
  input Real u "Abscissa";
  input Boolean linearExtrapolation = false "true: continue the end segments; false: hold the end values";
  output Real v "Interpolated value";
protected
  Integer n = size(x, 1);
  Integer i;
  Real uc;
algorithm
  uc := if linearExtrapolation then u else min(max(u, x[1]), x[n]);
  i := segment(x, uc);
  v := interp1Segment(x, y, uc, i);
  annotation (Documentation(info = "<html>
<p>Piecewise-linear interpolation of <code>y(x)</code> at <code>u</code>. Outside the grid the
value is held (clamped) or the end segment is continued, as chosen by
<code>linearExtrapolation</code>.</p>
</html>"));
end interp1;
