within VehicleRTM.Suspensions;
record SolidAxleMultiLeaf "Rear solid axle on multi-leaf semi-elliptic springs with anti-roll bar, dual tyres (7 t LCV)"
  extends AxleData(
    solidAxle = true,
    track = 1.7,
    kinematics(
      u1 = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1},
      u2 = {-0.08, -0.06, -0.04, -0.02, 0, 0.02, 0.04, 0.06, 0.08},
      tx = {{-0.02*kinematics.u1[i] + 0.05*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      ty = {{0.5882*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      toe = {{-0.0009 - 0.1*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      camber = {{-1.1765*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      caster = {{0.0*kinematics.u1[i] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      springLength = {{0.25 - kinematics.u1[i] - 0.9*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      damperLength = {{0.40 - 0.95*(kinematics.u1[i] + 0.78*kinematics.u2[j]) for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      bumpStopLength = {{0.07 - kinematics.u1[i] - 0.6*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      reboundStopLength = {{0.40 - 0.95*(kinematics.u1[i] + 0.78*kinematics.u2[j]) for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      antiRollBarLength = {{0.20 - 0.1*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)}),
    compliance(
      force = {-10000, -5000, -2000, 0, 2000, 5000, 10000},
      moment = {-600, -300, 0, 300, 600},
      txFxOwn = {1.2e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      toeFxOwn = {0.12e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      tyFyOwn = {0.6e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      toeFyOwn = {-0.18e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      camberFyOwn = {-0.3e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      tyFyOpposite = {0.48e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      toeFyOpposite = {-0.12e-6*compliance.force[k] for k in 1:size(compliance.force, 1)}),
    stiffness(
      travel = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1},
      parallelForce = {13486 + 180000*stiffness.travel[k] + 8.0e6*stiffness.travel[k]^3 for k in 1:size(stiffness.travel, 1)},
      oppositeForce = {13486 + 150000*stiffness.travel[k] + 8.0e6*stiffness.travel[k]^3 for k in 1:size(stiffness.travel, 1)}),
    damper(
      velocity = {-1.5, -0.5, -0.1, 0, 0.1, 0.5, 1.5},
      force = {-5000, -2800, -850, 0, 1800, 5600, 9800}),
    bumpStop(contactLength = 0, deflection = {0, 0.01, 0.02, 0.03, 0.04}, force = {0, 2500, 7500, 18000, 40000}),
    reboundStop(contactLength = 0.495, deflection = {0, 0.005, 0.01, 0.02}, force = {0, 4000, 12000, 40000}));
  annotation (Documentation(info = "<html>
<p>Rear solid axle of a 7 t LCV on multi-layer semi-elliptic leaf springs with an anti-roll bar
and dual tyres (LCV paper, Fig. 3 right). Maps over parallel and opposite travel (Eq. 2).
Plausible example data, not measured: wheel rate 180 N/mm parallel, 150 N/mm opposite
(negative anti-roll term of the solid axle); roll centre 0.50 m; roll understeer 0.10 rad/m of
opposite travel; compliance 60 % of the single-leaf axle. Static corner load 13486 N (the 7 t LCV of <a href=\"modelica://VehicleRTM.Data.LCV70t\">Data.LCV70t</a>).</p>
</html>"));
end SolidAxleMultiLeaf;
