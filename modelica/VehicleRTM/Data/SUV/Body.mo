within VehicleRTM.Data.SUV;
record Body "SUV sprung body for the four-post model: mass, inertias, wheelbase, centre of gravity, tracks"
  parameter VehicleRTM.Units.Mass m = 1980 "Sprung mass";
  parameter VehicleRTM.Units.Inertia Ixx = 680 "Roll inertia about the CoG";
  parameter VehicleRTM.Units.Inertia Iyy = 2900 "Pitch inertia about the CoG";
  parameter VehicleRTM.Units.Inertia Izz = 3200 "Yaw inertia about the CoG (not used by the four-post model: yaw is held by the rig)";
  parameter VehicleRTM.Units.Length wheelbase = 2.80 "Wheelbase";
  parameter VehicleRTM.Units.Length a = 1.329293 "Longitudinal distance from the front axle back to the CoG";
  parameter VehicleRTM.Units.Length trackFront = 1.60 "Front track";
  parameter VehicleRTM.Units.Length trackRear = 1.61 "Rear track";
  parameter VehicleRTM.Units.Length hCG = 0.70 "CoG height above the ground at design ride height (documentation; the vertical ride model does not use it)";
  annotation (Documentation(info = "<html>
<p>Sprung body of the SUV for
<a href=\"modelica://VehicleRTM.Vehicles.FourPost10DoF\">Vehicles.FourPost10DoF</a>. The four-post
model of the SLEKQ paper needs only the sprung mass, the pitch inertia, the CoG position and the
wheelbase (it is laterally symmetric); the roll inertia and tracks are added for the roll degree of
freedom. Plausible mid-size SUV values (the paper does not publish them).</p>
<p>The sprung mass 1980 kg = 2&middot;(520 + 470) kg and the CoG position
<i>a</i> = 2.80 m &middot; 940/1980 = 1.3293 m are consistent with the design sprung corner masses of
<a href=\"modelica://VehicleRTM.Data.SUV.Front\">Front</a> (520 kg) and
<a href=\"modelica://VehicleRTM.Data.SUV.Rear\">Rear</a> (470 kg), so the records' free lengths put the
car at design ride height. Other vehicles extend this record with their own values.</p>
</html>"));
end Body;
