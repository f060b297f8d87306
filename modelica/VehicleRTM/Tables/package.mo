within VehicleRTM;
package Tables "Linear interpolation on fixed grids (1D and 2D), clamped or linearly extrapolated"
  annotation (Documentation(info = "<html>
<p>Pure Modelica functions for lookup tables on fixed, strictly increasing breakpoint grids.
All functions take the grid and values as arrays, so a table parameter of a model is a fixed-size
grid that an FMU exposes as ordinary parameters.</p>
<p>Extrapolation is chosen per call by <code>linearExtrapolation</code>: <code>false</code> holds the
end value (clamped), <code>true</code> continues the end segment linearly.</p>
</html>"));
end Tables;
