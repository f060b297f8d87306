within VehicleRTM.Powertrain;
block Driveline "Rear-wheel-drive driveline: engine map x gain, simple clutch, gearbox of 1 to 12 speeds with shift schedule, final drive, open differential"
  replaceable parameter Engine30Diesel engine constrainedby EngineData
    "Engine data: torque map over speed and throttle, idle speed, inertia"
    annotation (choicesAllMatching = true);
  parameter Units.Ratio torqueGain = 1
    "Engine torque map amplification gain (identification parameter)";
  parameter Units.Inertia engineInertia = engine.inertia
    "Rotating inertia of engine, flywheel and clutch (reflected to the rear wheels by reflectedInertia)";
  parameter Units.AngularVelocity idleSpeed = engine.idleSpeed "Idle speed, lower bound of the engine speed";
  parameter Units.AngularVelocity launchSpeed = idleSpeed
    "Gearbox input speed at which the clutch is fully engaged (engine braking fades in below it)";
  parameter Units.Ratio gearRatios[:] = {5.10, 2.90, 1.87, 1.32, 1.00, 0.79, 0.79, 0.79, 0.79, 0.79, 0.79, 0.79}
    "Gearbox ratios (input speed / output speed), first to top gear; slots after nGears are inactive";
  parameter Integer nGears(min = 1) = 6
    "Number of gears in use, 1..size(gearRatios, 1): gears above it are never engaged";
  parameter Units.Ratio finalDriveRatio = 3.92 "Final drive (rear axle) ratio";
  parameter Units.Ratio efficiency = 0.93
    "Efficiency of gearbox and final drive together (0 < efficiency <= 1)";
  parameter Units.AngularVelocity upshiftSpeed[size(gearRatios, 1) - 1] =
    {3400, 3400, 3400, 3400, 3400, 3400, 3400, 3400, 3400, 3400, 3400}*(3.14159265358979/30)
    "Engine speed at which gear k shifts up to k+1 at full throttle";
  parameter Units.AngularVelocity upshiftSpeedNoThrottle[size(gearRatios, 1) - 1] =
    {2200, 1900, 1800, 1700, 1650, 1650, 1650, 1650, 1650, 1650, 1650}*(3.14159265358979/30)
    "Engine speed at which gear k shifts up to k+1 at zero throttle (linear in throttle between)";
  parameter Units.AngularVelocity downshiftSpeed[size(gearRatios, 1) - 1] =
    {1000, 1100, 1150, 1200, 1200, 1200, 1200, 1200, 1200, 1200, 1200}*(3.14159265358979/30)
    "Engine speed in gear k+1 below which it shifts down to k";
  parameter Units.Time minGearTime = 0.5
    "Minimum time between two gear changes (a shift cannot chatter; a cascade takes one gear per interval)";

  input Units.Ratio throttle "Accelerator pedal, 0 (released) to 1 (floored); clamped to 0..1";
  input Units.AngularVelocity wheelSpeedRL "Spin speed of the rear left wheel (positive rolling forward)";
  input Units.AngularVelocity wheelSpeedRR "Spin speed of the rear right wheel (positive rolling forward)";
  output Units.Torque driveTorqueRL "Drive torque on the rear left wheel (positive forward)";
  output Units.Torque driveTorqueRR "Drive torque on the rear right wheel (positive forward)";
  output Units.AngularVelocity engineSpeed "Engine speed";
  output Units.Ratio gearNumber "Engaged gear 1..nGears, as a Real (copy of the Integer gear)";
  output Units.Torque engineTorque "Engine torque from the map times torqueGain (negative = engine braking)";
  output Units.Inertia reflectedInertia
    "Engine inertia reflected to one rear wheel: clutchEngagement*engineInertia*(i_g*i_f)^2/2";

  Integer gear(start = 1) "Engaged gear";
  discrete Units.Time lastShiftTime(start = 0) "Time of the last gear change";
  Units.Ratio throttleLimited "Throttle clamped to 0..1";
  Units.Ratio gearRatio "Ratio of the engaged gear";
  Units.AngularVelocity outputSpeed "Gearbox output (propeller-shaft) speed = final drive x mean rear wheel speed";
  Units.AngularVelocity clutchSpeed "Gearbox input (clutch disc) speed";
  Units.Ratio clutchEngagement "0 = open, 1 = closed; smooth step of clutchSpeed/launchSpeed";
  Units.Torque clutchTorque "Torque through the clutch into the gearbox";
  Units.Torque axleTorque "Torque on the rear axle (both wheels)";
  Units.AngularVelocity engineSpeedInGear "Gearbox input speed in the gear engaged before the current instant";
  Units.AngularVelocity upshiftThreshold "Upshift engine speed of the engaged gear at the current throttle";
  Units.AngularVelocity downshiftThreshold "Downshift engine speed of the engaged gear";
  Boolean shiftAllowed "minGearTime has passed since the last gear change";
  Boolean upshift "Condition to shift up one gear";
  Boolean downshift "Condition to shift down one gear";
