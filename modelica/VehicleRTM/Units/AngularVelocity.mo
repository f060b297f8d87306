within VehicleRTM.Units;
type AngularVelocity = Real (final quantity="AngularVelocity", final unit="rad/s")
  "AngularVelocity in rad/s"
  annotation (Documentation(info="<html><p>AngularVelocity [rad/s].</p></html>"));
