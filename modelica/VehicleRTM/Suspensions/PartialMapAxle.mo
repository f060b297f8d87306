within VehicleRTM.Suspensions;
partial model PartialMapAxle
  "Map-based axle without its spring and damper laws: kinematics, compliance, anti-roll term, stops, jacking"
  replaceable parameter QuadLeaf data constrainedby AxleData
    "Axle data (swap the variant here; the default is the 3.5 t van's front axle)"
    annotation (choicesAllMatching = true);
  input Units.Length travel[2] "Wheel travel left, right (positive in bump)";
  input Units.Velocity travelRate[2] "Wheel travel rate left, right";
  input Units.Length rackTravel "Rack travel (independent axle; unused for a solid axle)";
  input Units.Force wheelFx[2] "Longitudinal force at the wheel centre, wheel axes, left, right";
  input Units.Force wheelFy[2] "Lateral force at the wheel centre, wheel axes, left, right";
  input Units.Torque wheelMz[2] "Aligning moment at the wheel, left, right";
  input Units.Force contactFx[2] "Tyre longitudinal force in vehicle axes, left, right";
  input Units.Force contactFy[2] "Tyre lateral force in vehicle axes, left, right";
  output Units.Force verticalForce[2] "Suspension force at the wheel centre, pushing the wheel down and the body up";
  output Units.Force jackingForce[2] "Generalized force of the tyre horizontal forces on each wheel travel";
  output Units.Force antiRollForce "Anti-roll term on the left wheel: opposite(zo) - parallel(zo)";
  output Units.Force damperForce[2] "Damper force (positive = tension; the extending class gives its law)";
  output Units.Force bumpStopForce[2] "Bump-stop force";
  output Units.Force reboundStopForce[2] "Rebound-stop force";
  output Units.Length tx[2] "Wheel-centre x displacement incl. compliance";
  output Units.Length ty[2] "Wheel-centre y displacement incl. compliance (ISO y, left positive)";
  output Units.Angle toe[2] "Wheel rotation about z incl. compliance (ISO: positive = heading left)";
  output Units.Angle camber[2] "Camber incl. compliance (positive = top outward)";
  output Units.Angle kinematicCamber[2] "Camber from the kinematic maps alone (positive = top outward)";
  output Units.Angle caster[2] "Caster";
  output Units.Length springLength[2] "Spring length";
  output Units.Length antiRollBarLength[2] "Anti-roll-bar drop-link length";
  output Units.Velocity contactPathVx[2]
    "Contact-point velocity along the kinematic path, vehicle x: sum over j of d tx / d travel[j] * travelRate[j]";
  output Units.Velocity contactPathVy[2]
    "Contact-point velocity along the kinematic path, vehicle y (ISO): sum over j of d ty / d travel[j] * travelRate[j]";
  final parameter Real designDtxds[2, 2](each unit = "1") = designPathDerivatives(data.kinematics.u1,
    data.kinematics.u2, data.kinematics.tx, data.solidAxle, data.kinematics.linearExtrapolation)
    "d tx[i] / d travel[j] at design position (zero travel, zero rack travel)";
  final parameter Real designDtyds[2, 2](each unit = "1") = diagonal(side)*designPathDerivatives(data.kinematics.u1,
    data.kinematics.u2, data.kinematics.ty, data.solidAxle, data.kinematics.linearExtrapolation)
    "d ty[i] / d travel[j] at design position, vehicle y (ISO)";
protected
  constant Real side[2](each unit = "1") = {1, -1} "Mirror factor: left +1, right -1";
  Units.Length zo "Opposite travel (Eq. 2)";
  Units.Length c1[2] "First map argument per wheel";
  Units.Length c2[2] "Second map argument per wheel (mirrored for the right wheel)";
  Real dc1ds[2, 2](each unit = "1") "d c1[i] / d travel[j]";
  Real dc2ds[2, 2](each unit = "1") "d c2[i] / d travel[j]";
  Units.Length kinTx[2];
  Units.Length kinTy[2];
  Units.Angle kinToe[2] "Toe from the kinematic maps alone (left-wheel frame)";
  Real dtxds[2, 2](each unit = "1") "d tx[i] / d travel[j] (left-wheel frame)";
  Real dtyds[2, 2](each unit = "1") "d ty[i] / d travel[j] (left-wheel frame)";
  Units.Length damperLength[2];
  Real ddamperds[2, 2](each unit = "1");
  Units.Length bumpLength[2];
  Real dbumpds[2, 2](each unit = "1");
  Units.Length reboundLength[2];
  Real dreboundds[2, 2](each unit = "1");
  Units.Velocity damperVelocity[2] "Damper length rate";
  Units.Force springForce[2] "Spring force per wheel at the wheel centre (the extending class gives its law)";
  Units.Length complianceTx[2] "Compliance x displacement, left-wheel frame";
  Units.Length complianceTy[2] "Compliance y displacement, left-wheel frame";
  Units.Angle complianceToe[2] "Compliance toe, left-wheel frame";
  Units.Angle complianceCamber[2] "Compliance camber, left-wheel frame";
