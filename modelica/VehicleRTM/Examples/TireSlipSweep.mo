within VehicleRTM.Examples;
model TireSlipSweep "Slip angle and slip ratio sweeps at constant load on the Magic Formula tyre with the UAZ record"
  parameter Units.Force Fz = 4000 "Vertical load";
  parameter Units.Velocity v = 20 "Speed of the wheel centre";
  parameter Units.Angle alphaMax = 0.25 "Largest slip angle of the sweep";
  parameter Units.Ratio kappaMax = 0.3 "Largest slip ratio of the sweep";
  parameter Units.Angle alphaCombined = 0.05 "Slip angle of the combined-slip sweep";
  parameter Units.Time T = 10 "Duration of the sweeps";
  Units.Angle alphaCmd "Commanded slip angle, -alphaMax to alphaMax";
  Units.Ratio kappaCmd "Commanded slip ratio, -kappaMax to kappaMax";
  Tires.Tire tireAlpha(redeclare Data.Tires.UAZBUS_225_75R16 c, roadFriction = 1) "Slip angle sweep, free rolling";
  Tires.Tire tireKappa(redeclare Data.Tires.UAZBUS_225_75R16 c, roadFriction = 1) "Slip ratio sweep, straight ahead";
  Tires.Tire tireCombined(redeclare Data.Tires.UAZBUS_225_75R16 c, roadFriction = 1) "Slip ratio sweep at the slip angle alphaCombined";
equation
  alphaCmd = alphaMax*(2*time/T - 1);
  kappaCmd = kappaMax*(2*time/T - 1);
  tireAlpha.Fz = Fz;
  tireAlpha.vx = v*cos(alphaCmd);
  tireAlpha.vy = v*sin(alphaCmd);
  tireAlpha.omega = tireAlpha.vx/tireAlpha.Re;
  tireAlpha.gamma = 0;
  tireKappa.Fz = Fz;
  tireKappa.vx = v;
  tireKappa.vy = 0;
  tireKappa.omega = (1 + kappaCmd)*v/tireKappa.Re;
  tireKappa.gamma = 0;
  tireCombined.Fz = Fz;
  tireCombined.vx = v*cos(alphaCombined);
  tireCombined.vy = v*sin(alphaCombined);
  tireCombined.omega = (1 + kappaCmd)*tireCombined.vx/tireCombined.Re;
  tireCombined.gamma = 0;
  annotation (
    experiment(StopTime = 10, Interval = 0.01),
    Documentation(info = "<html>
<p>Three <a href=\"modelica://VehicleRTM.Tires.Tire\">Tire</a> models with the
<a href=\"modelica://VehicleRTM.Data.Tires.UAZBUS_225_75R16\">UAZ 225/75 R16</a> record at a constant
load of 4 kN and 20 m/s:</p>
<ul>
<li><code>tireAlpha</code>: free rolling, the slip angle ramps from -0.25 to 0.25 rad
(vx = v*cos(alphaCmd), vy = v*sin(alphaCmd), so atan(vy/|vx|) = alphaCmd); gives Fy(alpha) and Mz(alpha).</li>
<li><code>tireKappa</code>: straight ahead, the slip ratio ramps from -0.3 to 0.3 through the wheel
speed omega = (1 + kappaCmd)*v/Re; gives Fx(kappa).</li>
<li><code>tireCombined</code>: the same slip ratio ramp at a slip angle of 0.05 rad; shows the
combined-slip reduction of Fy by kappa.</li>
</ul>
<p>The ramps are slow against the relaxation time sigma/v (about 0.03 s), so the relaxed slips
follow the commands within about 2e-3 and the forces are the steady-state characteristics of
<a href=\"modelica://VehicleRTM.Tires.combinedSlip\">combinedSlip</a>.</p>
</html>"));
end TireSlipSweep;
