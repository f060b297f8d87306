within VehicleRTM.Suspensions;
record SolidAxleSingleLeaf "Rear solid axle on single-leaf springs with anti-roll bar (3.5 t LCV)"
  extends AxleData(
    solidAxle = true,
    track = 1.54,
    kinematics(
      u1 = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1},
      u2 = {-0.08, -0.06, -0.04, -0.02, 0, 0.02, 0.04, 0.06, 0.08},
      tx = {{-0.02*kinematics.u1[i] + 0.05*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      ty = {{0.5844*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      toe = {{-0.0009 - 0.12*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      camber = {{-1.2987*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      caster = {{0.0*kinematics.u1[i] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      springLength = {{0.25 - kinematics.u1[i] - 0.9*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      damperLength = {{0.40 - 0.95*(kinematics.u1[i] + 0.78*kinematics.u2[j]) for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      bumpStopLength = {{0.07 - kinematics.u1[i] - 0.6*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      reboundStopLength = {{0.40 - 0.95*(kinematics.u1[i] + 0.78*kinematics.u2[j]) for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      antiRollBarLength = {{0.20 - 0.1*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)}),
    compliance(
      force = {-10000, -5000, -2000, 0, 2000, 5000, 10000},
      moment = {-600, -300, 0, 300, 600},
      txFxOwn = {2e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      toeFxOwn = {0.2e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      tyFyOwn = {1e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      toeFyOwn = {-0.3e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      camberFyOwn = {-0.5e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      tyFyOpposite = {0.8e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      toeFyOpposite = {-0.2e-6*compliance.force[k] for k in 1:size(compliance.force, 1)}),
    stiffness(
      travel = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1},
      parallelForce = {6393 + 75000*stiffness.travel[k] + 4.0e6*stiffness.travel[k]^3 for k in 1:size(stiffness.travel, 1)},
      oppositeForce = {6393 + 60000*stiffness.travel[k] + 4.0e6*stiffness.travel[k]^3 for k in 1:size(stiffness.travel, 1)}),
    damper(
      velocity = {-1.5, -0.5, -0.1, 0, 0.1, 0.5, 1.5},
      force = {-3000, -1700, -500, 0, 1100, 3600, 6200}),
    bumpStop(contactLength = 0, deflection = {0, 0.01, 0.02, 0.03, 0.04}, force = {0, 1000, 3200, 8000, 18000}),
    reboundStop(contactLength = 0.495, deflection = {0, 0.005, 0.01, 0.02}, force = {0, 2500, 7500, 25000}));
  annotation (Documentation(info = "<html>
<p>Rear solid axle of a 3.5 t LCV on longitudinal single-leaf springs with an anti-roll bar
(LCV paper, Fig. 3 left). The maps run over parallel travel zp and opposite travel zo (Eq. 2).
Plausible example data, not measured: wheel rate 75 N/mm in parallel travel and only 60 N/mm in
opposite travel, so the anti-roll term is negative, the typical solid-axle trait that the paper
models as an internal force with a negative gain; roll centre 0.45 m (both contact patches move
sideways with axle roll); roll understeer 0.12 rad/m of opposite travel; axle roll camber.
Static corner load 6393 N (the 3.5 t LCV of <a href=\"modelica://VehicleRTM.Data.LCV35t\">Data.LCV35t</a>).</p>
</html>"));
end SolidAxleSingleLeaf;
