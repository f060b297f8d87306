within VehicleRTM.Suspensions;
record QuadLeaf "Front double wishbone with transverse mono-leaf spring (3.5 t LCV)"
  extends AxleData(
    solidAxle = false,
    track = 1.72,
    kinematics(
      u1 = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1},
      u2 = {-0.08, -0.06, -0.04, -0.02, 0, 0.02, 0.04, 0.06, 0.08},
      tx = {{-0.05*kinematics.u1[i] - 0.2*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      ty = {{0.12*kinematics.u1[i] - 0.6*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      toe = {{-0.0017 + 0.02*kinematics.u1[i] - 0.5*kinematics.u1[i]^2 + 6.0*kinematics.u2[j] + 6.0*kinematics.u2[j]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      camber = {{-0.3*kinematics.u1[i] - 1.0*kinematics.u1[i]^2 + 0.3*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      caster = {{0.06 + 0.2*kinematics.u1[i] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      springLength = {{0.30 - 0.65*kinematics.u1[i] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      damperLength = {{0.36 - 0.62*kinematics.u1[i] - 0.3*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      bumpStopLength = {{0.055 - 0.62*kinematics.u1[i] - 0.3*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      reboundStopLength = {{0.36 - 0.62*kinematics.u1[i] - 0.3*kinematics.u1[i]^2 for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
      antiRollBarLength = {{0.30 - 0.65*kinematics.u1[i] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)}),
    compliance(
      force = {-10000, -5000, -2000, 0, 2000, 5000, 10000},
      moment = {-600, -300, 0, 300, 600},
      txFxOwn = {1.5e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      toeFxOwn = {0.6e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      tyFyOwn = {2e-7*compliance.force[k] for k in 1:size(compliance.force, 1)},
      toeFyOwn = {-1.75e-6*compliance.force[k]*(1 - 0.25*abs(compliance.force[k])/10000) for k in 1:size(compliance.force, 1)},
      camberFyOwn = {-2.5e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      toeMzOwn = {1.7e-5*compliance.moment[k] for k in 1:size(compliance.moment, 1)},
      toeFyOpposite = {-0.4e-6*compliance.force[k] for k in 1:size(compliance.force, 1)},
      toeMzOpposite = {0.6e-5*compliance.moment[k] for k in 1:size(compliance.moment, 1)}),
    stiffness(
      travel = {-0.1, -0.075, -0.05, -0.025, 0, 0.025, 0.05, 0.075, 0.1},
      parallelForce = {6581 + 50000*stiffness.travel[k] + 2.0e6*stiffness.travel[k]^3 for k in 1:size(stiffness.travel, 1)},
      oppositeForce = {6581 + 94000*stiffness.travel[k] + 2.0e6*stiffness.travel[k]^3 for k in 1:size(stiffness.travel, 1)}),
    damper(
      velocity = {-1.5, -0.5, -0.1, 0, 0.1, 0.5, 1.5},
      force = {-2800, -1500, -450, 0, 1000, 3200, 5500}),
    bumpStop(contactLength = 0, deflection = {0, 0.01, 0.02, 0.03, 0.04}, force = {0, 800, 2500, 6000, 14000}),
    reboundStop(contactLength = 0.415, deflection = {0, 0.005, 0.01, 0.02}, force = {0, 2000, 6000, 20000}));
  annotation (Documentation(info = "<html>
<p>QuadLeaf front suspension of a 3.5 t LCV: double wishbones with a transverse mono-leaf spring
that acts as spring in parallel travel and as anti-roll bar in opposite travel (LCV paper,
Fig. 2 left). Plausible example data, not measured: wheel rate 50 N/mm in parallel and
94 N/mm in opposite travel (the leaf's anti-roll contribution), progressive; roll centre about
0.10 m (contact patch moves 0.12 mm outward per mm of bump); bump steer 0.02 rad/m toe-out
(understeer on the outer wheel); Ackermann through the quadratic rack term; lateral-force
compliance steer 0.1 deg/kN toward understeer. Static corner load 6581 N (the 3.5 t LCV of
<a href=\"modelica://VehicleRTM.Data.LCV35t\">Data.LCV35t</a>).</p>
</html>"));
end QuadLeaf;
