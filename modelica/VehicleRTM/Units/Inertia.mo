within VehicleRTM.Units;
type Inertia = Real (final quantity="MomentOfInertia", final unit="kg.m2")
  "MomentOfInertia in kg.m2"
  annotation (Documentation(info="<html><p>MomentOfInertia [kg.m2].</p></html>"));
