within VehicleRTM.Units;
type Density = Real (final quantity="Density", final unit="kg/m3")
  "Density in kg/m3"
  annotation (Documentation(info="<html><p>Density [kg/m3].</p></html>"));
