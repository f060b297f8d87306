within VehicleRTM.Suspensions.Corners;
function freeLength "Spring free length that makes the design ride height (z = 0) a static equilibrium under a given sprung corner load"
  input VehicleRTM.Suspensions.Corners.CornerData data "Corner data";
  input VehicleRTM.Units.Force FSprung "Sprung load carried by the corner at design ride height (tyre load minus unsprung weight)";
  input Real side(unit = "1") = 1 "+1 left corner, -1 right corner (the length does not depend on it for a mirrored corner)";
  output VehicleRTM.Units.Length Lfree "Free length: strut length at which the spring force is k0";
protected
  VehicleRTM.Units.Length L0 "Strut length at z = 0";
  Real dLdz0(unit = "1") "Installation ratio at z = 0";
  VehicleRTM.Units.Force Fd0 "Damper force at zero piston speed (Bezier blend at v = 0)";
  VehicleRTM.Units.Force Fs "Required spring force";
  VehicleRTM.Units.Length dL "Compression";
algorithm
  (L0, dLdz0) := VehicleRTM.Suspensions.Corners.strutGeometry(0, data, side);
  Fd0 := VehicleRTM.Suspensions.Corners.damperForce(0, data.d1, data.d2, data.d3, data.d4, data.d5, data.d6, data.blend);
  Fs := -FSprung/dLdz0 - Fd0;
  dL := (Fs - data.k0)/data.k1;
  // Newton iterations on the cubic, fixed count (the spring curve is monotone for k1 > 0)
  for i in 1:30 loop
    dL := dL - (VehicleRTM.Suspensions.Corners.springForce(dL, data.k0, data.k1, data.k2, data.k3) - Fs)/(data.k1 + dL*(2*data.k2 + 3*data.k3*dL));
  end for;
  Lfree := L0 + dL;
  annotation (Documentation(info = "<html>
<p>The paper (Sec. 4) computes the undeformed spring length such that the ride height of the reduced
model matches the multibody model. At rest at <i>z = 0</i> the travel equation of
<a href=\"modelica://VehicleRTM.QuarterCars.SLEKQ\">SLEKQ</a> reduces to</p>
<p><i>F<sub>Sprung</sub> + (F<sub>k</sub>(&Delta;L) + F<sub>d</sub>(0))&middot;dL/dz(0) = 0</i>,</p>
<p>where <i>F<sub>Sprung</sub> = F<sub>Z</sub> - m<sub>unsprung</sub>g</i> is the sprung part of the corner
load and <i>F<sub>d</sub>(0) = (d1 - d4)h/4</i> the small force of the Bezier-blended damper at zero
speed. The function solves the cubic <i>F<sub>k</sub>(&Delta;L) = -F<sub>Sprung</sub>/(dL/dz) - F<sub>d</sub>(0)</i>
by 30 Newton steps from the linear estimate and returns <i>L(0) + &Delta;L</i>. Requires a spring curve
that is monotone over the solution range (k1 &gt; 0).</p>
</html>"));
end freeLength;
