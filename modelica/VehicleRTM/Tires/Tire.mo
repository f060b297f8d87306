within VehicleRTM.Tires;
model Tire "Magic Formula tyre with first-order slip relaxation that works at standstill (Real inputs and outputs)"
  replaceable parameter MFCoefficients c "Tyre coefficients (a record of VehicleRTM.Data.Tires)"
    annotation (choicesAllMatching = true);
  parameter Units.Length sigmaMin = 0.05 "Lower bound of both relaxation lengths (keeps the slip equations regular at zero load)";
  parameter Units.TranslationalDampingConstant lowSpeedDamping = 1000
    "Contact-patch damping at standstill, faded out at VXLOW (damps the tyre-wheel standstill oscillation)";
  input Units.Force Fz "Vertical load (from the suspension or verticalForce)";
  input Units.Velocity vx "Longitudinal velocity of the contact point in wheel axes";
  input Units.Velocity vy "Lateral velocity of the contact point in wheel axes (positive to the left)";
  input Units.AngularVelocity omega "Wheel spin speed about the wheel axis (positive rolling forwards)";
  input Units.Angle gamma "Inclination angle (ISO: positive when the wheel top leans to the right)";
  input Units.Ratio roadFriction(start = 1)
    "Road friction relative to the tyre file's road: scales LMUX and LMUY (1 = the road the tyre was measured on)";
  output Units.Force Fx "Longitudinal force on the wheel (ISO wheel axes)";
  output Units.Force Fy "Lateral force on the wheel (ISO wheel axes)";
  output Units.Torque Mz "Self-aligning moment";
  output Units.Torque My "Rolling resistance moment about the wheel axis";
  output Units.Torque Mx "Overturning moment";
  output Units.Length Re "Effective rolling radius";
  output Units.Ratio kappa(start = 0, fixed = true) "Relaxed longitudinal slip (state)";
  output Units.Angle alpha "Relaxed slip angle atan(tanAlpha)";
  Units.Ratio tanAlpha(start = 0, fixed = true) "Relaxed lateral slip, vy/|vx| in steady state (state)";
  Units.Length sigmaKappa "Longitudinal relaxation length";
  Units.Length sigmaAlpha "Lateral relaxation length";
  Units.TranslationalDampingConstant damping "Low-speed damping at the current speed";
  output Units.Force FxSlip "Longitudinal force from the relaxed slips alone (no low-speed damping)";
  output Units.Force FySlip "Lateral force from the relaxed slips alone (no low-speed damping)";
protected
  Units.Velocity vxAbs "Absolute longitudinal velocity";
equation
  Re = effectiveRollingRadius(Fz, c);
  (sigmaKappa, sigmaAlpha) = relaxationLengths(Fz, gamma, c);
  vxAbs = noEvent(abs(vx));
  noEvent(max(sigmaKappa, sigmaMin))*der(kappa) + vxAbs*kappa = omega*Re - vx;
  noEvent(max(sigmaAlpha, sigmaMin))*der(tanAlpha) + vxAbs*tanAlpha = vy;
  alpha = atan(tanAlpha);
  (FxSlip, FySlip, Mz, My, Mx) = combinedSlip(Fz, kappa, alpha, gamma, vx, c, roadFriction);
  // Low-speed damping: below VXLOW a viscous force opposing the contact-patch slip velocity is
  // added, fading out with a half cosine at VXLOW, so the standstill tyre spring is damped.
  damping = if noEvent(vxAbs < c.VXLOW) then 0.5*lowSpeedDamping*(1 + cos(3.14159265358979*vxAbs/c.VXLOW)) else 0;
  Fx = FxSlip + damping*(omega*Re - vx);
  Fy = FySlip - damping*vy;
  annotation (Documentation(info = "<html>
<p>Magic Formula tyre (<a href=\"modelica://VehicleRTM.Tires.combinedSlip\">combinedSlip</a>,
PAC2002 / MF 5.2 or MF 6.1 as the record says) with first-order relaxation of both slips, written
as a block: Real inputs and outputs, ISO wheel axes of CONVENTIONS.md (x forward, y left, z up).
Use it with a record of <code>VehicleRTM.Data.Tires</code>, e.g.
<code>Tire tire(redeclare VehicleRTM.Data.Tires.UAZBUS_225_75R16 c)</code>.</p>
<h4>Slip states</h4>
<pre>
max(sigmaKappa, sigmaMin)*der(kappa)    + |vx|*kappa    = omega*Re - vx
max(sigmaAlpha, sigmaMin)*der(tanAlpha) + |vx|*tanAlpha = vy
alpha = atan(tanAlpha)
</pre>
<p>In steady state kappa = (omega*Re - vx)/|vx| (positive in traction, Fx &gt; 0) and
tanAlpha = vy/|vx|, so alpha = atan(vy/|vx|) exactly, as CONVENTIONS.md defines the slips: a
contact point sliding to the left (vy &gt; 0) gives alpha &gt; 0 and, with PKY1 &lt; 0, Fy &lt; 0.
In transients tanAlpha is the small-angle slip of the stretched-string model. Dividing by |vx|
is avoided, so the equations stay regular at standstill, where the states integrate the slip
velocities (the tread deflections divided by the relaxation lengths) and the forces act like
springs. Relaxation lengths come from <a href=\"modelica://VehicleRTM.Tires.relaxationLengths\">relaxationLengths</a>
(PTX1..3, PTY1..2) and are bounded below by <code>sigmaMin</code>, because they vanish at zero
load. Rolling backwards is handled by |vx|: braking while reversing gives kappa &gt; 0 and Fx &gt; 0.
The rolling resistance uses vx for its sign and fades in below VXLOW.
No events are generated (noEvent on abs and max).</p>
<p>Limitation of this linear first-order model: at standstill a wheel that keeps spinning
(omega*Re different from vx = 0) winds the slip state up without bound, since nothing but |vx|
pulls it back; the force stays bounded because combinedSlip limits kappa to KPUMAX, and the
state relaxes with the time constant sigmaKappa/|vx| once the wheel moves. Below VXLOW a
viscous damping (<code>lowSpeedDamping</code>, faded out with a half cosine at VXLOW, as in
MF-Tyre's low-speed model) is added to the forces: without it the tyre spring and the wheel inertia (or
the vehicle mass) oscillate undamped at standstill. <code>FxSlip</code> and <code>FySlip</code> are the
forces without that term; they depend on states only, so a suspension compliance driven by them
closes no algebraic loop through the wheel-axis velocities.</p>
<p><code>roadFriction</code> scales the peak friction coefficients of the Magic Formula (LMUX,
LMUY, wherever the MF equations use them) on top of the record's own scaling factors: 0.5 is a road
with half the grip of the one the tyre was measured on. It is an input, so an importer can change
it while the model runs (a mu-split or a low-friction patch, or a state observer estimating it);
bind it in a model that uses the tyre (<code>Tire tire(..., roadFriction = 1)</code>); as the FMU's
top-level input it starts at 1.</p>
<p>Re is the effective rolling radius of <a href=\"modelica://VehicleRTM.Tires.effectiveRollingRadius\">effectiveRollingRadius</a>
at the current load. The forces and moments act on the wheel at the contact point, in wheel
axes; My is about the wheel spin axis.</p>
</html>"));
end Tire;
