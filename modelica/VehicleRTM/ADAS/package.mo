within VehicleRTM;
package ADAS "Driver-assistance functions to couple with the vehicle FMU in a closed loop (co-simulation)"
  annotation (Documentation(info = "<html>
<p>Controllers written as blocks with SI inputs and outputs that match the vehicle model's
(<code>speed</code> in, <code>throttle</code> and <code>brakePedal</code> out), so that each one
builds into an FMU of its own and runs in a closed loop with the identified vehicle FMU on a
co-simulation engine (<code>pybridge export --ssp ... --component</code>, then
<code>pybridge cosim</code>). <a href=\"modelica://VehicleRTM.ADAS.AdaptiveCruise\">AdaptiveCruise</a>
is the worked example; a third-party controller FMU with the same connectors takes its place in the
system file.</p>
</html>"));
end ADAS;
