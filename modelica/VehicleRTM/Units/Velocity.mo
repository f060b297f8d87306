within VehicleRTM.Units;
type Velocity = Real (final quantity="Velocity", final unit="m/s")
  "Velocity in m/s"
  annotation (Documentation(info="<html><p>Velocity [m/s].</p></html>"));
