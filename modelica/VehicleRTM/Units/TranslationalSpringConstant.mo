within VehicleRTM.Units;
type TranslationalSpringConstant = Real (final quantity="TranslationalSpringConstant", final unit="N/m")
  "TranslationalSpringConstant in N/m"
  annotation (Documentation(info="<html><p>TranslationalSpringConstant [N/m].</p></html>"));
