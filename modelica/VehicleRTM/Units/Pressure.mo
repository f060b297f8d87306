within VehicleRTM.Units;
type Pressure = Real (final quantity="Pressure", final unit="Pa")
  "Pressure in Pa"
  annotation (Documentation(info="<html><p>Pressure [Pa].</p></html>"));
