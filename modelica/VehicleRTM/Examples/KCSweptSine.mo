within VehicleRTM.Examples;
model KCSweptSine "K&C swept-sine test of one SLEKQ corner: F_Z = F0 + 1 kN sin(phi(t)), linear chirp 0 to 6 Hz"
  parameter VehicleRTM.Units.Force F0 = (rig.data.mSprung + rig.data.mUnsprung)*rig.g "Force offset: the corner weight";
  parameter VehicleRTM.Units.Force FAmplitude = 1000 "Force amplitude";
  parameter VehicleRTM.Units.Frequency fStart = 0 "Frequency at t = 0";
  parameter VehicleRTM.Units.Frequency fEnd = 6 "Frequency at t = TSweep";
  parameter VehicleRTM.Units.Time TSweep = 30 "Sweep duration";
  constant Real pi(unit = "1") = 3.14159265358979 "Circle constant";
  VehicleRTM.QuarterCars.KCRig rig(redeclare VehicleRTM.Data.SUV.Front data) "K&C rig with the SUV front corner";
  VehicleRTM.Units.Frequency f "Instantaneous frequency of the sweep";
  VehicleRTM.Units.Angle phase "Phase of the sweep, the integral of 2*pi*f";
equation
  f = if time < TSweep then fStart + (fEnd - fStart)*time/TSweep else fEnd;
  phase = if time < TSweep then 2*pi*(fStart*time + (fEnd - fStart)*time^2/(2*TSweep))
    else 2*pi*((fStart + fEnd)*TSweep/2 + fEnd*(time - TSweep));
  rig.FZ = F0 + FAmplitude*sin(phase);
  rig.lambda = 0;
  rig.GI = 0;
  rig.GP = 0;
  rig.GD = 0;
  rig.zRef = 0;
  rig.vRef = 0;
  rig.aRef = 0;
  annotation (experiment(StopTime = 30, Interval = 0.002),
    Documentation(info = "<html>
<p>The excitation the SLEKQ paper uses to identify the corner parameters (Sec. 4): the body is fixed
(<a href=\"modelica://VehicleRTM.QuarterCars.KCRig\">KCRig</a>) and a vertical force</p>
<p><i>F<sub>Z</sub>(t) = F<sub>0</sub> + 1.0 kN &middot; sin(&phi;(t))</i></p>
<p>acts at the contact patch, with <i>F<sub>0</sub></i> the corner weight
((mSprung + mUnsprung)&middot;g = 5681 N for the SUV front corner), so the corner oscillates about its
design ride height. The frequency rises linearly from 0 to 6 Hz over <code>TSweep</code> = 30 s
(linear chirp), and the phase is the integral of the instantaneous frequency,</p>
<p><i>f(t) = f<sub>start</sub> + (f<sub>end</sub> - f<sub>start</sub>) t/T</i>, &nbsp;
<i>&phi;(t) = 2&pi; &int;<sub>0</sub><sup>t</sup> f d&tau; = 2&pi;(f<sub>start</sub> t + (f<sub>end</sub> - f<sub>start</sub>) t<sup>2</sup>/(2T))</i>.</p>
<p>(Writing <i>sin(2&pi; f(t) t)</i> instead would sweep up to twice the intended end frequency.) After
<code>TSweep</code> the frequency stays at <code>fEnd</code>. The homotopy coupling is off (&lambda; = 0).
The sweep passes the corner's resonance on the rig (the unsprung mass on the wheel rate, about 4 Hz for
this corner). The corner starts at rest at <i>z = 0</i>, the static equilibrium under
<i>F<sub>0</sub></i> (the spring free length accounts for the small force of the Bezier-blended damper at
zero speed). Note that the mean of <i>F<sub>Z</sub></i> over the sweep is about 26 N above
<i>F<sub>0</sub></i>: the first, slowest half-period is positive.</p>
</html>"));
end KCSweptSine;
