within VehicleRTM.Units;
type Time = Real (final quantity="Time", final unit="s")
  "Time in s"
  annotation (Documentation(info="<html><p>Time [s].</p></html>"));
