within VehicleRTM.Units;
type Torque = Real (final quantity="Torque", final unit="N.m")
  "Torque in N.m"
  annotation (Documentation(info="<html><p>Torque [N.m].</p></html>"));
