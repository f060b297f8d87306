within VehicleRTM.Suspensions.Corners;
record SemiTrailingArm "SLEKQ corner of a semi-trailing-arm multilink rear suspension (mid-size SUV, inclined strut)"
  extends VehicleRTM.Suspensions.Corners.CornerData(
    xPath1 = -0.11, xPath2 = 1.1, xPath3 = 0,
    yPath1 = -0.02, yPath2 = -0.5, yPath3 = 0,
    toe0 = 0.0026, toe1 = 0.05, toe2 = 0.4, toe3 = 0,
    camber0 = -0.0175, camber1 = -0.45, camber2 = -1.5, camber3 = 0,
    rotY0 = 0, rotY1 = 2.2, rotY2 = 0, rotY3 = 0,
    rUpper = {0.24, -0.28, 0.40},
    rLower = {0.10, -0.12, -0.04},
    k0 = 0, k1 = 90000, k2 = 0, k3 = 2.0e5,
    freeLength = 0.5732553,
    d1 = 3000, d2 = 0.08, d3 = 1200, d4 = 7500, d5 = 0.10, d6 = 2800, blend = 0.01,
    mUnsprung = 52, mSprung = 470,
    cTyre = 250000, dTyre = 150);
  annotation (Documentation(info = "<html>
<p>Rear semi-trailing-arm multilink corner of a mid-size SUV (left corner, body axes, origin at the
design wheel centre). Plausible engineering data in the spirit of the SLEKQ paper's rear suspension
(the paper does not publish its curves):</p>
<ul>
<li>The unsprung mass is the trailing arm with the wheel carrier. It pivots about an axis about 0.45 m
ahead of and 0.05 m above the wheel centre: third rotation rotY1 = 1/(0.45 m) = 2.2 rad/m, and the
wheel centre moves on an arc about the pivot, x(z) = -0.11 z + 1.1 z<sup>2</sup> (16 mm forward at 80 mm
rebound, 2 mm rearward at 80 mm bump). The swept pivot axis gives the strong
camber gain of the type (-0.45 rad/m, -1&deg; static, -3.6&deg; at 80 mm bump) and toe-in in bump
(0.05 rad/m).</li>
<li>Strut: lower mount on the arm 0.10 m ahead of, 0.12 m inboard of and 0.04 m below the wheel centre,
upper mount on the body 0.24 m ahead, 0.28 m inboard, 0.40 m above: the strut leans 25.8&deg; from
vertical (the paper notes that its rear damper is far from vertical). Installation ratio
dL/dz = -0.597 at design.</li>
<li>Spring: k1 = 90 N/mm, progressive k3 = 2e5 N/m<sup>3</sup>; wheel rate 34.6 N/mm, ride rate with
the 250 N/mm tyre 30.4 N/mm; body mode 1.28 Hz with 470 kg sprung corner mass, wheel hop 11.8 Hz
(52 kg unsprung).</li>
<li>Damper: low-speed bump/rebound 3000/7500 N&middot;s/m up to 0.08/0.10 m/s, high-speed 1200/2800
N&middot;s/m, blend &plusmn;0.01 m/s (about 0.25 of critical damping of the body mode through the
installation ratio).</li>
<li><code>freeLength</code> = 0.5732553 m makes z = 0 the static equilibrium under 470 kg&middot;9.81 m/s<sup>2</sup>
(including the -11.25 N damper force at zero speed).</li>
</ul>
</html>"));
end SemiTrailingArm;
