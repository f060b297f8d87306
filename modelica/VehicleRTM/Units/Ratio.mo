within VehicleRTM.Units;
type Ratio = Real (final quantity="Ratio", final unit="1")
  "Dimensionless ratio"
  annotation (Documentation(info="<html><p>Dimensionless quantity [1].</p></html>"));
