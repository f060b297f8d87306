within VehicleRTM.QuarterCars;
model KCRig "Kinematics and compliance rig: body fixed, vertical force at the contact patch of one SLEKQ corner"
  replaceable parameter VehicleRTM.Suspensions.Corners.CornerData data
    constrainedby VehicleRTM.Suspensions.Corners.CornerData "Corner data"
    annotation (choicesAllMatching = true);
  parameter Boolean freeLengthFromLoad = true "true: spring free length from the design load data.mSprung*g; false: data.freeLength";
  parameter VehicleRTM.Units.Acceleration g = 9.81 "Gravitational acceleration";
  parameter VehicleRTM.Units.Position z0 = 0 "Initial travel";
  parameter VehicleRTM.Units.Velocity v0 = 0 "Initial travel velocity";
  input VehicleRTM.Units.Force FZ "Vertical force at the contact patch, positive upward";
  input Real lambda(unit = "1") "Homotopy coupling parameter (0: plain model)";
  input Real GI(unit = "1") "Homotopy gain, position";
  input Real GP(unit = "1") "Homotopy gain, velocity";
  input Real GD(unit = "1") "Homotopy gain, acceleration";
  input VehicleRTM.Units.Position zRef "Reference travel";
  input VehicleRTM.Units.Velocity vRef "Reference travel velocity";
  input VehicleRTM.Units.Acceleration aRef "Reference travel acceleration";
  output VehicleRTM.Units.Position z "Wheel travel, positive in bump";
  output VehicleRTM.Units.Velocity v "Wheel travel velocity";
  output VehicleRTM.Units.Acceleration a "Wheel travel acceleration";
  VehicleRTM.QuarterCars.SLEKQ corner(data = data, side = 1, g = g, freeLengthFromLoad = freeLengthFromLoad,
    z0 = z0, v0 = v0) "The corner under test";
equation
  corner.FZ = FZ;
  corner.aBody = 0;
  corner.lambda = lambda;
  corner.GI = GI;
  corner.GP = GP;
  corner.GD = GD;
  corner.zRef = zRef;
  corner.vRef = vRef;
  corner.aRef = aRef;
  z = corner.z;
  v = corner.v;
  a = corner.a;
  annotation (Documentation(info = "<html>
<p>The kinematics and compliance (K&amp;C) test of the SLEKQ paper (Sec. 4): the sprung mass is fixed
to the ground and a vertical force <i>F<sub>Z</sub>(t)</i> is applied at the tyre contact patch of one
<a href=\"modelica://VehicleRTM.QuarterCars.SLEKQ\">SLEKQ</a> corner, under gravity. The body
acceleration of the corner is zero. With the default free length (design load
<code>data.mSprung</code>&middot;g) the corner rests at <i>z = 0</i> under the corner weight
<i>F<sub>Z</sub> = (data.mSprung + data.mUnsprung) g</i>.</p>
<p>Inputs: <code>FZ</code> [N]; the homotopy inputs <code>lambda</code>, <code>GI</code>, <code>GP</code>,
<code>GD</code> [1] and reference signals <code>zRef</code> [m], <code>vRef</code> [m/s],
<code>aRef</code> [m/s2] (Eq. 5). Outputs: travel <code>z</code> [m], <code>v</code> [m/s],
<code>a</code> [m/s2]; all other signals are in <code>corner</code>.</p>
<p>This is the model the homotopy identification drives: every input is an FMU input.</p>
</html>"));
end KCRig;
