within VehicleRTM.Units;
type Frequency = Real (final quantity="Frequency", final unit="Hz")
  "Frequency in Hz"
  annotation (Documentation(info="<html><p>Frequency [Hz].</p></html>"));
