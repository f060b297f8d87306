within VehicleRTM.Powertrain;
function selectGear "Lowest gear whose engine speed is below the upshift speed (initial gear from the vehicle speed)"
  input Real outputSpeed(unit = "rad/s") "Gearbox output (propeller-shaft) speed";
  input Real gearRatios[:](each unit = "1") "Gearbox ratios, first to top gear (slots after nGears unused)";
  input Integer nGears "Number of gears in use (1..size(gearRatios, 1))";
  input Real upshiftSpeed[size(gearRatios, 1) - 1](each unit = "rad/s") "Upshift engine speed of gear k (to k+1)";
  output Integer gear "Selected gear";
algorithm
  gear := nGears;
  for k in size(gearRatios, 1) - 1:-1:1 loop
    if k < nGears and outputSpeed*gearRatios[k] < upshiftSpeed[k] then
      gear := k;
    end if;
  end for;
  annotation (Documentation(info = "<html>
<p>The lowest gear <code>k</code> in which the engine speed <code>outputSpeed*gearRatios[k]</code>
is below the upshift speed of that gear, or the top gear in use (<code>nGears</code>) if there is none; gear slots above
<code>nGears</code> are never chosen. Used by
<a href=\"modelica://VehicleRTM.Powertrain.Driveline\">Driveline</a> to start a simulation in the
gear a driver would have engaged at the initial vehicle speed (a run that starts at 80 km/h does
not start in first gear).</p>
</html>"));
end selectGear;
