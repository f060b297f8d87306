within VehicleRTM;
package Powertrain "Engine map, gearbox with shift schedule, final drive and open differential for a rear-wheel-drive LCV"
  annotation (Documentation(info = "<html>
<p>Powertrain of a front-engine, rear-wheel-drive light commercial vehicle.</p>
<ul>
<li><a href=\"modelica://VehicleRTM.Powertrain.Driveline\">Driveline</a>: engine torque map times an
identification gain, simplified clutch, 6-speed gearbox with a shift schedule, final drive, open
differential; drive torques of the rear wheels and the engine inertia reflected to them.</li>
<li><a href=\"modelica://VehicleRTM.Powertrain.EngineData\">EngineData</a>: engine parameter record,
with the instances <a href=\"modelica://VehicleRTM.Powertrain.Engine30Diesel\">Engine30Diesel</a>
(3.0 L, 130 kW, 3.5 t van) and
<a href=\"modelica://VehicleRTM.Powertrain.Engine30DieselHD\">Engine30DieselHD</a> (3.0 L, 150 kW,
7 t truck).</li>
<li>Helpers <a href=\"modelica://VehicleRTM.Powertrain.gearEntry\">gearEntry</a> and
<a href=\"modelica://VehicleRTM.Powertrain.selectGear\">selectGear</a>.</li>
</ul>
</html>"));
end Powertrain;
