within VehicleRTM;
package Tires "Magic Formula tyres (PAC2002 / MF 5.2, MF 6.1 where the coefficients differ): combined slip, relaxation, vertical contact, rolling resistance"
  annotation (Documentation(info = "<html>
<p>Magic Formula tyres: PAC2002 / MF 5.2, and MF 6.1 where its coefficients differ (inflation
pressure, camber stiffness, cornering-stiffness shape), selected by
<code>MFCoefficients.mfVersion</code>.</p>
<ul>
<li><b>MFCoefficients</b>: record with every coefficient of a .tir file, names as the .tir keys.
Data records in <code>VehicleRTM.Data.Tires</code> are generated from .tir files by
<code>pybridge/mbm/tir.py</code>.</li>
<li><b>Tire</b>: block-like model with first-order slip relaxation that works at standstill.</li>
<li>Pure functions usable from any model: <b>combinedSlip</b> (steady-state Fx, Fy, Mz, My, Mx at
combined slip, use mode 4), <b>pureLongitudinal</b>, <b>pureLateral</b>, <b>slipStiffnesses</b>,
<b>rollingResistance</b>, <b>effectiveRollingRadius</b>, <b>relaxationLengths</b>,
<b>verticalForce</b>, <b>pressureIncrement</b>.</li>
</ul>
<p>Axes and signs follow CONVENTIONS.md (ISO 8855): kappa = (omega*Re - vx)/|vx|,
alpha = atan(vy/|vx|), gamma positive when the wheel top leans to the right.</p>
</html>"));
end Tires;
