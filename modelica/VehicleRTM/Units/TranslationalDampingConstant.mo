within VehicleRTM.Units;
type TranslationalDampingConstant = Real (final quantity="TranslationalDampingConstant", final unit="N.s/m")
  "TranslationalDampingConstant in N.s/m"
  annotation (Documentation(info="<html><p>TranslationalDampingConstant [N.s/m].</p></html>"));
