within VehicleRTM;
package Brakes "Brake pedal to wheel torque per axle"
  annotation (Documentation(info = "<html>
<p><a href=\"modelica://VehicleRTM.Brakes.PedalBrakes\">PedalBrakes</a> turns the pedal into a brake
torque magnitude per wheel through one actuation gain per axle (the LCV paper's brake model);
<a href=\"modelica://VehicleRTM.Brakes.wheelBrakeTorque\">wheelBrakeTorque</a> gives it the sign
that opposes the wheel spin, smoothly through zero speed.</p>
</html>"));
end Brakes;
