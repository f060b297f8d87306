within VehicleRTM.Suspensions.Corners;
function springForce "Cubic spring force of Eq. 2 versus compression from the free length"
  input VehicleRTM.Units.Length dL "Compression from the free length (freeLength - L)";
  input VehicleRTM.Units.Force k0 "Constant term";
  input VehicleRTM.Units.TranslationalSpringConstant k1 "Linear rate";
  input Real k2(unit = "N/m2") "Quadratic coefficient";
  input Real k3(unit = "N/m3") "Cubic coefficient";
  output VehicleRTM.Units.Force F "Spring force, positive pushing the mounts apart";
algorithm
  F := ((k3*dL + k2)*dL + k1)*dL + k0;
  annotation (Documentation(info = "<html>
<p>Eq. 2 of the SLEKQ paper: <i>F<sub>k</sub> = k3 &Delta;L<sup>3</sup> + k2 &Delta;L<sup>2</sup> +
k1 &Delta;L + k0</i>, with <i>&Delta;L</i> the compression of the spring from its undeformed length
(positive when compressed) and the force positive when it pushes the strut mounts apart. Evaluated in
Horner form. The bushing stiffness lumped into the corner is part of these coefficients (they are
identified, not taken from the coil spring alone).</p>
</html>"));
end springForce;
