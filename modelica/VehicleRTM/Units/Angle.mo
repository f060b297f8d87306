within VehicleRTM.Units;
type Angle = Real (final quantity="Angle", final unit="rad", displayUnit="deg")
  "Angle in rad"
  annotation (Documentation(info="<html><p>Angle [rad].</p></html>"));
