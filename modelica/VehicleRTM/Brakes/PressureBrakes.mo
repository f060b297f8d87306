within VehicleRTM.Brakes;
block PressureBrakes "Brake line pressure to brake torque per wheel: clamp-force polynomial, pad friction, stiction at standstill"
  parameter Units.Area pistonAreaFront = 0.01148 "Effective piston area of a front calliper (both faces of the disc counted)";
  parameter Units.Area pistonAreaRear = 0.008242 "Effective piston area of a rear calliper (both faces of the disc counted)";
  parameter Real clampLinear(unit = "1") = 1 "Clamp-force polynomial: coefficient of the theoretical force";
  parameter Real clampQuadratic(unit = "1") = 0 "Clamp-force polynomial: coefficient of the theoretical force squared (over clampReference)";
  parameter Real clampCubic(unit = "1") = 0 "Clamp-force polynomial: coefficient of the theoretical force cubed (over clampReference squared)";
  parameter Units.Force clampReference = 10000 "Force that makes the polynomial's coefficients dimensionless";
  parameter Real frictionFront(unit = "1") = 0.35 "Pad friction coefficient mu, front";
  parameter Real frictionRear(unit = "1") = 0.35 "Pad friction coefficient mu, rear";
  parameter Units.Length radiusFront = 0.14 "Effective friction radius of a front disc";
  parameter Units.Length radiusRear = 0.13 "Effective friction radius of a rear disc";
  parameter Units.Angle stictionAngle = 0.01 "Wheel rotation over which the pads' friction builds up from rest";
  parameter Units.Time stictionLag = 0.003
    "Time constant of the pads' friction at rest: its damping there";
  parameter Units.Time slidingLag = 0.01
    "Relaxation time of the friction state at speed (its lag behind a reversal of the spin): the state's fastest rate is 1/slidingLag";
  parameter Real rearCircuit(unit = "1") = 1 "1: the pressure brakes the rear axle too; 0: the front axle only";
  input Units.Pressure pressure "Brake line pressure (negative values count as 0)";
  input Units.AngularVelocity omega[4] "Wheel spin speeds FL, FR, RL, RR relative to their carriers";
  output Units.Force clampForce[2] "Clamp force of a front and of a rear calliper";
  output Units.Torque slidingTorque[4] "Sliding friction torque mu*F*r per wheel (the most the brake holds)";
  output Units.Torque torque[4] "Signed brake torque per wheel: subtract it in the wheel's spin equation";
  Real z[4](each start = 0, each fixed = true, each unit = "1")
    "Friction state per wheel: the brake torque as a fraction of the sliding torque, -1..1";
protected
  Units.Force theoretical[2] "Pressure times piston area, front and rear";
equation
  theoretical = max(pressure, 0)*{pistonAreaFront, pistonAreaRear};
  for k in 1:2 loop
    clampForce[k] = max(0, theoretical[k]*(clampLinear + clampQuadratic*theoretical[k]/clampReference
      + clampCubic*(theoretical[k]/clampReference)^2));
  end for;
  slidingTorque = {frictionFront*clampForce[1]*radiusFront, frictionFront*clampForce[1]*radiusFront,
    rearCircuit*frictionRear*clampForce[2]*radiusRear, rearCircuit*frictionRear*clampForce[2]*radiusRear};
  der(z) = {(omega[i] - abs(omega[i])*z[i])/(stictionAngle + slidingLag*abs(omega[i])) for i in 1:4};
  torque = slidingTorque .* (z + stictionLag*der(z));
  annotation (Documentation(info = "<html>
<p>Hydraulic disc brakes driven by the measured brake line pressure, as in section 5 of Sanjurjo et
al. (an on-board multibody model fed by the vehicle's sensors): the pressure gives the clamp force
through a polynomial, the clamp force the sliding torque through the pad friction coefficient and the
effective radius, and a friction state gives stiction at standstill.</p>
<pre>
F_t = max(p, 0)*A                                                  theoretical force
F   = max(0, F_t*(c1 + c2*F_t/F_ref + c3*(F_t/F_ref)^2))           clamp force (a cubic in F_t)
T_s = mu*F*r                                                       sliding torque
der(z) = (omega - |omega|*z)/(phi_s + tau_r*|omega|),  torque = T_s*(z + tau_s*der(z))
</pre>
<p>The polynomial is the one the paper fits to a load cell between the pads against
<code>p*A</code>; with <code>c1 = 1, c2 = c3 = 0</code> the clamp force is the theoretical force.
<code>A</code> counts both faces of the disc, so <code>T_s = mu*F*r</code> is the torque of the whole
calliper.</p>
<p><b>Sliding and stiction.</b> The friction state <code>z</code> (a Dahl friction model with a
speed-dependent relaxation) goes to <code>sign(omega)</code> while the wheel spins, so the brake torque
is the sliding torque <code>mu*F*r</code> opposing the spin. At standstill the pads behave like a
spring and damper (stiffness <code>T_s/phi_s</code>, damping <code>T_s*tau_s/phi_s</code>): a wheel turned by an external torque <code>T &lt; T_s</code> comes to rest after a rotation of
about <code>phi_s*T/T_s</code> and is then held, without creep (the regularised law of
<a href=\"modelica://VehicleRTM.Brakes.wheelBrakeTorque\">wheelBrakeTorque</a> lets it creep); a
torque above <code>T_s</code> turns it. <code>phi_s</code> sets that stiffness; <code>tau_s</code>
damps it. <code>tau_r</code> (slidingLag) bounds the state's relaxation rate at speed to
<code>1/tau_r</code> (the rate is <code>|omega|/(phi_s + tau_r*|omega|)</code>), so a fixed step
integrates it at any wheel speed: at 10 ms, RK4's step for identification, |h*lambda| is at most 1
with the default 10 ms (with the 3 ms of tau_s it was 3.2 at 80 km/h, past RK4's limit of 2.8: the
unbraked state grew by 1.7 per step and overflowed after 12.8 s). Near rest (<code>|omega| &lt;&lt;
phi_s/tau_r</code>) the state does not see <code>tau_r</code>. In steady sliding <code>der(z) = 0</code> and the torque is exactly <code>mu*F*r</code>.</p>
<p><code>rearCircuit = 0</code> leaves the rear wheels to a measured hub torque (which includes their
brakes). Defaults: a 3.5 t van whose reference model brakes 9000 N.m per front and 6000 N.m per rear
wheel at a line pressure of 16 MPa (mu = 0.35 as the paper measured for its front pads, radii of
discs of about 330 mm and 300 mm); plausible, not data of a specific vehicle.</p>
</html>"));
end PressureBrakes;
