within VehicleRTM.Vehicles;
package Variants "RTM14DoF with the other suspension variants: QuadTor front, multi-leaf rear"
  annotation (Documentation(info = "<html>
<p>The 14-DoF RTM <a href=\"modelica://VehicleRTM.Vehicles.RTM14DoF\">RTM14DoF</a> (QuadLeaf front,
single-leaf rear) with its axle records swapped, one class per combination, so that a converted
parameter set names the variant its data describe (<code>pybridge convert</code> chooses it from the
data set) and an FMU of it carries that variant's records as start values. The variables and
parameters are those of RTM14DoF; only the records' defaults differ.</p>
</html>"));
end Variants;
