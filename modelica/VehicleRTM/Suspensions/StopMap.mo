within VehicleRTM.Suspensions;
record StopMap "Bump- or rebound-stop force against its deflection"
  parameter Units.Length contactLength = 0 "Element length at which the stop starts to carry load";
  parameter Units.Length deflection[:] "Deflection breakpoints (>= 0)";
  parameter Units.Force force[size(deflection, 1)] "Stop force (>= 0, zero at zero deflection)";
  annotation (Documentation(info = "<html>
<p>1D map of a bump stop or rebound stop (Eq. 3 of the LCV paper). The deflection is measured
from the contact length of the element (the clearance <i>x<sub>0,b</sub></i>): for a bump stop
<code>contactLength - length</code>, for a rebound stop <code>length - contactLength</code>. No force
below zero deflection; linear extrapolation above the last breakpoint.</p>
</html>"));
end StopMap;