equation
  zo = (travel[1] - travel[2])/2;
  antiRollForce = Tables.interp1(data.stiffness.travel, data.stiffness.oppositeForce, zo, true)
    - Tables.interp1(data.stiffness.travel, data.stiffness.parallelForce, zo, true);
  for i in 1:2 loop
    c1[i] = if data.solidAxle then (travel[1] + travel[2])/2 else travel[i];
    c2[i] = side[i]*(if data.solidAxle then zo else rackTravel);
    for j in 1:2 loop
      dc1ds[i, j] = if data.solidAxle then 0.5 else (if i == j then 1 else 0);
      dc2ds[i, j] = if data.solidAxle then 0.5*side[i]*side[j] else 0;
    end for;
  end for;
  // Kinematics, one grid search per wheel for every map, and compliance (Eq. 1), the loads of both wheels
  // seen in each wheel's mirrored (left-wheel) frame.
  (kinTx, kinTy, kinToe, kinematicCamber, caster, springLength, damperLength, bumpLength, reboundLength,
    antiRollBarLength, dtxds, dtyds, ddamperds, dbumpds, dreboundds) = axleKinematics(
    data.kinematics.u1, data.kinematics.u2, data.kinematics.tx, data.kinematics.ty, data.kinematics.toe,
    data.kinematics.camber, data.kinematics.caster, data.kinematics.springLength,
    data.kinematics.damperLength, data.kinematics.bumpStopLength, data.kinematics.reboundStopLength,
    data.kinematics.antiRollBarLength, data.kinematics.linearExtrapolation, c1, c2, dc1ds, dc2ds);
  (complianceTx, complianceTy, complianceToe, complianceCamber) = axleCompliance(
    data.compliance.force, data.compliance.moment, data.compliance.txFxOwn, data.compliance.txFxOpposite,
    data.compliance.txFyOwn, data.compliance.txFyOpposite, data.compliance.txMzOwn,
    data.compliance.txMzOpposite, data.compliance.tyFxOwn, data.compliance.tyFxOpposite,
    data.compliance.tyFyOwn, data.compliance.tyFyOpposite, data.compliance.tyMzOwn,
    data.compliance.tyMzOpposite, data.compliance.toeFxOwn, data.compliance.toeFxOpposite,
    data.compliance.toeFyOwn, data.compliance.toeFyOpposite, data.compliance.toeMzOwn,
    data.compliance.toeMzOpposite, data.compliance.camberFxOwn, data.compliance.camberFxOpposite,
    data.compliance.camberFyOwn, data.compliance.camberFyOpposite, data.compliance.camberMzOwn,
    data.compliance.camberMzOpposite, wheelFx, wheelFy, wheelMz);
  for i in 1:2 loop
    tx[i] = kinTx[i] + complianceTx[i];
    ty[i] = side[i]*(kinTy[i] + complianceTy[i]);
    toe[i] = side[i]*(kinToe[i] + complianceToe[i]);
    camber[i] = kinematicCamber[i] + complianceCamber[i];
    // Force elements (Eq. 3-4): the damper's length rate and the stop forces along their lengths (the
    // spring and damper laws are the extending class's).
    damperVelocity[i] = ddamperds[i, 1]*travelRate[1] + ddamperds[i, 2]*travelRate[2];
    bumpStopForce[i] = stopForce(data.bumpStop.deflection, data.bumpStop.force, data.bumpStop.contactLength - bumpLength[i]);
    reboundStopForce[i] = stopForce(data.reboundStop.deflection, data.reboundStop.force, reboundLength[i] - data.reboundStop.contactLength);
  end for;
  for i in 1:2 loop
    // The kinematic part of the contact point's motion relative to the body; the compliance
    // displacement follows the tyre forces and its rate is not part of the slip.
    contactPathVx[i] = dtxds[i, 1]*travelRate[1] + dtxds[i, 2]*travelRate[2];
    contactPathVy[i] = side[i]*(dtyds[i, 1]*travelRate[1] + dtyds[i, 2]*travelRate[2]);
  end for;
  for j in 1:2 loop
    // Virtual work: an element of length L(travel) carrying tension T does work T*dL on the travels;
    // the vertical force pushing wheel j down is minus that generalized force.
    verticalForce[j] = springForce[j]
      + damperForce[1]*ddamperds[1, j] + damperForce[2]*ddamperds[2, j]
      - bumpStopForce[1]*dbumpds[1, j] - bumpStopForce[2]*dbumpds[2, j]
      + reboundStopForce[1]*dreboundds[1, j] + reboundStopForce[2]*dreboundds[2, j];
    jackingForce[j] = contactFx[1]*dtxds[1, j] + contactFx[2]*dtxds[2, j]
      + contactFy[1]*side[1]*dtyds[1, j] + contactFy[2]*side[2]*dtyds[2, j];
  end for;
  annotation (Documentation(info = "<html>
<p>Everything of <a href=\"modelica://VehicleRTM.Suspensions.MapAxle\">MapAxle</a> except its two
force laws: kinematics and compliance (Eq. 1), the anti-roll term, bump and rebound stops (Eq. 3),
jacking and the contact-path velocities, and the virtual-work sum that brings every element force to
the wheel centre (<code>verticalForce</code>). An extending class gives one equation per wheel
<code>i</code> for each of</p>
<ul>
<li><code>springForce[i]</code>: the spring force at the wheel centre (pushing the wheel down, the
body up) as a function of the travels, usually plus <code>side[i]*antiRollForce</code>;</li>
<li><code>damperForce[i]</code>: the damper force along the damper (positive in tension) as a
function of <code>damperVelocity[i]</code> (positive in extension).</li>
</ul>
<p>A user's suspension variant with another spring or damper law extends this class, gives those two
equations and is swapped into <code>Vehicles.RTM14DoF</code> by redeclaring <code>frontAxle</code> or
<code>rearAxle</code> (see the worked example <code>examples/MyVan</code> of the repository).</p>
</html>"));
end PartialMapAxle;
