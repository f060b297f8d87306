within VehicleRTM.Vehicles;
model RTM14DoF "14-DoF real-time vehicle model: 6-DoF sprung mass, wheel travel and spin per wheel, map-based suspension"
  // ---- Data: swap variants here -------------------------------------------------------------
  replaceable parameter Data.LCV35t chassis constrainedby ChassisData "Geometry, masses (Eq. 5-7), inertias, gains"
    annotation (choicesAllMatching = true);
  replaceable parameter Suspensions.QuadLeaf frontAxleData constrainedby Suspensions.AxleData
    "Front axle maps (QuadLeaf, QuadTor, ...)" annotation (choicesAllMatching = true);
  replaceable parameter Suspensions.SolidAxleSingleLeaf rearAxleData constrainedby Suspensions.AxleData
    "Rear axle maps (single-leaf, multi-leaf solid axle, ...)" annotation (choicesAllMatching = true);
  replaceable parameter Data.Tires.UAZBUS_225_75R16 frontTire constrainedby Tires.MFCoefficients
    "Front tyre (Magic Formula coefficients)" annotation (choicesAllMatching = true);
  replaceable parameter Data.Tires.UAZBUS_225_75R16 rearTire constrainedby Tires.MFCoefficients
    "Rear tyre (Magic Formula coefficients, one tyre of the station)" annotation (choicesAllMatching = true);
  replaceable parameter Powertrain.Engine30Diesel engine constrainedby Powertrain.EngineData
    "Engine torque map" annotation (choicesAllMatching = true);
  parameter Units.Velocity initialSpeed = 0 "Initial forward speed (wheels start rolling at this speed)";
  parameter Units.Acceleration g = 9.81 "Gravity";
  parameter Units.AngularVelocity brakeSpeedRegularisation = 0.5
    "Wheel-speed scale of the tanh regularisation of the brake torque near standstill";
  parameter Boolean wheelTorqueInput = false
    "true: the rear wheels take the measured hub torque rearWheelTorque (drive minus brake), engine and rear brakes disconnected";
  parameter Units.Angle brakeStictionAngle = 0.01 "Pressure brakes: wheel rotation over which the pads' friction builds up from rest";
  parameter Units.Time brakeStictionLag = 0.003
    "Pressure brakes: time constant of the pads' friction at rest (its damping)";
  parameter Units.Time brakeSlidingLag = 0.01
    "Pressure brakes: relaxation time of the pads' friction state at speed (its fastest rate is 1/brakeSlidingLag)";
  parameter Units.Length accelerometerPosition[3] = {0, 0, 0}
    "Body-fixed accelerometer (axSensor, aySensor): position relative to the sprung centre of gravity, body axes";
  parameter Units.Length velocitySensorPosition[3] = {0, 0, 0}
    "Body-fixed velocity sensor (sideslipSensor): position relative to the sprung centre of gravity, body axes";
  parameter Boolean travelAlongBody = true
    "true: the wheel travels along the body's z axis, tilted by roll and pitch, so the tyre horizontal forces act on the travel through the tilt (false: the road vertical, as before)";
  parameter Boolean wheelGyroscopicSteer = true
    "true: a spinning wheel that rolls with the body (independent axle) loads its steering compliance with its gyroscopic moment -spin inertia x spin x roll rate (false: the tyre's Mz alone, as before)";

  // ---- Driver and road inputs (ISO 8855) ----------------------------------------------------
  input Units.Angle steeringWheelAngle "Steering-wheel angle, positive to the left";
  input Units.Ratio throttle "Accelerator pedal 0..1";
  input Units.Ratio brakePedal "Brake pedal 0..1";
  input Units.Length roadHeight[4] "Road height under each wheel FL, FR, RL, RR";
  input Units.Pressure brakePressure "Brake line pressure, through the pressure brakes (adds to the pedal brakes)";
  input Units.Torque rearWheelTorque[2] "Measured hub torque RL, RR (drive minus brake); used when wheelTorqueInput";
  input Units.Ratio roadFriction[4](each start = 1)
    "Road friction under each wheel FL, FR, RL, RR relative to the tyre file's road (scales the tyres' LMUX, LMUY; 1 = that road)";

  // ---- Outputs -----------------------------------------------------------------------------
  output Units.Acceleration ax "Longitudinal acceleration of the whole vehicle's centre of gravity, (sum Fx - drag)/m, yaw frame";
  output Units.Acceleration ay "Lateral acceleration of the whole vehicle's centre of gravity, sum Fy/m, yaw frame, left positive";
  output Units.Acceleration axSprung "Longitudinal acceleration of the sprung mass's centre of gravity, yaw frame";
  output Units.Acceleration aySprung "Lateral acceleration of the sprung mass's centre of gravity, yaw frame";
  output Units.Acceleration axSensor
    "Body-fixed accelerometer at accelerometerPosition, body x axis: specific force incl. the gravity component";
  output Units.Acceleration aySensor
    "Body-fixed accelerometer at accelerometerPosition, body y axis: specific force incl. the gravity component";
  output Units.AngularVelocity yawRate(start = 0, fixed = true) "Yaw rate (positive to the left)";
  output Units.Angle roll(start = 0, fixed = true) "Roll angle (positive = right side down)";
  output Units.Angle pitch(start = 0, fixed = true) "Pitch angle (positive = nose down)";
  output Units.Angle sideslip "Sideslip angle at the whole vehicle's centre of gravity (mass-weighted velocity)";
  output Units.Angle sideslipSprung "Sideslip angle at the sprung mass's centre of gravity, atan(vy/vx)";
  output Units.Angle sideslipSensor "Sideslip angle of the body-fixed point velocitySensorPosition";
  output Units.Angle rollRelativeToRoad "Body roll relative to the plane of the four road heights";
  output Units.Angle pitchRelativeToRoad "Body pitch relative to the plane of the four road heights";
  output Units.Velocity speed "Speed of the centre of gravity";
  output Units.Force Fz[4] "Tyre vertical force per wheel station";
  output Units.Force lateralLoadTransfer "Total lateral load transfer ((FR+RR) - (FL+RL))/2, positive to the right";
  output Units.Length wheelTravel[4] "Wheel travel per wheel (positive in bump)";
  output Units.Angle wheelSteerAngle[4] "Steer (toe) angle per wheel incl. kinematics and compliance";
  output Units.AngularVelocity wheelSpeed[4] "Wheel spin speed";

  // ---- Lumped masses (Eq. 5-7) -------------------------------------------------------------
  final parameter Units.Mass frontUnsprungMass = chassis.frontWheel + chassis.frontBrakeDisk + chassis.frontSpindle
    + chassis.frontUpright + chassis.frontLinkSplit*chassis.frontLinks "Eq. 5, per front corner";
  final parameter Units.Mass rearUnsprungMass = chassis.rearWheel + chassis.rearBrakeDisk + chassis.rearSpindle
    + chassis.drivelineSplit*chassis.rearDriveline/2 + chassis.rearFixed + chassis.rearLinkSplit*chassis.rearLinks
    "Eq. 6, per rear side";
  final parameter Units.Mass sprungMass = chassis.sprungBodies + 2*(1 - chassis.frontLinkSplit)*chassis.frontLinks
    + 2*(1 - chassis.rearLinkSplit)*chassis.rearLinks + (1 - chassis.drivelineSplit)*chassis.rearDriveline "Eq. 7";
  final parameter Units.Mass unsprungMass[4] = {frontUnsprungMass, frontUnsprungMass, rearUnsprungMass, rearUnsprungMass};
  final parameter Units.Mass totalMass = sprungMass + sum(unsprungMass) "Total vehicle mass";
  // ---- Geometry relative to the sprung centre of gravity -----------------------------------
  final parameter Units.Length cornerX[4] = {chassis.cogToFrontAxle, chassis.cogToFrontAxle,
    chassis.cogToFrontAxle - chassis.wheelbase, chassis.cogToFrontAxle - chassis.wheelbase} "Wheel-centre x at design";
  final parameter Units.Length cornerY[4] = {frontAxleData.track/2, -frontAxleData.track/2,
    rearAxleData.track/2, -rearAxleData.track/2} "Wheel-centre y at design";
  final parameter Real tiresPerStation[4](each unit = "1") = {1, 1, chassis.rearTiresPerWheel, chassis.rearTiresPerWheel};
  final parameter Units.Force staticLoad[4] = {
    sprungMass*g*(chassis.wheelbase - chassis.cogToFrontAxle)/(2*chassis.wheelbase) + frontUnsprungMass*g,
    sprungMass*g*(chassis.wheelbase - chassis.cogToFrontAxle)/(2*chassis.wheelbase) + frontUnsprungMass*g,
    sprungMass*g*chassis.cogToFrontAxle/(2*chassis.wheelbase) + rearUnsprungMass*g,
    sprungMass*g*chassis.cogToFrontAxle/(2*chassis.wheelbase) + rearUnsprungMass*g} "Static tyre load per station";
  final parameter Units.Length unloadedRadius[4] = {frontTire.UNLOADED_RADIUS, frontTire.UNLOADED_RADIUS,
    rearTire.UNLOADED_RADIUS, rearTire.UNLOADED_RADIUS};
  final parameter Units.Length designWheelHeight[4] = {unloadedRadius[i]
    - staticLoad[i]/(tiresPerStation[i]*(if i <= 2 then frontTire.VERTICAL_STIFFNESS*frontTire.LCZ
      else rearTire.VERTICAL_STIFFNESS*rearTire.LCZ))
    for i in 1:4} "Wheel-centre height at design position (statically loaded radius)";
  final parameter Real side[4](each unit = "1") = {1, -1, 1, -1} "Left +1, right -1";
  final parameter Units.Inertia yawInertia = chassis.Izz
    + 2*frontUnsprungMass*(chassis.cogToFrontAxle^2 + (frontAxleData.track/2)^2)
    + 2*rearUnsprungMass*((chassis.wheelbase - chassis.cogToFrontAxle)^2 + (rearAxleData.track/2)^2)
    "Yaw inertia of the whole vehicle about the sprung centre of gravity";
  // Lever arms of the unsprung masses for body rotations (design position): the wheel centre is
  // cogHeight - designWheelHeight below the sprung CoG and moves along its kinematic path when the
  // body rolls or pitches over standing wheels (travel = -y*roll, +x*pitch).
  final parameter Units.Length unsprungRollLever[4] = {chassis.cogHeight - designWheelHeight[i]
    - (if i <= 2 then sum(frontAxle.designDtyds[i, j]*cornerY[j] for j in 1:2)
       else sum(rearAxle.designDtyds[i - 2, j]*cornerY[j + 2] for j in 1:2)) for i in 1:4}
    "Lateral velocity of the unsprung mass per unit roll rate (its height above the roll centre)";
  final parameter Units.Length unsprungPitchLever[4] = {chassis.cogHeight - designWheelHeight[i]
    - (if i <= 2 then sum(frontAxle.designDtxds[i, j]*cornerX[j] for j in 1:2)
       else sum(rearAxle.designDtxds[i - 2, j]*cornerX[j + 2] for j in 1:2)) for i in 1:4}
    "Minus the longitudinal velocity of the unsprung mass per unit pitch rate";
  // Mass matrices of the body motion (kinetic energy of the sprung mass and of the unsprung masses
  // moving with the body and along their kinematic paths), for [aySprung, der(rollRate), der(yawRate)]
  // and [axSprung, der(pitchRate)]; the unsprung masses are left-right symmetric, so the two decouple:
  //   | totalMass           unsprungRollMoment  unsprungXMoment |      | totalMass             -unsprungPitchMoment |
  //   | unsprungRollMoment  rollInertia         rollYawProduct  |      | -unsprungPitchMoment  pitchInertia         |
  //   | unsprungXMoment     rollYawProduct      yawInertia      |
  final parameter Real unsprungRollMoment(unit = "kg.m") = unsprungMass*unsprungRollLever
    "Sum of unsprung mass x roll lever";
  final parameter Real unsprungXMoment(unit = "kg.m") = unsprungMass*cornerX "Sum of unsprung mass x wheel-centre x";
  final parameter Real unsprungPitchMoment(unit = "kg.m") = unsprungMass*unsprungPitchLever
    "Sum of unsprung mass x pitch lever";
  final parameter Units.Inertia rollInertia = chassis.Ixx + sum(unsprungMass[i]*unsprungRollLever[i]^2 for i in 1:4)
    "Roll inertia of the sprung mass plus the unsprung masses moving with the roll (about the sprung CoG)";
  final parameter Units.Inertia rollYawProduct = -chassis.Ixz
    + sum(unsprungMass[i]*unsprungRollLever[i]*cornerX[i] for i in 1:4) "Roll-yaw coupling of the mass matrix";
  final parameter Units.Inertia pitchInertia = chassis.Iyy + sum(unsprungMass[i]*unsprungPitchLever[i]^2 for i in 1:4)
    "Pitch inertia of the sprung mass plus the unsprung masses moving with the pitch";
  // ---- Subsystems --------------------------------------------------------------------------
  Steering.RigidSteering steering(ratio = chassis.steeringRatio);
  // The axles take their maps field by field, so that every open-sized grid takes its size from the axle's data
  // record. Each axle is replaceable by one with other spring and damper laws (any PartialMapAxle): the
  // constraining clause carries the maps to the replacement (Modelica 3.5, 7.3.2); the declaration repeats
  // them because rumoca applies a constraining clause's modifiers to a redeclared element only.
  replaceable Suspensions.MapAxle frontAxle(redeclare parameter Suspensions.AxleData data(solidAxle = frontAxleData.solidAxle,
    track = frontAxleData.track, kinematics = frontAxleData.kinematics, compliance = frontAxleData.compliance,
    stiffness = frontAxleData.stiffness, damper = frontAxleData.damper, bumpStop = frontAxleData.bumpStop,
    reboundStop = frontAxleData.reboundStop))
    constrainedby Suspensions.PartialMapAxle(redeclare parameter Suspensions.AxleData data(solidAxle = frontAxleData.solidAxle,
    track = frontAxleData.track, kinematics = frontAxleData.kinematics, compliance = frontAxleData.compliance,
    stiffness = frontAxleData.stiffness, damper = frontAxleData.damper, bumpStop = frontAxleData.bumpStop,
    reboundStop = frontAxleData.reboundStop))
    "Front axle: maps from frontAxleData" annotation (choicesAllMatching = true);
  replaceable Suspensions.MapAxle rearAxle(redeclare parameter Suspensions.AxleData data(solidAxle = rearAxleData.solidAxle,
    track = rearAxleData.track, kinematics = rearAxleData.kinematics, compliance = rearAxleData.compliance,
    stiffness = rearAxleData.stiffness, damper = rearAxleData.damper, bumpStop = rearAxleData.bumpStop,
    reboundStop = rearAxleData.reboundStop))
    constrainedby Suspensions.PartialMapAxle(redeclare parameter Suspensions.AxleData data(solidAxle = rearAxleData.solidAxle,
    track = rearAxleData.track, kinematics = rearAxleData.kinematics, compliance = rearAxleData.compliance,
    stiffness = rearAxleData.stiffness, damper = rearAxleData.damper, bumpStop = rearAxleData.bumpStop,
    reboundStop = rearAxleData.reboundStop))
    "Rear axle: maps from rearAxleData" annotation (choicesAllMatching = true);
  Tires.Tire tireFL(c = frontTire, roadFriction = roadFriction[1]);
  Tires.Tire tireFR(c = frontTire, roadFriction = roadFriction[2]);
  Tires.Tire tireRL(c = rearTire, roadFriction = roadFriction[3]);
  Tires.Tire tireRR(c = rearTire, roadFriction = roadFriction[4]);
  Powertrain.Driveline driveline(engine = engine);
  Brakes.PedalBrakes brakes(torqueGainFront = chassis.brakeTorqueFront, torqueGainRear = chassis.brakeTorqueRear);
  Brakes.PressureBrakes pressureBrakes(pistonAreaFront = chassis.brakePistonAreaFront,
    pistonAreaRear = chassis.brakePistonAreaRear, clampLinear = chassis.brakeClampLinear,
    clampQuadratic = chassis.brakeClampQuadratic, clampCubic = chassis.brakeClampCubic,
    frictionFront = chassis.brakeFrictionFront, frictionRear = chassis.brakeFrictionRear,
    radiusFront = chassis.brakeRadiusFront, radiusRear = chassis.brakeRadiusRear,
    stictionAngle = brakeStictionAngle, stictionLag = brakeStictionLag,
    slidingLag = brakeSlidingLag, rearCircuit = if wheelTorqueInput then 0 else 1);
  Aerodynamics.AeroDrag aero(dragArea = chassis.dragArea, height = chassis.aeroHeight);

  // ---- States ------------------------------------------------------------------------------
  Units.Position X(start = 0, fixed = true) "Global x of the centre of gravity";
  Units.Position Y(start = 0, fixed = true) "Global y of the centre of gravity";
  Units.Angle yaw(start = 0, fixed = true) "Yaw angle";
  Units.Velocity vx(start = initialSpeed, fixed = true) "Longitudinal velocity of the sprung CoG (yaw frame)";
  Units.Velocity vy(start = 0, fixed = true) "Lateral velocity of the sprung CoG (yaw frame)";
  Units.Position bodyHeight(start = chassis.cogHeight, fixed = true) "Height of the sprung centre of gravity";
  Units.Velocity bodyVerticalVelocity(start = 0, fixed = true) "Vertical velocity of the sprung mass";
  Units.AngularVelocity rollRate(start = 0, fixed = true) "Roll rate";
  Units.AngularVelocity pitchRate(start = 0, fixed = true) "Pitch rate";
  Units.Position wheelHeight[4](start = designWheelHeight, each fixed = true) "Wheel-centre height";
  Units.Velocity wheelVerticalVelocity[4](each start = 0, each fixed = true) "Wheel-centre vertical velocity";
  Units.AngularVelocity omega[4](start = {initialSpeed/Tires.effectiveRollingRadius(staticLoad[1], frontTire),
    initialSpeed/Tires.effectiveRollingRadius(staticLoad[2], frontTire),
    initialSpeed/Tires.effectiveRollingRadius(staticLoad[3]/chassis.rearTiresPerWheel, rearTire),
    initialSpeed/Tires.effectiveRollingRadius(staticLoad[4]/chassis.rearTiresPerWheel, rearTire)},
    each fixed = true) "Wheel spin speed (starts free rolling at the static load)";

  // ---- Internal variables ------------------------------------------------------------------
  Units.Length travelRate[4] "Wheel travel rate";
  Units.Length tireDeflection[4] "Tyre vertical deflection";
  Units.Velocity contactVx[4] "Contact-point velocity, vehicle x: body motion plus the kinematic path";
  Units.Velocity contactVy[4] "Contact-point velocity, vehicle y: body motion plus the kinematic path";
  Units.Length contactDepth[4] "Height of the sprung CoG above the contact point";
  Units.Velocity travelTiltVx[4] "Contact-point velocity, vehicle x, of the travel along the pitched body z axis";
  Units.Velocity travelTiltVy[4] "Contact-point velocity, vehicle y, of the travel along the rolled body z axis";
  Units.Length wheelX[4] "Wheel-centre x incl. kinematics";
  Units.Length wheelY[4] "Wheel-centre y incl. kinematics";
  Units.Angle camber[4] "Camber (positive top outward)";
  Units.Angle kinematicCamber[4] "Camber from the kinematic maps (positive top outward)";
  Units.Angle inclination[4] "Tyre inclination angle (ISO): kinematic camber and body roll";
  Units.Force wheelFx[4] "Tyre longitudinal force, wheel axes, all tyres of the station";
  Units.Force wheelFy[4] "Tyre lateral force, wheel axes, all tyres of the station";
  Units.Torque wheelMz[4] "Tyre aligning moment, all tyres of the station";
  Units.Torque gyroscopicMz[4] "Moment about z that rolling a spinning wheel with the body takes (wheel spin inertia x spin x roll rate)";
  Units.Force Fx[4] "Tyre longitudinal force, vehicle axes";
  Units.Force Fy[4] "Tyre lateral force, vehicle axes";
  Units.Force suspensionForce[4] "Suspension force at the wheel centre (pushes the body up)";
  Units.Force jackingForce[4] "Generalized force of the tyre horizontal forces on the travel";
  Units.Force bodyForce[4] "Vertical force on the body at each corner";
  Units.Torque wheelTorque[4] "Drive minus brake torque on each wheel";
  Units.Torque rollMoment "Roll moment about the sprung centre of gravity";
  Units.Torque pitchMoment "Pitch moment about the sprung centre of gravity";
  Units.Torque yawMoment "Yaw moment";
  Units.Acceleration axSensorYawFrame "Acceleration of the accelerometer point, yaw frame x";
  Units.Acceleration aySensorYawFrame "Acceleration of the accelerometer point, yaw frame y";
  Units.Acceleration azSensorYawFrame "Acceleration of the accelerometer point, vertical";
  Real spinInertia[4](each unit = "kg.m2") "Spin inertia incl. the reflected engine inertia";
