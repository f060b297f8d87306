within VehicleRTM.Suspensions;
function stopForce "Force of a bump or rebound stop at a given deflection (zero when not in contact)"
  input Real deflectionGrid[:] "Deflection breakpoints of the stop map [m]";
  input Real forceGrid[size(deflectionGrid, 1)] "Stop force at the breakpoints [N]";
  input Real deflection(unit = "m") "Deflection from the contact length (positive = compressed into the stop)";
  output Real force(unit = "N") "Stop force, >= 0";
algorithm
  force := if deflection > 0 then max(0, Tables.interp1(deflectionGrid, forceGrid, deflection, true)) else 0;
  annotation (Documentation(info = "<html>
<p>Eq. 3 of the LCV paper: no force before contact, the 1D map after it (linear extrapolation
beyond the last breakpoint). The force is continuous at contact because the map starts at zero.</p>
</html>"));
end stopForce;
