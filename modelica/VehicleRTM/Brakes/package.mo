within VehicleRTM;
package Brakes "Brake pedal or line pressure to wheel torque"
  annotation (Documentation(info = "<html>
<p><a href=\"modelica://VehicleRTM.Brakes.PedalBrakes\">PedalBrakes</a> turns the pedal into a brake
torque magnitude per wheel through one actuation gain per axle (the LCV paper's brake model);
<a href=\"modelica://VehicleRTM.Brakes.wheelBrakeTorque\">wheelBrakeTorque</a> gives it the sign
that opposes the wheel spin, smoothly through zero speed.
<a href=\"modelica://VehicleRTM.Brakes.PressureBrakes\">PressureBrakes</a> turns a measured brake line
pressure into the torque per wheel (clamp-force polynomial, pad friction, effective radius) with
stiction at standstill, for a model driven by a vehicle's sensors.</p>
</html>"));
end Brakes;
