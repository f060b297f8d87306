within VehicleRTM.Units;
type Force = Real (final quantity="Force", final unit="N")
  "Force in N"
  annotation (Documentation(info="<html><p>Force [N].</p></html>"));
