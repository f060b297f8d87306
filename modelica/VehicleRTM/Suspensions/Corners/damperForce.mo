within VehicleRTM.Suspensions.Corners;
function damperForce "Damper force of Eq. 1 (piecewise linear) with quadratic Bezier blends at v = -d2, 0, d5 (C1)"
  input VehicleRTM.Units.Velocity v "Piston speed dL/dt (negative in bump/compression)";
  input VehicleRTM.Units.TranslationalDampingConstant d1 "Low-speed bump rate";
  input VehicleRTM.Units.Velocity d2 "Bump transition speed (> 0)";
  input VehicleRTM.Units.TranslationalDampingConstant d3 "High-speed bump rate";
  input VehicleRTM.Units.TranslationalDampingConstant d4 "Low-speed rebound rate";
  input VehicleRTM.Units.Velocity d5 "Rebound transition speed (> 0)";
  input VehicleRTM.Units.TranslationalDampingConstant d6 "High-speed rebound rate";
  input VehicleRTM.Units.Velocity blend "Requested blend half-width (<= 0: no blending)";
  output VehicleRTM.Units.Force F "Damper force, positive pushing the mounts apart (resisting compression)";
protected
  VehicleRTM.Units.Velocity h "Blend half-width actually used";
algorithm
  // Piecewise-linear Eq. 1 (first branch written continuous, see Documentation)
  if v < -d2 then
    F := d1*d2 - d3*(v + d2);
  elseif v < 0 then
    F := -d1*v;
  elseif v < d5 then
    F := -d4*v;
  else
    F := -d4*d5 - d6*(v - d5);
  end if;
  // Quadratic Bezier blends: F = F_left(v) + (s_right - s_left)*(v - v_k + h)^2/(4*h) on |v - v_k| < h
  h := min(blend, 0.5*min(d2, d5));
  if h > 0 then
    if abs(v + d2) < h then
      F := d1*d2 - d3*(v + d2) + (d3 - d1)*(v + d2 + h)^2/(4*h);
    elseif abs(v) < h then
      F := -d1*v + (d1 - d4)*(v + h)^2/(4*h);
    elseif abs(v - d5) < h then
      F := -d4*v + (d4 - d6)*(v - d5 + h)^2/(4*h);
    end if;
  end if;
  annotation (Documentation(info = "<html>
<p>Damper force of Eq. 1 of the SLEKQ paper, with the piston speed <i>v = dL/dt</i> (negative in bump,
i.e. compression) and the force positive when it pushes the mounts apart:</p>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\">
<tr><th>range</th><th>F(v)</th><th>slope</th></tr>
<tr><td>v &lt; -d2</td><td>d1&middot;d2 - d3&middot;(v + d2)</td><td>-d3 (high-speed bump)</td></tr>
<tr><td>-d2 &le; v &lt; 0</td><td>-d1&middot;v</td><td>-d1 (low-speed bump)</td></tr>
<tr><td>0 &le; v &lt; d5</td><td>-d4&middot;v</td><td>-d4 (low-speed rebound)</td></tr>
<tr><td>v &ge; d5</td><td>-d4&middot;d5 - d6&middot;(v - d5)</td><td>-d6 (high-speed rebound)</td></tr>
</table>
<p><b>Note on the paper's first branch.</b> The paper prints <i>-d1 d2 - d3 (v + d2)</i> for
<i>v &lt; -d2</i>, which jumps by 2&middot;d1&middot;d2 at <i>v = -d2</i> (the second branch gives
<i>+d1 d2</i> there). The paper states the curve is C1, so the sign is a misprint; this function
uses <i>+d1 d2</i>, which makes the piecewise-linear curve continuous.</p>
<h4>Bezier blends (C1)</h4>
<p>At each transition speed <i>v<sub>k</sub></i> &isin; {-d2, 0, d5} the corner between the line on the
left (slope <i>s<sub>L</sub></i>) and the line on the right (slope <i>s<sub>R</sub></i>), which meet at
<i>(v<sub>k</sub>, F<sub>k</sub>)</i>, is replaced on <i>|v - v<sub>k</sub>| &lt; h</i> by the quadratic
(second-order) Bezier curve with control points</p>
<p>P0 = (v<sub>k</sub> - h, F<sub>k</sub> - s<sub>L</sub>h), &nbsp; P1 = (v<sub>k</sub>, F<sub>k</sub>), &nbsp;
P2 = (v<sub>k</sub> + h, F<sub>k</sub> + s<sub>R</sub>h).</p>
<p>Because the abscissae of the control points are equally spaced, the curve parameter is linear in
<i>v</i>, <i>t = (v - v<sub>k</sub> + h)/(2h)</i>, and the Bezier curve
<i>B(t) = (1-t)<sup>2</sup>P0 + 2t(1-t)P1 + t<sup>2</sup>P2</i> is the parabola</p>
<p><i>F(v) = F<sub>L</sub>(v) + (s<sub>R</sub> - s<sub>L</sub>)&middot;(v - v<sub>k</sub> + h)<sup>2</sup>/(4h)</i>,</p>
<p>where <i>F<sub>L</sub></i> is the left line. At <i>v = v<sub>k</sub> - h</i> it equals the left line
with slope <i>s<sub>L</sub></i>; at <i>v = v<sub>k</sub> + h</i> it equals the right line
(<i>F<sub>L</sub> + (s<sub>R</sub> - s<sub>L</sub>)h</i>) with slope <i>s<sub>R</sub></i>. Value and slope
are therefore continuous everywhere (C1); the second derivative jumps at the blend ends.</p>
<p>The half-width used is <i>h = min(blend, d2/2, d5/2)</i>, so neighbouring blends never overlap;
<code>blend &le; 0</code> gives the sharp piecewise-linear curve.</p>
<p><b>Consequence:</b> the blend at <i>v = 0</i> cuts the corner, so the force at zero speed is
<i>F(0) = (d1 - d4)&middot;h/4</i> (zero for equal low-speed rates). With an asymmetric damper this
small constant force acts at rest; the static-equilibrium function
<a href=\"modelica://VehicleRTM.Suspensions.Corners.freeLength\">freeLength</a> accounts for it.</p>
</html>"));
end damperForce;
