within VehicleRTM.Suspensions;
record QuadTor "Front double wishbone with longitudinal torsion bars and anti-roll bar (7 t LCV)"
  extends AxleData(
    solidAxle = false,
    track = 1.74,
    kinematics(
      u1 = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1},
      u2 = {-0.08, -0.06, -0.04, -0.02, 0, 0.02, 0.04, 0.06, 0.08},
      tx = {{-0.04*kinematics.u1[i] - 0.2*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      ty = {{0.10*kinematics.u1[i] - 0.5*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      toe = {{-0.0015 + 0.015*kinematics.u1[i] - 0.4*kinematics.u1[i]^2 + 5.6*kinematics.u2[j] + 5.0*kinematics.u2[j]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      camber = {{-0.25*kinematics.u1[i] - 0.8*kinematics.u1[i]^2 + 0.25*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      caster = {{0.07 + 0.15*kinematics.u1[i] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      springLength = {{0.40 - 0.5*kinematics.u1[i] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      damperLength = {{0.38 - 0.6*kinematics.u1[i] - 0.25*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      bumpStopLength = {{0.06 - 0.6*kinematics.u1[i] - 0.25*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      reboundStopLength = {{0.38 - 0.6*kinematics.u1[i] - 0.25*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      antiRollBarLength = {{0.25 - 0.45*kinematics.u1[i] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)}),
    compliance(
      force = {-10000, -5000, -2000, 0, 2000, 5000, 10000},
      moment = {-600, -300, 0, 300, 600},
      txFxOwn = {1.2e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      toeFxOwn = {0.5e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      tyFyOwn = {1.5e-7*compliance.force[k] for k in 1:size(compliance.force, 1)},
      toeFyOwn = {-1.4e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      camberFyOwn = {-2.0e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      toeMzOwn = {1.4e-5*compliance.moment[k] for k in 1:size(compliance.moment, 1)},
      toeFyOpposite = {-0.3e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      toeMzOpposite = {0.5e-5*compliance.moment[k] for k in 1:size(compliance.moment, 1)}),
    stiffness(
      travel = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1},
      parallelForce = {11800 + 85000*stiffness.travel[k] + 3.0e6*stiffness.travel[k]^3 for k in 1:size(stiffness.travel, 1)},
      oppositeForce = {11800 + 155000*stiffness.travel[k] + 3.0e6*stiffness.travel[k]^3 for k in 1:size(stiffness.travel, 1)}),
    damper(
      velocity = {-1.5, -0.5, -0.1, 0, 0.1, 0.5, 1.5},
      force = {-4200, -2300, -700, 0, 1500, 4800, 8500}),
    bumpStop(contactLength = 0, deflection = {0, 0.01, 0.02, 0.03, 0.04}, force = {0, 1500, 4500, 11000, 25000}),
    reboundStop(contactLength = 0.436, deflection = {0, 0.005, 0.01, 0.02}, force = {0, 3000, 9000, 30000}));
  annotation (Documentation(info = "<html>
<p>QuadTor front suspension of a 7 t LCV: double wishbones, two longitudinal torsion bars as
springs and a separate anti-roll bar (LCV paper, Fig. 2 right). Plausible example data, not
measured: wheel rate 85 N/mm parallel, 155 N/mm opposite (torsion bars plus anti-roll bar),
progressive; roll centre about 0.09 m; bump steer 0.015 rad/m toe-out; compliance steer
0.08 deg/kN toward understeer. Static corner load 11800 N (the 7 t LCV of
<a href=\"modelica://VehicleRTM.Data.LCV70t\">Data.LCV70t</a>).</p>
</html>"));
end QuadTor;
