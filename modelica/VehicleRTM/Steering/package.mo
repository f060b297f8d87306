within VehicleRTM;
package Steering "Rigid steering: steering-wheel angle to rack travel through the pinion-to-rack ratio"
  annotation (Documentation(info = "<html>
<p>Rigid steering: steering-wheel angle to rack travel through the pinion-to-rack ratio.</p>
</html>"));
end Steering;
