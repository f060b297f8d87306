within VehicleRTM.Units;
type Position = Real (final quantity="Length", final unit="m")
  "Length in m"
  annotation (Documentation(info="<html><p>Length [m].</p></html>"));
