within VehicleRTM.Suspensions;
function axleKinematics "An axle's kinematic maps and the travel derivatives of the five that carry forces, one grid search per wheel"
  input Real u1[:] "Breakpoints of the first map argument";
  input Real u2[:] "Breakpoints of the second map argument";
  input Real txMap[size(u1, 1), size(u2, 1)] "Map of tx";
  input Real tyMap[size(u1, 1), size(u2, 1)] "Map of ty";
  input Real toeMap[size(u1, 1), size(u2, 1)] "Map of toe";
  input Real camberMap[size(u1, 1), size(u2, 1)] "Map of camber";
  input Real casterMap[size(u1, 1), size(u2, 1)] "Map of caster";
  input Real springLengthMap[size(u1, 1), size(u2, 1)] "Map of the spring length";
  input Real damperLengthMap[size(u1, 1), size(u2, 1)] "Map of the damper length";
  input Real bumpStopLengthMap[size(u1, 1), size(u2, 1)] "Map of the bump-stop length";
  input Real reboundStopLengthMap[size(u1, 1), size(u2, 1)] "Map of the rebound-stop length";
  input Real antiRollBarLengthMap[size(u1, 1), size(u2, 1)] "Map of the anti-roll-bar drop-link length";
  input Boolean linearExtrapolation "Continue the maps linearly beyond the grid";
  input Real c1[2] "First map argument of each wheel";
  input Real c2[2] "Second map argument of each wheel (left-wheel frame)";
  input Real dc1ds[2, 2](each unit = "1") "d c1[i] / d travel[j]";
  input Real dc2ds[2, 2](each unit = "1") "d c2[i] / d travel[j]";
  output Units.Length tx[2] "Contact-patch x displacement";
  output Units.Length ty[2] "Contact-patch y displacement (left-wheel frame)";
  output Units.Angle toe[2] "Wheel rotation about z (left-wheel frame)";
  output Units.Angle camber[2] "Camber";
  output Units.Angle caster[2] "Caster";
  output Units.Length springLength[2] "Spring length";
  output Units.Length damperLength[2] "Damper length";
  output Units.Length bumpStopLength[2] "Bump-stop length";
  output Units.Length reboundStopLength[2] "Rebound-stop length";
  output Units.Length antiRollBarLength[2] "Anti-roll-bar drop-link length";
  output Real dtxds[2, 2](each unit = "1") "d tx[i] / d travel[j]";
  output Real dtyds[2, 2](each unit = "1") "d ty[i] / d travel[j] (left-wheel frame)";
  output Real ddamperds[2, 2](each unit = "1") "d damperLength[i] / d travel[j]";
  output Real dbumpds[2, 2](each unit = "1") "d bumpStopLength[i] / d travel[j]";
  output Real dreboundds[2, 2](each unit = "1") "d reboundStopLength[i] / d travel[j]";
protected
  Integer i "Row segment of the wheel";
  Integer j "Column segment of the wheel";
  Real a "Position in the row segment";
  Real b "Position in the column segment";
  Real du1 "Width of the row segment";
  Real du2 "Width of the column segment";
  Boolean flat1 "Zero slopes along the first argument (clamped beyond the grid)";
  Boolean flat2 "Zero slopes along the second argument (clamped beyond the grid)";
  Real v "A map's value (cellTravelDerivatives; a tuple assignment takes whole variables)";
  Real d1 "Its derivative with respect to the first wheel's travel";
  Real d2 "Its derivative with respect to the second wheel's travel";
algorithm
  // Defined before the loop that reassigns them: rumoca's flattening asks that of loop-carried locals.
  i := 1;
  j := 1;
  a := 0;
  b := 0;
  du1 := 1;
  du2 := 1;
  flat1 := false;
  flat2 := false;
  v := 0;
  d1 := 0;
  d2 := 0;
  for w in 1:2 loop
    (i, j, a, b) := Tables.gridCell(u1, u2, c1[w], c2[w], linearExtrapolation);
    du1 := u1[i + 1] - u1[i];
    du2 := u2[j + 1] - u2[j];
    flat1 := not linearExtrapolation and (c1[w] < u1[1] or c1[w] > u1[size(u1, 1)]);
    flat2 := not linearExtrapolation and (c2[w] < u2[1] or c2[w] > u2[size(u2, 1)]);
    toe[w] := Tables.cellValue(toeMap, i, j, a, b);
    camber[w] := Tables.cellValue(camberMap, i, j, a, b);
    caster[w] := Tables.cellValue(casterMap, i, j, a, b);
    springLength[w] := Tables.cellValue(springLengthMap, i, j, a, b);
    antiRollBarLength[w] := Tables.cellValue(antiRollBarLengthMap, i, j, a, b);
    (v, d1, d2) := cellTravelDerivatives(txMap, i, j, a, b, du1, du2, flat1, flat2, dc1ds[w, 1], dc1ds[w, 2],
      dc2ds[w, 1], dc2ds[w, 2]);
    tx[w] := v;
    dtxds[w, 1] := d1;
    dtxds[w, 2] := d2;
    (v, d1, d2) := cellTravelDerivatives(tyMap, i, j, a, b, du1, du2, flat1, flat2, dc1ds[w, 1], dc1ds[w, 2],
      dc2ds[w, 1], dc2ds[w, 2]);
    ty[w] := v;
    dtyds[w, 1] := d1;
    dtyds[w, 2] := d2;
    (v, d1, d2) := cellTravelDerivatives(damperLengthMap, i, j, a, b, du1, du2, flat1, flat2, dc1ds[w, 1], dc1ds[w, 2],
      dc2ds[w, 1], dc2ds[w, 2]);
    damperLength[w] := v;
    ddamperds[w, 1] := d1;
    ddamperds[w, 2] := d2;
    (v, d1, d2) := cellTravelDerivatives(bumpStopLengthMap, i, j, a, b, du1, du2, flat1, flat2, dc1ds[w, 1], dc1ds[w, 2],
      dc2ds[w, 1], dc2ds[w, 2]);
    bumpStopLength[w] := v;
    dbumpds[w, 1] := d1;
    dbumpds[w, 2] := d2;
    (v, d1, d2) := cellTravelDerivatives(reboundStopLengthMap, i, j, a, b, du1, du2, flat1, flat2, dc1ds[w, 1], dc1ds[w, 2],
      dc2ds[w, 1], dc2ds[w, 2]);
    reboundStopLength[w] := v;
    dreboundds[w, 1] := d1;
    dreboundds[w, 2] := d2;
  end for;
  annotation (Documentation(info = "<html>
<p>Each wheel's position on the axle's kinematic maps is located once
(<a href=\"modelica://VehicleRTM.Tables.gridCell\">gridCell</a>) and every map is read in that cell
(the five maps with travel derivatives through
<a href=\"modelica://VehicleRTM.Suspensions.cellTravelDerivatives\">cellTravelDerivatives</a>, each cell
corner read once),
with the same arithmetic as <a href=\"modelica://VehicleRTM.Tables.interp2\">interp2</a> and
<a href=\"modelica://VehicleRTM.Suspensions.travelDerivative\">travelDerivative</a> (the same results
to the last bit): one search per wheel instead of one per map and slope, at every model evaluation.</p>
<p>The maps of <a href=\"modelica://VehicleRTM.Suspensions.KinematicMaps\">KinematicMaps</a> are passed
as arrays rather than as the record, so every tool can flatten the call; the results are whole arrays
over both wheels because a tuple equation receives whole variables.</p>
</html>"));
end axleKinematics;
