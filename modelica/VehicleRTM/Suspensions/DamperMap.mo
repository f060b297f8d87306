within VehicleRTM.Suspensions;
record DamperMap "Damper force against damper velocity"
  parameter Units.Velocity velocity[:] "Damper length rate breakpoints (positive = extension)";
  parameter Units.Force force[size(velocity, 1)]
    "Damper force (positive = tension, resisting extension)";
  annotation (Documentation(info = "<html>
<p>1D map of the damper force against the rate of change of the damper length, converted from the
damper property file of the multibody model. Linear extrapolation continues the end segments.
The force reaches the wheel centre through the damper length derivative of the kinematic maps
(Eq. 4).</p>
</html>"));
end DamperMap;
