within VehicleRTM;
package Powertrain "Engine map, gearbox with shift schedule, final drive and open differential for a rear-wheel-drive LCV"
  annotation (Documentation(info = "<html>
<p>Engine map, gearbox with shift schedule, final drive and open differential for a rear-wheel-drive LCV.</p>
</html>"));
end Powertrain;
