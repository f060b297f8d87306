within VehicleRTM.Data;
record LCV35t "3.5 t light commercial vehicle (van, RWD, QuadLeaf front, single-leaf solid axle rear, 225/75 R16)"
  extends Vehicles.ChassisData(
    wheelbase = 3.45, cogToFrontAxle = 1.70, cogHeight = 0.85,
    frontWheel = 28, frontBrakeDisk = 9, frontSpindle = 6, frontUpright = 8, frontLinks = 22, frontLinkSplit = 0.5,
    rearWheel = 28, rearBrakeDisk = 8, rearSpindle = 5, rearFixed = 45, rearLinks = 25, rearLinkSplit = 0.5,
    rearDriveline = 40, drivelineSplit = 0.8, sprungBodies = 2590,
    Ixx = 1400, Iyy = 5500, Izz = 5800, Ixz = 200,
    frontWheelInertia = 1.2, rearWheelInertia = 1.3, rearTiresPerWheel = 1,
    steeringRatio = 0.008, brakeTorqueFront = 9000, brakeTorqueRear = 6000,
    dragArea = 1.5, aeroHeight = 1.3);
  annotation (Documentation(info = "<html>
<p>A 3.5 t gross-weight van of the class the LCV paper converts (front longitudinal diesel engine,
rear-wheel drive, QuadLeaf front suspension, rear solid axle on single-leaf springs, single
225/75 R16 tyres), at a test mass of about 3000 kg. Plausible values from public specifications of
vans of this class, not measured data: wheelbase 3.45 m, sprung mass 2645 kg from Eq. 7, unsprung
62 kg per front corner (Eq. 5) and 114.5 kg per rear side (Eq. 6), centre of gravity 0.85 m high,
static sprung corner loads 6581 N front and 6393 N rear (matched by the stiffness maps of
<a href=\"modelica://VehicleRTM.Suspensions.QuadLeaf\">QuadLeaf</a> and
<a href=\"modelica://VehicleRTM.Suspensions.SolidAxleSingleLeaf\">SolidAxleSingleLeaf</a>).</p>
</html>"));
end LCV35t;
