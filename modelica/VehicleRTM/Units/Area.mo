within VehicleRTM.Units;
type Area = Real (final quantity="Area", final unit="m2")
  "Area in m2"
  annotation (Documentation(info="<html><p>Area [m2].</p></html>"));
