within VehicleRTM.Units;
type Power = Real (final quantity="Power", final unit="W")
  "Power in W"
  annotation (Documentation(info="<html><p>Power [W].</p></html>"));
