within VehicleRTM.Data;
record LCV70t "7 t light commercial vehicle (chassis cab, RWD, QuadTor front, multi-leaf solid axle rear, dual rear tyres)"
  extends Vehicles.ChassisData(
    wheelbase = 3.75, cogToFrontAxle = 2.00, cogHeight = 1.00,
    frontWheel = 35, frontBrakeDisk = 12, frontSpindle = 8, frontUpright = 12, frontLinks = 30, frontLinkSplit = 0.5,
    rearWheel = 70, rearBrakeDisk = 12, rearSpindle = 8, rearFixed = 70, rearLinks = 45, rearLinkSplit = 0.5,
    rearDriveline = 70, drivelineSplit = 0.8, sprungBodies = 5066,
    Ixx = 3200, Iyy = 13000, Izz = 13500, Ixz = 400,
    frontWheelInertia = 1.6, rearWheelInertia = 3.2, rearTiresPerWheel = 2,
    steeringRatio = 0.0075, brakeTorqueFront = 16000, brakeTorqueRear = 14000,
    dragArea = 2.6, aeroHeight = 1.6);
  annotation (Documentation(info = "<html>
<p>A 7 t gross-weight chassis cab with box body of the class the LCV paper converts (QuadTor front
suspension, rear solid axle on multi-layer leaf springs, dual rear tyres), at a test mass of about
5700 kg. Plausible values, not measured data: wheelbase 3.75 m, sprung mass 5155 kg (Eq. 7),
unsprung 82 kg per front corner (Eq. 5) and 210.5 kg per rear side (Eq. 6), centre of gravity
1.0 m high; static sprung corner loads 11800 N front and 13486 N rear, matched by
<a href=\"modelica://VehicleRTM.Suspensions.QuadTor\">QuadTor</a> and
<a href=\"modelica://VehicleRTM.Suspensions.SolidAxleMultiLeaf\">SolidAxleMultiLeaf</a>.</p>
</html>"));
end LCV70t;
