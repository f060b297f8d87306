within VehicleRTM;
package Steering "Rigid steering: steering-wheel angle to rack travel through the pinion-to-rack ratio"
  annotation (Documentation(info = "<html>
<p>Rigid steering system of the LCV paper (no torsion bar, no power assistance):
<a href=\"modelica://VehicleRTM.Steering.RigidSteering\">RigidSteering</a> turns the steering-wheel
angle into rack travel with the pinion-to-rack ratio. The rack-to-wheel motion is part of the
front kinematic maps.</p>
</html>"));
end Steering;
