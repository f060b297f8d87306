within VehicleRTM.Brakes;
function wheelBrakeTorque "Signed brake torque of a wheel: regularised Coulomb law T*tanh(omega/omegaReg)"
  input Real T(unit = "N.m") "Brake torque magnitude (non-negative), e.g. PedalBrakes.brakeTorque[i]";
  input Real omega(unit = "rad/s") "Wheel spin speed relative to its carrier";
  input Real omegaReg(unit = "rad/s") "Regularisation speed (> 0): the torque reaches 76 % of T at omega = omegaReg";
  output Real torque(unit = "N.m") "Brake torque with the sign of omega; subtract it in the wheel's spin equation";
algorithm
  torque := T*tanh(omega/omegaReg);
  annotation (Documentation(info = "<html>
<p>Friction torque of a brake with the magnitude <code>T</code> that the pedal commands:
<code>torque = T*tanh(omega/omegaReg)</code>. The result has the sign of <code>omega</code>, so it
<b>opposes</b> the spin when the wheel's equation subtracts it:</p>
<pre>  J*der(omega) = driveTorque - Fx*r_loaded - wheelBrakeTorque(T, omega, omegaReg);</pre>
<p>This is a <b>regularised Coulomb law</b>: the discontinuous <code>T*sign(omega)</code> with
stiction is replaced by a smooth, event-free curve, which a real-time fixed-step solver
integrates without mode switches. The price: at standstill the brake acts like a stiff viscous
damper of coefficient <code>T/omegaReg</code>, so a braked vehicle holds still only
approximately; on a slope it creeps at a wheel speed of about
<code>omegaReg*atanh(T_slope/T)</code>. A small <code>omegaReg</code> gives less creep but a stiffer
equation: explicit integration with step <code>h</code> needs about
<code>omegaReg &gt; T*h/J</code>. Typical values: 0.5 to 2 rad/s at 1 ms.</p>
</html>"));
end wheelBrakeTorque;
