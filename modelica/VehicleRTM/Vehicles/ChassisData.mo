within VehicleRTM.Vehicles;
record ChassisData "Geometry, masses (Eq. 5-7 with split factors), inertias and scalar gains of a vehicle"
  // Geometry
  parameter Units.Length wheelbase = 3.45 "Wheelbase";
  parameter Units.Length cogToFrontAxle = 1.70 "Sprung-mass centre of gravity behind the front axle";
  parameter Units.Length cogHeight = 0.85 "Sprung-mass centre of gravity above ground at design position";
  // Eq. 5: front unsprung masses, per corner
  parameter Units.Mass frontWheel = 28 "Wheel (tyre and rim), per corner, rotating";
  parameter Units.Mass frontBrakeDisk = 9 "Brake disk, per corner, rotating";
  parameter Units.Mass frontSpindle = 6 "Spindle and hub, per corner, rotating";
  parameter Units.Mass frontUpright = 8 "Upright, per corner, non-rotating";
  parameter Units.Mass frontLinks = 22 "Suspension links, per corner (split by frontLinkSplit)";
  parameter Real frontLinkSplit(unit = "1", min = 0, max = 1) = 0.5 "K_umF,SuspLinks: unsprung share of the front links";
  // Eq. 6: rear solid axle, per side
  parameter Units.Mass rearWheel = 28 "Wheel(s) per side, rotating";
  parameter Units.Mass rearBrakeDisk = 8 "Brake disk per side, rotating";
  parameter Units.Mass rearSpindle = 5 "Spindle and hub per side, rotating";
  parameter Units.Mass rearFixed = 45 "Half beam and half differential housing per side, non-rotating";
  parameter Units.Mass rearLinks = 25 "Leaf spring per side (split by rearLinkSplit)";
  parameter Real rearLinkSplit(unit = "1", min = 0, max = 1) = 0.5 "K_umR,SuspLinks: unsprung share of the rear leaf springs";
  parameter Units.Mass rearDriveline = 40 "Driveline inside the axle (differential, half shafts), whole axle";
  parameter Real drivelineSplit(unit = "1", min = 0, max = 1) = 0.8 "K_um,DriveLine: unsprung share of the axle driveline";
  // Eq. 7
  parameter Units.Mass sprungBodies = 2590 "Sum of the bodies that are sprung in any case (body, engine, cargo, ...)";
  // Inertia of the sprung mass about its centre of gravity
  parameter Units.Inertia Ixx = 1400 "Roll inertia";
  parameter Units.Inertia Iyy = 5500 "Pitch inertia";
  parameter Units.Inertia Izz = 5800 "Yaw inertia";
  parameter Units.Inertia Ixz = 200 "Product of inertia";
  parameter Units.Inertia frontWheelInertia = 1.2 "Spin inertia of a front wheel";
  parameter Units.Inertia rearWheelInertia = 1.3 "Spin inertia of a rear wheel station (all its tyres)";
  parameter Integer rearTiresPerWheel = 1 "Tyres per rear wheel station (2 = dual tyres)";
  // Scalar gains of the subsystems
  parameter Real steeringRatio(unit = "m/rad") = 0.008 "Rack travel per steering-wheel angle (pinion-to-rack ratio)";
  parameter Units.Torque brakeTorqueFront = 9000 "Front axle brake torque at full pedal";
  parameter Units.Torque brakeTorqueRear = 6000 "Rear axle brake torque at full pedal";
  // Pressure brakes (Brakes.PressureBrakes): line pressure -> clamp force -> torque = mu*F*r
  parameter Units.Area brakePistonAreaFront = 0.01148 "Effective piston area of a front calliper, both disc faces";
  parameter Units.Area brakePistonAreaRear = 0.008242 "Effective piston area of a rear calliper, both disc faces";
  parameter Real brakeClampLinear(unit = "1") = 1 "Clamp force per theoretical force (pressure x piston area)";
  parameter Real brakeClampQuadratic(unit = "1") = 0 "Clamp-force polynomial, quadratic coefficient (force over 10 kN)";
  parameter Real brakeClampCubic(unit = "1") = 0 "Clamp-force polynomial, cubic coefficient (force over 10 kN)";
  parameter Real brakeFrictionFront(unit = "1") = 0.35 "Pad friction coefficient, front";
  parameter Real brakeFrictionRear(unit = "1") = 0.35 "Pad friction coefficient, rear";
  parameter Units.Length brakeRadiusFront = 0.14 "Effective friction radius of a front disc";
  parameter Units.Length brakeRadiusRear = 0.13 "Effective friction radius of a rear disc";
  parameter Units.Area dragArea = 1.5 "Drag coefficient times frontal area";
  parameter Units.Length aeroHeight = 1.3 "Height of the aerodynamic force above ground";
  annotation (Documentation(info = "<html>
<p>Everything of a vehicle that is not a map: geometry, the mass items of Eq. 5-7 of the LCV
paper with their split factors (the uncertain parameters the identification tunes), inertias of
the sprung mass and scalar gains. The lumped masses are computed from it in
<a href=\"modelica://VehicleRTM.Vehicles.RTM14DoF\">RTM14DoF</a>:</p>
<ul>
<li>front corner: m<sub>um</sub> = wheel + brake disk + spindle + upright + K<sub>umF</sub>&middot;links (Eq. 5);</li>
<li>rear side: m<sub>um</sub> = wheel + brake disk + spindle + K<sub>um,DL</sub>&middot;driveline/2 + fixed + K<sub>umR</sub>&middot;links (Eq. 6);</li>
<li>sprung: m<sub>s</sub> = sprung bodies + (1-K<sub>umF</sub>)&Sigma;front links + (1-K<sub>umR</sub>)&Sigma;rear links + (1-K<sub>um,DL</sub>)&middot;driveline (Eq. 7).</li>
</ul>
</html>"));
end ChassisData;
