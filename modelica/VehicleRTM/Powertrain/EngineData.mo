within VehicleRTM.Powertrain;
record EngineData "Engine data: torque map over engine speed and throttle, idle speed, rotating inertia"
  parameter Units.AngularVelocity speed[:]
    "Engine-speed breakpoints of the torque map, strictly increasing (first = idle speed recommended)";
  parameter Units.Ratio throttle[:]
    "Throttle (accelerator pedal) breakpoints of the torque map, strictly increasing, within 0..1";
  parameter Units.Torque torque[size(speed, 1), size(throttle, 1)]
    "Engine torque at the crankshaft, torque[i,j] at (speed[i], throttle[j]); negative = engine braking (motoring)";
  parameter Units.AngularVelocity idleSpeed = 83.78 "Idle speed (governed), 800 rpm";
  parameter Units.Inertia inertia = 0.45 "Rotating inertia of crankshaft, flywheel and clutch";
  annotation (Documentation(info = "<html>
<p>Parameter set of an engine for <a href=\"modelica://VehicleRTM.Powertrain.Driveline\">Driveline</a>.</p>
<ul>
<li><code>torque[i,j]</code> is the net crankshaft torque at engine speed <code>speed[i]</code> and
throttle <code>throttle[j]</code>, interpolated bilinearly and held constant outside the grid
(<a href=\"modelica://VehicleRTM.Tables.interp2\">Tables.interp2</a>). The column at throttle 0 is
the motoring (engine-braking) torque: negative above idle, and zero at idle, where the idle
governor holds the engine without load. The column at throttle 1 is the full-load curve. Above the
governed speed the full-load torque falls to the motoring torque (fuel cut-off), which keeps the
engine from over-revving.</li>
<li>The grid is a fixed-size table: an FMU exposes it as <code>engine.speed[i]</code>,
<code>engine.throttle[j]</code>, <code>engine.torque[i,j]</code>; the converter resamples an MBM
map onto it.</li>
</ul>
<p>Shipped instances: <a href=\"modelica://VehicleRTM.Powertrain.Engine30Diesel\">Engine30Diesel</a>
(3.5 t van) and <a href=\"modelica://VehicleRTM.Powertrain.Engine30DieselHD\">Engine30DieselHD</a>
(7 t truck).</p>
</html>"));
end EngineData;
