within VehicleRTM.Vehicles;
model FourPost10DoF "Four-post rig model of the SLEKQ paper: rigid body on four SLEKQ corners and tyre springs driven by four posts"
  replaceable parameter VehicleRTM.Data.SUV.Front dataFront
    constrainedby VehicleRTM.Suspensions.Corners.CornerData "Front corner data (left corner; FR is its mirror image)"
    annotation (choicesAllMatching = true);
  replaceable parameter VehicleRTM.Data.SUV.Rear dataRear
    constrainedby VehicleRTM.Suspensions.Corners.CornerData "Rear corner data (left corner; RR is its mirror image)"
    annotation (choicesAllMatching = true);
  replaceable parameter VehicleRTM.Data.SUV.Body body
    constrainedby VehicleRTM.Data.SUV.Body "Sprung body"
    annotation (choicesAllMatching = true);
  parameter Boolean freeLengthFromLoad = true "true: spring free lengths put the design ride height in equilibrium under the body's static axle loads; false: the records' freeLength";
  parameter VehicleRTM.Units.Acceleration g = 9.81 "Gravitational acceleration";
  parameter VehicleRTM.Units.Position heave0 = 0 "Initial heave";
  parameter VehicleRTM.Units.Angle roll0 = 0 "Initial roll";
  parameter VehicleRTM.Units.Angle pitch0 = 0 "Initial pitch";
  final parameter VehicleRTM.Units.Length b = body.wheelbase - body.a "Distance from the CoG back to the rear axle";
  final parameter VehicleRTM.Units.Position x[4] = {body.a, body.a, -b, -b} "Longitudinal wheel-centre positions from the CoG (FL, FR, RL, RR)";
  final parameter VehicleRTM.Units.Position y[4] = {body.trackFront/2, -body.trackFront/2, body.trackRear/2, -body.trackRear/2} "Lateral wheel-centre positions from the CoG";
  final parameter VehicleRTM.Units.Force FSprungFront = body.m*g*b/(2*body.wheelbase) "Static sprung load of a front corner";
  final parameter VehicleRTM.Units.Force FSprungRear = body.m*g*body.a/(2*body.wheelbase) "Static sprung load of a rear corner";
  final parameter VehicleRTM.Units.Length delta0[4] = {(FSprungFront + dataFront.mUnsprung*g)/dataFront.cTyre,
    (FSprungFront + dataFront.mUnsprung*g)/dataFront.cTyre, (FSprungRear + dataRear.mUnsprung*g)/dataRear.cTyre,
    (FSprungRear + dataRear.mUnsprung*g)/dataRear.cTyre} "Tyre deflection at design ride height with the posts at zero";

  input VehicleRTM.Units.Position zPost[4] "Post heights from their initial level (FL, FR, RL, RR)";
  input VehicleRTM.Units.Velocity vPost[4] "Post velocities (d zPost/dt; used by the tyre damping)";

  output VehicleRTM.Units.Position heave(start = heave0, fixed = true) "Vertical displacement of the body CoG from design ride height, positive up";
  output VehicleRTM.Units.Angle roll(start = roll0, fixed = true) "Body roll, positive right side down (ISO 8855)";
  output VehicleRTM.Units.Angle pitch(start = pitch0, fixed = true) "Body pitch, positive nose down (ISO 8855)";
  output VehicleRTM.Units.Acceleration aHeave "Vertical acceleration of the body CoG";
  output VehicleRTM.Units.Position zWheel[4] "Wheel travels relative to the body, positive in bump";
  output VehicleRTM.Units.Force FTyre[4] "Tyre vertical forces";

  VehicleRTM.QuarterCars.SLEKQ cornerFL(data = dataFront, side = 1, g = g, FDesign = FSprungFront, freeLengthFromLoad = freeLengthFromLoad) "Front left corner";
  VehicleRTM.QuarterCars.SLEKQ cornerFR(data = dataFront, side = -1, g = g, FDesign = FSprungFront, freeLengthFromLoad = freeLengthFromLoad) "Front right corner";
  VehicleRTM.QuarterCars.SLEKQ cornerRL(data = dataRear, side = 1, g = g, FDesign = FSprungRear, freeLengthFromLoad = freeLengthFromLoad) "Rear left corner";
  VehicleRTM.QuarterCars.SLEKQ cornerRR(data = dataRear, side = -1, g = g, FDesign = FSprungRear, freeLengthFromLoad = freeLengthFromLoad) "Rear right corner";

  VehicleRTM.Units.Velocity vHeave(start = 0, fixed = true) "Heave velocity";
  VehicleRTM.Units.AngularVelocity vRoll(start = 0, fixed = true) "Roll rate";
  VehicleRTM.Units.AngularVelocity vPitch(start = 0, fixed = true) "Pitch rate";
  VehicleRTM.Units.AngularAcceleration aRoll "Roll acceleration";
  VehicleRTM.Units.AngularAcceleration aPitch "Pitch acceleration";
  VehicleRTM.Units.Position zBody[4] "Vertical displacement of the body at the wheel centres";
  VehicleRTM.Units.Velocity vBody[4] "Vertical velocity of the body at the wheel centres";
  VehicleRTM.Units.Acceleration aBody[4] "Vertical acceleration of the body at the wheel centres";
