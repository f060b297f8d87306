within VehicleRTM.Examples;
model QuarterCarFreeVibration "Two-mass quarter car built from the SLEKQ: sprung quarter mass, SLEKQ corner, tyre spring; released from an offset"
  replaceable parameter VehicleRTM.Data.SUV.Front data
    constrainedby VehicleRTM.Suspensions.Corners.CornerData "Corner data"
    annotation (choicesAllMatching = true);
  parameter VehicleRTM.Units.Mass mBody = data.mSprung "Sprung quarter mass";
  parameter VehicleRTM.Units.Acceleration g = 9.81 "Gravitational acceleration";
  parameter VehicleRTM.Units.Position zBody0 = 0.05 "Initial body displacement from the static equilibrium";
  parameter VehicleRTM.Units.Position zWheel0 = 0 "Initial wheel-centre displacement from the static equilibrium";
  final parameter VehicleRTM.Units.Length delta0 = (mBody + data.mUnsprung)*g/data.cTyre "Static tyre deflection";
  VehicleRTM.QuarterCars.SLEKQ corner(data = data, g = g, FDesign = mBody*g, z0 = zWheel0 - zBody0) "Suspension corner; its spring free length puts the static equilibrium at z = 0";
  VehicleRTM.Units.Position zBody(start = zBody0, fixed = true) "Body displacement from the static equilibrium, positive up";
  VehicleRTM.Units.Velocity vBody(start = 0, fixed = true) "Body velocity";
  VehicleRTM.Units.Acceleration aBody "Body acceleration";
  VehicleRTM.Units.Position zWheel "Wheel-centre displacement from the static equilibrium, positive up";
  VehicleRTM.Units.Force FTyre "Tyre vertical force";
equation
  der(zBody) = vBody;
  der(vBody) = aBody;
  // Body: mBody*aBody = FBody - mBody*g with FBody = FBody0 - mu*aBody, solved explicitly
  aBody = (corner.FBody0 - mBody*g)/(mBody + corner.mu);
  corner.aBody = aBody;
  zWheel = zBody + corner.z;
  FTyre = max(0, data.cTyre*(delta0 - zWheel) - data.dTyre*(vBody + corner.v));
  corner.FZ = FTyre;
  corner.lambda = 0;
  corner.GI = 0;
  corner.GP = 0;
  corner.GD = 0;
  corner.zRef = 0;
  corner.vRef = 0;
  corner.aRef = 0;
  annotation (experiment(StopTime = 5, Interval = 0.001),
    Documentation(info = "<html>
<p>The classic two-mass quarter car assembled from the
<a href=\"modelica://VehicleRTM.QuarterCars.SLEKQ\">SLEKQ</a>: a sprung quarter mass <code>mBody</code>
(one vertical DoF) on top, the SLEKQ corner (travel <i>z</i> relative to the body), and a linear tyre
spring and damper (<code>data.cTyre</code>, <code>data.dTyre</code>, no tension) on fixed ground. The
corner's spring free length is computed for the load <code>mBody</code>&middot;g, so the static
equilibrium is at zero displacements with the tyre deflected by <code>delta0</code>.</p>
<p>At <i>t = 0</i> the body is released <code>zBody0</code> = 50 mm above its equilibrium with the wheel at
its equilibrium height (<code>zWheel0</code> = 0, i.e. the suspension extended by 50 mm). The decaying
oscillation shows the body mode (about 1.2 Hz for the SUV front corner) and the wheel-hop mode
(about 11 Hz); with linear data (see the tests) the frequencies match the eigenvalues of the
linear 2&times;2 model.</p>
<p>Body equation: <i>m<sub>B</sub> a<sub>B</sub> = F<sub>Body</sub> - m<sub>B</sub> g</i> with the corner's force
on the body <i>F<sub>Body</sub> = F<sub>Body0</sub> - &mu; a<sub>B</sub></i>, solved explicitly for
<i>a<sub>B</sub></i>.</p>
</html>"));
end QuarterCarFreeVibration;
