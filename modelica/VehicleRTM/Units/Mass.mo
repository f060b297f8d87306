within VehicleRTM.Units;
type Mass = Real (final quantity="Mass", final unit="kg")
  "Mass in kg"
  annotation (Documentation(info="<html><p>Mass [kg].</p></html>"));
