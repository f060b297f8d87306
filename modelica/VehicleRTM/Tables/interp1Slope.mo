within VehicleRTM.Tables;
function interp1Slope "Slope dy/dx of the 1D linear interpolant at u"
  input Real x[:] "Strictly increasing breakpoints";
  input Real y[size(x, 1)] "Values at the breakpoints";
  input Real u "Abscissa";
  input Boolean linearExtrapolation = false "true: end segments continue; false: zero slope outside the grid";
  output Real dvdu "Slope of the interpolant";
protected
  Integer n = size(x, 1);
  Integer i;
algorithm
  i := segment(x, u);
  if not linearExtrapolation and (u < x[1] or u > x[n]) then
    dvdu := 0;
  else
    dvdu := (y[i + 1] - y[i])/(x[i + 1] - x[i]);
  end if;
  annotation (Documentation(info = "<html>
<p>Slope of the piecewise-linear interpolant of <code>y(x)</code> at <code>u</code>, consistent with
<a href=\"modelica://VehicleRTM.Tables.interp1\">interp1</a>: zero outside the grid when clamped.
Used for installation ratios (length derivatives of the kinematic maps).</p>
</html>"));
end interp1Slope;
