within VehicleRTM;
package Vehicles "Full-vehicle models: the 14-DoF RTM and the 10-DoF four-post model"
  annotation (Documentation(info = "<html>
<p>Full-vehicle models: the 14-DoF RTM and the 10-DoF four-post model.</p>
</html>"));
end Vehicles;
