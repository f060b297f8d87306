within VehicleRTM.Units;
type Acceleration = Real (final quantity="Acceleration", final unit="m/s2")
  "Acceleration in m/s2"
  annotation (Documentation(info="<html><p>Acceleration [m/s2].</p></html>"));
