within VehicleRTM;
package Brakes "Brake pedal to wheel torque per axle"
  annotation (Documentation(info = "<html>
<p>Brake pedal to wheel torque per axle.</p>
</html>"));
end Brakes;