protected
  Units.Ratio engagementArgument "clutchSpeed/launchSpeed clamped to 0..1";
initial equation
  gear = selectGear(outputSpeed, gearRatios, nGears,
    upshiftSpeedNoThrottle + throttleLimited*(upshiftSpeed - upshiftSpeedNoThrottle));
  lastShiftTime = time - minGearTime;
  assert(nGears >= 1 and nGears <= size(gearRatios, 1),
    "Driveline: nGears must be between 1 and size(gearRatios, 1), the number of gear slots");
  for k in 1:size(gearRatios, 1) - 1 loop
    assert(k >= nGears
      or downshiftSpeed[k]*gearRatios[k]/gearRatios[k + 1] < min(upshiftSpeedNoThrottle[k], upshiftSpeed[k]),
      "Driveline: no shift hysteresis between gear " + String(k) + " and " + String(k + 1)
      + ": downshiftSpeed[k]*gearRatios[k]/gearRatios[k+1] must be below both upshift speeds of gear k");
  end for;
  assert(efficiency > 0 and efficiency <= 1, "Driveline: efficiency must be in (0, 1]");
equation
  // Shift schedule: engine-speed thresholds per gear with hysteresis and a minimum time in gear.
  engineSpeedInGear = outputSpeed*gearEntry(gearRatios, pre(gear));
  upshiftThreshold = gearEntry(upshiftSpeedNoThrottle, pre(gear))
    + throttleLimited*(gearEntry(upshiftSpeed, pre(gear)) - gearEntry(upshiftSpeedNoThrottle, pre(gear)));
  downshiftThreshold = gearEntry(downshiftSpeed, pre(gear) - 1);
  shiftAllowed = time >= pre(lastShiftTime) + minGearTime;
  upshift = shiftAllowed and pre(gear) < nGears and engineSpeedInGear > upshiftThreshold;
  downshift = shiftAllowed and pre(gear) > 1 and engineSpeedInGear < downshiftThreshold;
  when upshift or downshift then
    gear = if upshift then pre(gear) + 1 else pre(gear) - 1;
    lastShiftTime = time;
  end when;
  gearNumber = gear;

  // Kinematics: open differential, final drive, gearbox, clutch.
  throttleLimited = min(max(throttle, 0), 1);
  gearRatio = gearEntry(gearRatios, gear);
  outputSpeed = finalDriveRatio*(wheelSpeedRL + wheelSpeedRR)/2;
  clutchSpeed = gearRatio*outputSpeed;
  engineSpeed = max(idleSpeed, clutchSpeed);
  engagementArgument = min(max(clutchSpeed/launchSpeed, 0), 1);
  clutchEngagement = engagementArgument*engagementArgument*(3 - 2*engagementArgument);

  // Torques: map x gain, clutch, efficiency by power-flow direction, 50/50 split.
  engineTorque = torqueGain*Tables.interp2(engine.speed, engine.throttle, engine.torque, engineSpeed, throttleLimited);
  clutchTorque = max(engineTorque, 0) + clutchEngagement*min(engineTorque, 0);
  axleTorque = gearRatio*finalDriveRatio*(efficiency*max(clutchTorque, 0) + min(clutchTorque, 0)/efficiency);
  driveTorqueRL = axleTorque/2;
  driveTorqueRR = axleTorque/2;
  reflectedInertia = clutchEngagement*engineInertia*(gearRatio*finalDriveRatio)^2/2;
  annotation (Documentation(info = "<html>
<p>Powertrain of a front-engine, rear-wheel-drive light commercial vehicle, as the real-time model
of the LCV paper needs it: engine torque map times an identification gain, gearbox with a shift
schedule, final drive and an open differential. The defaults describe a 3.5 t van with a 3.0 L
diesel (<a href=\"modelica://VehicleRTM.Powertrain.Engine30Diesel\">Engine30Diesel</a>, 130 kW,
400 N.m) and a 6-speed manual gearbox; ratios, final drive, efficiency and shift speeds are
<b>plausible from public specifications</b> of this vehicle class, not data of a specific vehicle.
With 0.35 m tyre radius, 3400 rpm in top gear is about 145 km/h.</p>

<h4>Engine</h4>
<p><code>engineTorque = torqueGain*interp2(engine.speed, engine.throttle, engine.torque,
engineSpeed, throttle)</code>, the map clamped at its edges. <code>torqueGain</code> is the
&quot;engine torque map amplification gain&quot; that the LCV paper identifies (it matches the
maximum speed in the acceleration test). Swap the engine with
<code>redeclare Engine30DieselHD engine</code>.</p>

<h4>Clutch (simplified)</h4>
<p>The clutch has no state. The engine speed is the gearbox input speed, but never below idle:
<code>engineSpeed = max(idleSpeed, gearRatio*finalDriveRatio*(wheelSpeedRL + wheelSpeedRR)/2)</code>.
Below idle the clutch is taken as slipping and the engine as held at idle by the driver and the
governor. A slipping clutch passes the engine torque, so a standing start works: at full throttle
the map gives the idle full-load torque (180 N.m for the 3.0 L diesel, about 2.7 m/s2 at 3.5 t in
first gear). Engine braking (negative torque), in contrast, is scaled by the clutch engagement
<code>clutchEngagement = s(clutchSpeed/launchSpeed)</code>, with <code>s(x) = x^2(3 - 2x)</code> on
[0, 1] (0 at standstill, 1 from <code>launchSpeed</code> on, continuously differentiable), as a
driver declutches when the vehicle comes to rest: at standstill the driveline neither pushes nor
holds the vehicle. Neglected: the clutch slip dynamics, the torque interruption during a shift,
the engine speed rising above the road speed when launching.</p>

<h4>Gearbox, final drive, differential</h4>
<p><code>axleTorque = i_g*i_f*eta*clutchTorque</code> in traction and
<code>i_g*i_f*clutchTorque/eta</code> in overrun (engine braking), so the losses always oppose the
power flow; <code>eta = efficiency</code>. The open differential splits it equally:
<code>driveTorqueRL = driveTorqueRR = axleTorque/2</code>.</p>

<h4>Shift schedule</h4>
<p>The gear is an Integer changed by a <code>when</code> equation, one gear per event. In gear
<code>k</code> the engine speed <code>engineSpeedInGear = outputSpeed*gearRatios[k]</code> is
compared with</p>
<ul>
<li>the upshift speed <code>upshiftSpeedNoThrottle[k] + throttle*(upshiftSpeed[k] -
upshiftSpeedNoThrottle[k])</code> (k &lt; nGears): early shifts at light throttle, late shifts at
full throttle;</li>
<li>the downshift speed <code>downshiftSpeed[k-1]</code> (k &gt; 1).</li>
</ul>
<p>No chatter, by two guards: (1) hysteresis, the defaults satisfy
<code>downshiftSpeed[k]*gearRatios[k]/gearRatios[k+1] &lt; upshiftSpeedNoThrottle[k] &lt;=
upshiftSpeed[k]</code>, so after a shift the engine speed lies inside the band of the new gear;
(2) a minimum time <code>minGearTime</code> between gear changes. The time guard also re-arms the
conditions, so when the speed crosses several thresholds at once (hard braking to a stop) the
gearbox cascades one gear per <code>minGearTime</code> down to first. The initial gear is the lowest
gear below its upshift speed at the initial wheel speed and throttle
(<a href=\"modelica://VehicleRTM.Powertrain.selectGear\">selectGear</a>), so a run may start at
any speed. An assertion at initialization rejects a schedule without hysteresis. Downshifts depend
on the engine speed only (no kick-down): a speed controller that moves the throttle cannot make
the gearbox hunt.</p>
<h4>Gear count</h4>
<p>The per-gear vectors have a fixed number of slots, <code>size(gearRatios, 1)</code>: 12 by
default, so one FMU serves every gearbox from 1 to 12 speeds with the same variable names
(<code>driveline.gearRatios[1]</code> ... <code>[12]</code>). <code>nGears</code> says how many are in
use: the gear never rises above it (the upshift condition asks <code>pre(gear) &lt; nGears</code>, and
<a href=\"modelica://VehicleRTM.Powertrain.selectGear\">selectGear</a> starts in gear
<code>nGears</code> at most), the hysteresis assertion covers gears 1..nGears only, and the values in the
inactive slots are never read. The defaults are a 6-speed box whose top ratio fills the unused
slots. A model for a gearbox of its own may also give vectors of its own length.</p>
<p>The gear is output as the Real <code>gearNumber</code> (FMU-friendly: FMI importers and
plotting tools handle Real outputs uniformly); the Integer <code>gear</code> is kept inside.</p>

<h4>Reflected inertia</h4>
<p><code>reflectedInertia = clutchEngagement*engineInertia*(i_g*i_f)^2/2</code> per rear wheel.
With the open differential the engine turns at <code>i_g*i_f*(wL + wR)/2</code>; for equal wheel
speeds its kinetic energy equals that of an extra inertia <code>J_e*(i_g*i_f)^2/2</code> on each
rear wheel (the full <code>J_e*(i_g*i_f)^2</code> on the axle). The vehicle model adds it to the
spin inertia of each rear wheel. It is zero while the clutch is open (engine held at idle). It
steps at each gear change; a model that writes <code>J*der(omega)</code> (not
<code>der(J*omega)</code>) treats that step as a loss-free change of the inertia.</p>
</html>"));
end Driveline;
