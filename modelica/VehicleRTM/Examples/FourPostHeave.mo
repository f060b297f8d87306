within VehicleRTM.Examples;
model FourPostHeave "Four-post heave test: all posts in phase, 30 mm/s constant-velocity sweep 0.5 to 6 Hz"
  constant Real pi(unit = "1") = 3.14159265358979 "Circle constant";
  parameter VehicleRTM.Units.Velocity vAmplitude = 0.03 "Post velocity amplitude (constant over the sweep)";
  parameter VehicleRTM.Units.Frequency fStart = 0.5 "Frequency at t = 0 (> 0: the displacement amplitude is vAmplitude/(2 pi f))";
  parameter VehicleRTM.Units.Frequency fEnd = 6 "Frequency at t = TSweep";
  parameter VehicleRTM.Units.Time TSweep = 30 "Sweep duration";
  VehicleRTM.Vehicles.FourPost10DoF car "SUV on the four-post rig";
  VehicleRTM.Units.Frequency f "Instantaneous frequency";
  VehicleRTM.Units.Angle phase "Phase, the integral of 2*pi*f";
  VehicleRTM.Units.Position zPost "Post displacement";
  VehicleRTM.Units.Velocity vPost "Post velocity";
protected
  final parameter Real fRate(unit = "Hz/s") = (fEnd - fStart)/TSweep "Sweep rate";
equation
  f = if time < TSweep then fStart + fRate*time else fEnd;
  phase = if time < TSweep then 2*pi*(fStart*time + fRate*time^2/2) else 2*pi*((fStart + fEnd)*TSweep/2 + fEnd*(time - TSweep));
  zPost = vAmplitude*sin(phase)/(2*pi*f);
  vPost = vAmplitude*cos(phase) - (if time < TSweep then vAmplitude*sin(phase)*fRate/(2*pi*f^2) else 0);
  car.zPost = {zPost, zPost, zPost, zPost};
  car.vPost = {vPost, vPost, vPost, vPost};
  annotation (experiment(StopTime = 30, Interval = 0.005),
    Documentation(info = "<html>
<p>Four-post heave test of the SLEKQ paper (Sec. 5): the four posts move in phase with a
constant-velocity sinusoidal sweep of 30 mm/s amplitude. The post displacement is</p>
<p><i>z<sub>post</sub>(t) = v<sub>A</sub> sin(&phi;(t)) / (2&pi; f(t))</i>, &nbsp;
<i>f(t) = f<sub>start</sub> + (f<sub>end</sub> - f<sub>start</sub>) t/T</i>, &nbsp;
<i>&phi;(t) = 2&pi;(f<sub>start</sub> t + (f<sub>end</sub> - f<sub>start</sub>) t<sup>2</sup>/(2T))</i>,</p>
<p>so the post velocity amplitude is <i>v<sub>A</sub></i> up to the sweep term
<i>v<sub>A</sub> sin(&phi;) f'/(2&pi; f<sup>2</sup>)</i> (12&nbsp;% at 0.5 Hz, below 1&nbsp;% above 1.7 Hz);
<code>vPost</code> is the exact derivative of <code>zPost</code>. The paper sweeps from 0 Hz; at 0 Hz
a constant-velocity displacement amplitude is unbounded, so the sweep starts at
<code>fStart</code> = 0.5 Hz (9.5 mm amplitude) and rises to 6 Hz in 30 s, passing the body's heave and
pitch modes (about 1.2&ndash;1.3 Hz). Output of interest: <code>car.heave</code> (paper Fig. 9a).
The SUV is not symmetric front to rear, so the heave input also excites some pitch; roll stays
zero (lateral symmetry).</p>
</html>"));
end FourPostHeave;
