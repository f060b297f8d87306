within VehicleRTM;
package QuarterCars "SLEKQ single-link equivalent kinematic quarter-car with homotopy coupling, and its K&C rig"
  annotation (Documentation(info = "<html>
<p>SLEKQ single-link equivalent kinematic quarter-car with homotopy coupling, and its K&C rig.</p>
</html>"));
end QuarterCars;
