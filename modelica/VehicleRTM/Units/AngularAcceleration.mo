within VehicleRTM.Units;
type AngularAcceleration = Real (final quantity="AngularAcceleration", final unit="rad/s2")
  "AngularAcceleration in rad/s2"
  annotation (Documentation(info="<html><p>AngularAcceleration [rad/s2].</p></html>"));
