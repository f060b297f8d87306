within VehicleRTM.Suspensions.Corners;
record MacPherson "SLEKQ corner of a MacPherson strut front suspension (mid-size SUV, nearly vertical strut)"
  extends VehicleRTM.Suspensions.Corners.CornerData(
    xPath1 = -0.02, xPath2 = -0.3, xPath3 = 0,
    yPath1 = 0.04, yPath2 = -0.9, yPath3 = 0,
    toe0 = 0.0017, toe1 = -0.06, toe2 = -0.6, toe3 = 0,
    camber0 = -0.0087, camber1 = -0.22, camber2 = -0.9, camber3 = 0,
    rotY0 = 0, rotY1 = 0.06, rotY2 = 0, rotY3 = 0,
    rUpper = {-0.03, -0.17, 0.74},
    rLower = {0.0, -0.10, 0.19},
    k0 = 0, k1 = 29000, k2 = 0, k3 = 1.2e5,
    freeLength = 0.7188453,
    d1 = 1800, d2 = 0.10, d3 = 700, d4 = 4200, d5 = 0.13, d6 = 1600, blend = 0.01,
    mUnsprung = 48, mSprung = 520,
    cTyre = 240000, dTyre = 150);
  annotation (Documentation(info = "<html>
<p>Front MacPherson strut corner of a mid-size SUV (left corner, body axes, origin at the design wheel
centre). Plausible engineering data in the spirit of the SLEKQ paper's front suspension (the paper does
not publish its curves):</p>
<ul>
<li>Strut: lower mount on the knuckle 0.19 m above and 0.10 m inboard of the wheel centre, upper mount
(top mount) 0.74 m above, 0.17 m inboard, 0.03 m rearward: the strut leans 7.9&deg; from vertical
(nearly vertical, as the paper notes for its front suspension). Length 0.555 m at design,
installation ratio dL/dz = -0.969.</li>
<li>Kinematic path: wheel centre 3.5 mm rearward and 2.6 mm inward at 80 mm bump; bump steer
-0.06 rad/m (toe-out in bump); camber -0.5&deg; static, gain -0.22 rad/m (-1.8&deg; at 80 mm bump);
third rotation (caster change) 0.06 rad/m.</li>
<li>Spring (coil spring with lumped bushing rates): k1 = 29 N/mm, progressive k3 = 1.2e5 N/m<sup>3</sup>;
wheel rate 36.7 N/mm at design, ride rate with the 240 N/mm tyre 31.8 N/mm; with 520 kg sprung corner
mass the body mode is 1.25 Hz, the wheel hop mode 12 Hz (48 kg unsprung).</li>
<li>Damper: low-speed bump/rebound 1800/4200 N&middot;s/m up to 0.10/0.13 m/s, high-speed 700/1600
N&middot;s/m, Bezier blend &plusmn;0.01 m/s; about 0.35 of critical damping of the body mode.</li>
<li><code>freeLength</code> = 0.7188453 m makes z = 0 the static equilibrium under 520 kg&middot;9.81 m/s<sup>2</sup>
(including the -6 N damper force at zero speed of the blend), identical to what
<a href=\"modelica://VehicleRTM.Suspensions.Corners.freeLength\">freeLength</a> returns.</li>
</ul>
</html>"));
end MacPherson;