protected
  VehicleRTM.Units.Force FB0[4] "Corner forces on the body at zero body acceleration";
  VehicleRTM.Units.Mass mu[4] "Corner coupling masses";
  Real M11(unit = "kg");
  Real M12(unit = "kg.m");
  Real M13(unit = "kg.m");
  Real M22(unit = "kg.m2");
  Real M23(unit = "kg.m2");
  Real M33(unit = "kg.m2");
  VehicleRTM.Units.Force f1 "Generalized force on the heave";
  VehicleRTM.Units.Torque f2 "Generalized force on the roll";
  VehicleRTM.Units.Torque f3 "Generalized force on the pitch";
  Real A11(unit = "kg2.m4");
  Real A12(unit = "kg2.m3");
  Real A13(unit = "kg2.m3");
  Real A22(unit = "kg2.m2");
  Real A23(unit = "kg2.m2");
  Real A33(unit = "kg2.m2");
  Real detM(unit = "kg3.m4");
equation
  // Corners: no homotopy coupling in the vehicle model
  cornerFL.lambda = 0;
  cornerFR.lambda = 0;
  cornerRL.lambda = 0;
  cornerRR.lambda = 0;
  cornerFL.GI = 0;
  cornerFR.GI = 0;
  cornerRL.GI = 0;
  cornerRR.GI = 0;
  cornerFL.GP = 0;
  cornerFR.GP = 0;
  cornerRL.GP = 0;
  cornerRR.GP = 0;
  cornerFL.GD = 0;
  cornerFR.GD = 0;
  cornerRL.GD = 0;
  cornerRR.GD = 0;
  cornerFL.zRef = 0;
  cornerFR.zRef = 0;
  cornerRL.zRef = 0;
  cornerRR.zRef = 0;
  cornerFL.vRef = 0;
  cornerFR.vRef = 0;
  cornerRL.vRef = 0;
  cornerRR.vRef = 0;
  cornerFL.aRef = 0;
  cornerFR.aRef = 0;
  cornerRL.aRef = 0;
  cornerRR.aRef = 0;
  // Body kinematics at the wheel centres (small roll and pitch)
  der(heave) = vHeave;
  der(roll) = vRoll;
  der(pitch) = vPitch;
  der(vHeave) = aHeave;
  der(vRoll) = aRoll;
  der(vPitch) = aPitch;
  for i in 1:4 loop
    zBody[i] = heave + y[i]*roll - x[i]*pitch;
    vBody[i] = vHeave + y[i]*vRoll - x[i]*vPitch;
    aBody[i] = aHeave + y[i]*aRoll - x[i]*aPitch;
  end for;
  cornerFL.aBody = aBody[1];
  cornerFR.aBody = aBody[2];
  cornerRL.aBody = aBody[3];
  cornerRR.aBody = aBody[4];
  zWheel = {cornerFL.z, cornerFR.z, cornerRL.z, cornerRR.z};
  // Tyres: linear spring and damper between post and wheel centre, no tension (lift-off)
  FTyre[1] = max(0, dataFront.cTyre*(delta0[1] + zPost[1] - zBody[1] - cornerFL.z) + dataFront.dTyre*(vPost[1] - vBody[1] - cornerFL.v));
  FTyre[2] = max(0, dataFront.cTyre*(delta0[2] + zPost[2] - zBody[2] - cornerFR.z) + dataFront.dTyre*(vPost[2] - vBody[2] - cornerFR.v));
  FTyre[3] = max(0, dataRear.cTyre*(delta0[3] + zPost[3] - zBody[3] - cornerRL.z) + dataRear.dTyre*(vPost[3] - vBody[3] - cornerRL.v));
  FTyre[4] = max(0, dataRear.cTyre*(delta0[4] + zPost[4] - zBody[4] - cornerRR.z) + dataRear.dTyre*(vPost[4] - vBody[4] - cornerRR.v));
  cornerFL.FZ = FTyre[1];
  cornerFR.FZ = FTyre[2];
  cornerRL.FZ = FTyre[3];
  cornerRR.FZ = FTyre[4];
  // Body: heave, roll, pitch with the corner coupling masses, solved explicitly (Cramer's rule)
  FB0 = {cornerFL.FBody0, cornerFR.FBody0, cornerRL.FBody0, cornerRR.FBody0};
  mu = {cornerFL.mu, cornerFR.mu, cornerRL.mu, cornerRR.mu};
  M11 = body.m + sum(mu);
  M12 = sum(mu[i]*y[i] for i in 1:4);
  M13 = -sum(mu[i]*x[i] for i in 1:4);
  M22 = body.Ixx + sum(mu[i]*y[i]^2 for i in 1:4);
  M23 = -sum(mu[i]*x[i]*y[i] for i in 1:4);
  M33 = body.Iyy + sum(mu[i]*x[i]^2 for i in 1:4);
  f1 = sum(FB0) - body.m*g;
  f2 = sum(y[i]*FB0[i] for i in 1:4);
  f3 = -sum(x[i]*FB0[i] for i in 1:4);
  A11 = M22*M33 - M23^2;
  A12 = M13*M23 - M12*M33;
  A13 = M12*M23 - M13*M22;
  A22 = M11*M33 - M13^2;
  A23 = M12*M13 - M11*M23;
  A33 = M11*M22 - M12^2;
  detM = M11*A11 + M12*A12 + M13*A13;
  aHeave = (A11*f1 + A12*f2 + A13*f3)/detM;
  aRoll = (A12*f1 + A22*f2 + A23*f3)/detM;
  aPitch = (A13*f1 + A23*f2 + A33*f3)/detM;
  annotation (Documentation(info = "<html>
<p>The full-vehicle model of the SLEKQ paper (Sec. 5) for four-post heave and pitch tests: four
<a href=\"modelica://VehicleRTM.QuarterCars.SLEKQ\">SLEKQ</a> corners attached to one rigid sprung
body, each standing on a linear tyre spring and damper (data <code>cTyre</code>, <code>dTyre</code> of
the corner record, no tension) on a post whose height is an input.</p>
<h4>Degrees of freedom (honest count)</h4>
<p>The paper calls the model 10-DoF: 6 body DoF plus one travel per wheel. On a four-post rig the
posts act vertically only and, in this model, the corners pass only vertical forces to the body (the
tyres carry no horizontal force, the path inertia's horizontal reactions are not modelled), so the
longitudinal, lateral and yaw motions of the body would be neither excited nor coupled: the rig holds
them, and the model fixes them instead of carrying three states that stay identically at rest. The
model therefore integrates <b>7 DoF</b>: body heave, roll and pitch plus the four wheel travels
(14 states, and one friction state per corner, <code>sFriction</code>, that carries no force unless
the corner data set <code>fFriction</code>). The class keeps the paper's name.</p>
<h4>Body equations</h4>
<p>Linear ride model of the body about design ride height (small roll and pitch angles): the body's
vertical displacement at wheel <i>i</i>, placed at <i>(x<sub>i</sub>, y<sub>i</sub>)</i> from the CoG, is
<i>z<sub>B,i</sub> = h + y<sub>i</sub>&phi; - x<sub>i</sub>&theta;</i> (ISO 8855: roll &phi; positive right side
down, pitch &theta; positive nose down). Each corner gets <i>a<sub>B,i</sub></i> as its body acceleration and
returns its vertical force on the body <i>F<sub>Body,i</sub> = F<sub>Body0,i</sub> - &mu;<sub>i</sub> a<sub>B,i</sub></i>
(&mu;<sub>i</sub> from the horizontal path inertia). Then</p>
<p><i>m&nbsp;h&#776; = &Sigma;F<sub>Body,i</sub> - m g</i>, &nbsp; <i>I<sub>xx</sub>&phi;&#776; = &Sigma;y<sub>i</sub>F<sub>Body,i</sub></i>, &nbsp;
<i>I<sub>yy</sub>&theta;&#776; = -&Sigma;x<sub>i</sub>F<sub>Body,i</sub></i>,</p>
<p>which, with the coupling masses moved to the left, is a symmetric 3&times;3 linear system in
<i>(h&#776;, &phi;&#776;, &theta;&#776;)</i> solved explicitly by Cramer's rule, so the model has no
algebraic loop. The roll-yaw product of inertia plays no role since yaw is held.</p>
<h4>Static state</h4>
<p>With <code>freeLengthFromLoad = true</code> every corner's spring free length is computed from the
static sprung load of its axle, <i>m g b/(2l)</i> front and <i>m g a/(2l)</i> rear, and the tyres
start with the matching static deflection <code>delta0</code>, so the car starts at rest at design
ride height (heave = roll = pitch = 0, all travels 0) with the posts at zero. With
<code>freeLengthFromLoad = false</code> the records' free lengths are used and the car settles where
the corner equilibria put it.</p>
<h4>Inputs and outputs</h4>
<p>Inputs: <code>zPost[4]</code> [m], <code>vPost[4]</code> [m/s] (FL, FR, RL, RR; the velocities feed
only the tyre damping, so that no input is differentiated). Outputs: <code>heave</code> [m],
<code>roll</code>, <code>pitch</code> [rad], <code>aHeave</code> [m/s2], <code>zWheel[4]</code> [m],
<code>FTyre[4]</code> [N]. The corners (<code>cornerFL</code> ... <code>cornerRR</code>) carry spring,
damper and kinematic outputs; their homotopy inputs are set to zero here.</p>
</html>"));
end FourPost10DoF;
