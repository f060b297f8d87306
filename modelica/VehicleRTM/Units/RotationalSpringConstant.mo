within VehicleRTM.Units;
type RotationalSpringConstant = Real (final quantity="RotationalSpringConstant", final unit="N.m/rad")
  "RotationalSpringConstant in N.m/rad"
  annotation (Documentation(info="<html><p>RotationalSpringConstant [N.m/rad].</p></html>"));