equation
  // Kinematics of the sprung mass (small roll and pitch angles)
  der(X) = vx*cos(yaw) - vy*sin(yaw);
  der(Y) = vx*sin(yaw) + vy*cos(yaw);
  der(yaw) = yawRate;
  der(bodyHeight) = bodyVerticalVelocity;
  der(roll) = rollRate;
  der(pitch) = pitchRate;
  der(wheelHeight) = wheelVerticalVelocity;
  // Wheel travel: wheel-centre height relative to its attachment on the body
  for i in 1:4 loop
    wheelTravel[i] = wheelHeight[i] - designWheelHeight[i]
      - (bodyHeight - chassis.cogHeight - cornerX[i]*pitch + cornerY[i]*roll);
    travelRate[i] = wheelVerticalVelocity[i] - (bodyVerticalVelocity - cornerX[i]*pitchRate + cornerY[i]*rollRate);
    tireDeflection[i] = unloadedRadius[i] - (wheelHeight[i] - roadHeight[i]);
  end for;

  // Steering and suspension maps
  steering.steeringWheelAngle = steeringWheelAngle;
  frontAxle.travel = wheelTravel[1:2];
  frontAxle.travelRate = travelRate[1:2];
  frontAxle.rackTravel = steering.rackTravel;
  rearAxle.travel = wheelTravel[3:4];
  rearAxle.travelRate = travelRate[3:4];
  rearAxle.rackTravel = 0;
  // Compliance is driven by the slip forces (states only; no algebraic loop through the steer angle).
  frontAxle.wheelFx = tiresPerStation[1:2] .* {tireFL.FxSlip, tireFR.FxSlip};
  frontAxle.wheelFy = tiresPerStation[1:2] .* {tireFL.FySlip, tireFR.FySlip};
  frontAxle.wheelMz = wheelMz[1:2] - gyroscopicMz[1:2];
  frontAxle.contactFx = Fx[1:2];
  frontAxle.contactFy = Fy[1:2];
  rearAxle.wheelFx = tiresPerStation[3:4] .* {tireRL.FxSlip, tireRR.FxSlip};
  rearAxle.wheelFy = tiresPerStation[3:4] .* {tireRL.FySlip, tireRR.FySlip};
  rearAxle.wheelMz = wheelMz[3:4] - gyroscopicMz[3:4];
  // A wheel of an independent axle rolls with the body: turning its spin momentum about x takes a moment
  // about z from the knuckle, which the steering compliance feels; a solid axle's wheels roll with the axle.
  gyroscopicMz = if wheelGyroscopicSteer then {(if i <= 2 then (if frontAxleData.solidAxle then 0 else chassis.frontWheelInertia)
    else (if rearAxleData.solidAxle then 0 else chassis.rearWheelInertia))*omega[i]*rollRate for i in 1:4} else zeros(4);
  rearAxle.contactFx = Fx[3:4];
  rearAxle.contactFy = Fy[3:4];
  wheelSteerAngle = cat(1, frontAxle.toe, rearAxle.toe);
  camber = cat(1, frontAxle.camber, rearAxle.camber);
  kinematicCamber = cat(1, frontAxle.kinematicCamber, rearAxle.kinematicCamber);
  suspensionForce = cat(1, frontAxle.verticalForce, rearAxle.verticalForce);
  // The travel is along the body's z axis (the K&C rig's), which roll and pitch tilt away from the road
  // vertical: the horizontal tyre forces act on it through the tilt, and it moves the contact point.
  jackingForce = cat(1, frontAxle.jackingForce, rearAxle.jackingForce)
    + (if travelAlongBody then {Fx[i]*sin(pitch) - Fy[i]*sin(roll) for i in 1:4} else zeros(4));
  wheelX = cornerX + cat(1, frontAxle.tx, rearAxle.tx);
  wheelY = cornerY + cat(1, frontAxle.ty, rearAxle.ty);

  // Tyres: contact-point velocity in vehicle axes (body velocity + body angular velocity x the
  // contact point's position + its motion along the kinematic path), rotated into wheel axes by the
  // steer angle. These are the velocities whose products with the tyre forces are the generalized
  // forces below (roll, pitch and yaw moments, jacking), so the model is power-consistent.
  contactVx[1:2] = {vx - yawRate*wheelY[i] - pitchRate*contactDepth[i] for i in 1:2} + frontAxle.contactPathVx
    + travelTiltVx[1:2];
  contactVx[3:4] = {vx - yawRate*wheelY[i] - pitchRate*contactDepth[i] for i in 3:4} + rearAxle.contactPathVx
    + travelTiltVx[3:4];
  contactVy[1:2] = {vy + yawRate*wheelX[i] + rollRate*contactDepth[i] for i in 1:2} + frontAxle.contactPathVy
    + travelTiltVy[1:2];
  contactVy[3:4] = {vy + yawRate*wheelX[i] + rollRate*contactDepth[i] for i in 3:4} + rearAxle.contactPathVy
    + travelTiltVy[3:4];
  travelTiltVx = if travelAlongBody then sin(pitch)*travelRate else zeros(4);
  travelTiltVy = if travelAlongBody then -sin(roll)*travelRate else zeros(4);
  for i in 1:4 loop
    contactDepth[i] = bodyHeight - roadHeight[i];
    // The compliance camber is not fed back into the inclination: it is driven by the tyre forces,
    // which depend on the inclination, so it would close an algebraic loop.
    inclination[i] = -side[i]*kinematicCamber[i] + roll;
    Fx[i] = cos(wheelSteerAngle[i])*wheelFx[i] - sin(wheelSteerAngle[i])*wheelFy[i];
    Fy[i] = sin(wheelSteerAngle[i])*wheelFx[i] + cos(wheelSteerAngle[i])*wheelFy[i];
    bodyForce[i] = suspensionForce[i] - jackingForce[i];
  end for;
  // Tyre vertical force from deflection; the damping uses the wheel's vertical velocity only.
  Fz[1] = tiresPerStation[1]*Tires.verticalForce(tireDeflection[1], -wheelVerticalVelocity[1], frontTire);
  Fz[2] = tiresPerStation[2]*Tires.verticalForce(tireDeflection[2], -wheelVerticalVelocity[2], frontTire);
  Fz[3] = tiresPerStation[3]*Tires.verticalForce(tireDeflection[3], -wheelVerticalVelocity[3], rearTire);
  Fz[4] = tiresPerStation[4]*Tires.verticalForce(tireDeflection[4], -wheelVerticalVelocity[4], rearTire);
  tireFL.Fz = Fz[1]/tiresPerStation[1];
  tireFR.Fz = Fz[2]/tiresPerStation[2];
  tireRL.Fz = Fz[3]/tiresPerStation[3];
  tireRR.Fz = Fz[4]/tiresPerStation[4];
  tireFL.vx = cos(wheelSteerAngle[1])*contactVx[1] + sin(wheelSteerAngle[1])*contactVy[1];
  tireFR.vx = cos(wheelSteerAngle[2])*contactVx[2] + sin(wheelSteerAngle[2])*contactVy[2];
  tireRL.vx = cos(wheelSteerAngle[3])*contactVx[3] + sin(wheelSteerAngle[3])*contactVy[3];
  tireRR.vx = cos(wheelSteerAngle[4])*contactVx[4] + sin(wheelSteerAngle[4])*contactVy[4];
  tireFL.vy = -sin(wheelSteerAngle[1])*contactVx[1] + cos(wheelSteerAngle[1])*contactVy[1];
  tireFR.vy = -sin(wheelSteerAngle[2])*contactVx[2] + cos(wheelSteerAngle[2])*contactVy[2];
  tireRL.vy = -sin(wheelSteerAngle[3])*contactVx[3] + cos(wheelSteerAngle[3])*contactVy[3];
  tireRR.vy = -sin(wheelSteerAngle[4])*contactVx[4] + cos(wheelSteerAngle[4])*contactVy[4];
  {tireFL.omega, tireFR.omega, tireRL.omega, tireRR.omega} = omega;
  {tireFL.gamma, tireFR.gamma, tireRL.gamma, tireRR.gamma} = inclination;
  wheelFx = tiresPerStation .* {tireFL.Fx, tireFR.Fx, tireRL.Fx, tireRR.Fx};
  wheelFy = tiresPerStation .* {tireFL.Fy, tireFR.Fy, tireRL.Fy, tireRR.Fy};
  wheelMz = tiresPerStation .* {tireFL.Mz, tireFR.Mz, tireRL.Mz, tireRR.Mz};

  // Powertrain and brakes
  driveline.throttle = throttle;
  driveline.wheelSpeedRL = omega[3];
  driveline.wheelSpeedRR = omega[4];
  brakes.pedal = brakePedal;
  pressureBrakes.pressure = brakePressure;
  pressureBrakes.omega = omega;
  aero.vx = vx;
  wheelTorque = (if wheelTorqueInput then {0, 0, rearWheelTorque[1], rearWheelTorque[2]}
    else {0, 0, driveline.driveTorqueRL, driveline.driveTorqueRR})
    - {Brakes.wheelBrakeTorque(brakes.brakeTorque[i], omega[i], brakeSpeedRegularisation) for i in 1:4}
    - pressureBrakes.torque;
  spinInertia = {chassis.frontWheelInertia, chassis.frontWheelInertia,
    chassis.rearWheelInertia + (if wheelTorqueInput then 0 else driveline.reflectedInertia),
    chassis.rearWheelInertia + (if wheelTorqueInput then 0 else driveline.reflectedInertia)};
  // Fx acts at the contact point: its lever about the spin axis is the loaded radius
  spinInertia[1]*der(omega[1]) = wheelTorque[1] - wheelFx[1]*(unloadedRadius[1] - tireDeflection[1]) + tiresPerStation[1]*tireFL.My;
  spinInertia[2]*der(omega[2]) = wheelTorque[2] - wheelFx[2]*(unloadedRadius[2] - tireDeflection[2]) + tiresPerStation[2]*tireFR.My;
  spinInertia[3]*der(omega[3]) = wheelTorque[3] - wheelFx[3]*(unloadedRadius[3] - tireDeflection[3]) + tiresPerStation[3]*tireRL.My;
  spinInertia[4]*der(omega[4]) = wheelTorque[4] - wheelFx[4]*(unloadedRadius[4] - tireDeflection[4]) + tiresPerStation[4]*tireRR.My;

  // Horizontal motion: the whole vehicle's momentum (sum of the external forces over the total mass)
  ax = (sum(Fx) - aero.force)/totalMass;
  ay = sum(Fy)/totalMass;
  der(vx) = axSprung + yawRate*vy;
  der(vy) = aySprung - yawRate*vx;
  // Vertical motion: unsprung masses in the road frame, sprung mass heave
  for i in 1:4 loop
    unsprungMass[i]*der(wheelVerticalVelocity[i]) = Fz[i] + jackingForce[i] - suspensionForce[i] - unsprungMass[i]*g;
  end for;
  sprungMass*der(bodyVerticalVelocity) = sum(bodyForce) - sprungMass*g;
  // Generalized forces of the body rotations about the sprung centre of gravity: the suspension
  // forces at the body attachments (where the travel is measured), the tyre forces at the contact
  // points (jacking included in bodyForce), and the gravity term: the weight carried at the
  // contact points of a body tilted about its centre of gravity.
  rollMoment = sum(cornerY[i]*bodyForce[i] + contactDepth[i]*Fy[i] for i in 1:4)
    + sprungMass*g*chassis.cogHeight*sin(roll);
  pitchMoment = sum(-cornerX[i]*bodyForce[i] - contactDepth[i]*Fx[i] for i in 1:4)
    + aero.force*(aero.height - bodyHeight) + sprungMass*g*chassis.cogHeight*sin(pitch);
  yawMoment = sum(wheelX[i]*Fy[i] - wheelY[i]*Fx[i] + wheelMz[i] for i in 1:4);
  // Equations of motion with the mass matrices (the unsprung masses' inertia couples lateral
  // motion, roll and yaw: the roll inertia about the roll axis follows from the kinematics).
  {aySprung, der(rollRate), der(yawRate)} = Vehicles.solveSymmetric3({{totalMass, unsprungRollMoment, unsprungXMoment},
    {unsprungRollMoment, rollInertia, rollYawProduct}, {unsprungXMoment, rollYawProduct, yawInertia}},
    {sum(Fy), rollMoment, yawMoment});
  {axSprung, der(pitchRate)} = {pitchInertia*(sum(Fx) - aero.force) + unsprungPitchMoment*pitchMoment,
    unsprungPitchMoment*(sum(Fx) - aero.force) + totalMass*pitchMoment}
    /(totalMass*pitchInertia - unsprungPitchMoment^2);

  // Outputs. Sensor: acceleration of a body-fixed point (small angles for the lever arms), then the
  // specific force (acceleration minus gravity) on the body axes of a body pitched and rolled.
  axSensorYawFrame = axSprung + der(pitchRate)*accelerometerPosition[3] - der(yawRate)*accelerometerPosition[2]
    + pitchRate*(rollRate*accelerometerPosition[2] - pitchRate*accelerometerPosition[1])
    - yawRate*(yawRate*accelerometerPosition[1] - rollRate*accelerometerPosition[3]);
  aySensorYawFrame = aySprung + der(yawRate)*accelerometerPosition[1] - der(rollRate)*accelerometerPosition[3]
    + yawRate*(pitchRate*accelerometerPosition[3] - yawRate*accelerometerPosition[2])
    - rollRate*(rollRate*accelerometerPosition[2] - pitchRate*accelerometerPosition[1]);
  azSensorYawFrame = der(bodyVerticalVelocity) + der(rollRate)*accelerometerPosition[2]
    - der(pitchRate)*accelerometerPosition[1]
    + rollRate*(yawRate*accelerometerPosition[1] - rollRate*accelerometerPosition[3])
    - pitchRate*(pitchRate*accelerometerPosition[3] - yawRate*accelerometerPosition[2]);
  axSensor = axSensorYawFrame*cos(pitch) - (azSensorYawFrame + g)*sin(pitch);
  aySensor = axSensorYawFrame*sin(pitch)*sin(roll) + aySensorYawFrame*cos(roll)
    + (azSensorYawFrame + g)*cos(pitch)*sin(roll);
  speed = sqrt(vx^2 + vy^2);
  sideslipSprung = atan2(vy, noEvent(max(abs(vx), 0.1)));
  sideslip = atan2(vy + (unsprungRollMoment*rollRate + unsprungXMoment*yawRate)/totalMass,
    noEvent(max(abs(vx - unsprungPitchMoment*pitchRate/totalMass), 0.1)));
  sideslipSensor = atan2(vy + yawRate*velocitySensorPosition[1] - rollRate*velocitySensorPosition[3],
    noEvent(max(abs(vx - yawRate*velocitySensorPosition[2] + pitchRate*velocitySensorPosition[3]), 0.1)));
  rollRelativeToRoad = roll - ((roadHeight[1] - roadHeight[2])/frontAxleData.track
    + (roadHeight[3] - roadHeight[4])/rearAxleData.track)/2;
  pitchRelativeToRoad = pitch - ((roadHeight[3] + roadHeight[4]) - (roadHeight[1] + roadHeight[2]))/(2*chassis.wheelbase);
  lateralLoadTransfer = ((Fz[2] + Fz[4]) - (Fz[1] + Fz[3]))/2;
  wheelSpeed = omega;
  annotation (Documentation(info = "<html>
<p>The real-time model (RTM) of the LCV paper: 14 degrees of freedom, namely 6 of the sprung mass
(x, y, z, roll, pitch, yaw) and 2 per wheel (vertical travel and spin). Plus the tyre relaxation
states.</p>
<ul>
<li><b>Suspension</b>: one <a href=\"modelica://VehicleRTM.Suspensions.MapAxle\">MapAxle</a> per axle,
map-based kinematics and compliance, stiffness from parallel and opposite travel, dampers and stops
through the length derivatives (Eq. 1-4). Swap <code>frontAxleData</code> and
<code>rearAxleData</code> for another design.</li>
<li><b>Tyres</b>: Magic Formula from the coefficient records (<code>frontTire</code>,
<code>rearTire</code>); dual rear tyres via <code>chassis.rearTiresPerWheel</code>. The input <code>roadFriction</code> (per wheel, 1 = the
road the tyre file describes) scales their peak friction (LMUX, LMUY) while the model runs: a
low-friction road, a mu-split, or a state observer's friction estimate. Bind it (e.g. <code>ones(4)</code>) in a
model that instantiates RTM14DoF; as the FMU's top-level input it starts at 1.</li>
<li><b>Masses</b> from the split factors of Eq. 5-7 in <code>chassis</code>.</li>
<li><b>Steering</b> rigid; <b>powertrain</b> RWD with gearbox and open differential; <b>brakes</b> pedal to torque, or line pressure through
<a href=\"modelica://VehicleRTM.Brakes.PressureBrakes\">PressureBrakes</a> (stiction at standstill); with
<code>wheelTorqueInput</code> the rear wheels take a measured hub torque instead of the engine's (a
model running in parallel with a vehicle, driven by its sensors); aerodynamic drag.</li>
</ul>
<p>Formulation: the horizontal motion (vx, vy, yaw) uses the total mass; the sprung mass has heave,
roll and pitch with small angles about its centre of gravity; each unsprung mass moves vertically
in the road frame and its travel relative to the body drives the axle maps. Tyre horizontal
forces act on the body at the contact points and on the travels through the wheel-centre path
derivatives (jacking, the map-based equivalent of a roll centre). The tyre vertical damping uses
the wheel's vertical velocity (the road's vertical velocity is not an input). The tyre inclination
is the kinematic camber plus body roll; the compliance camber (driven by the tyre forces) is an
output but is not fed back into the tyre, which would close an algebraic loop.</p>
<p>Outputs follow ISO 8855: roll positive with the right side down (left turn), pitch positive
nose down (braking), yaw rate, lateral acceleration and sideslip positive to the left.</p>
</html>"));
end RTM14DoF;
