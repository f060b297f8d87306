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
algorithm
  // Defined before the loop that reassigns them: rumoca's flattening asks that of loop-carried locals.
  i := 1;
  j := 1;
  a := 0;
  b := 0;
  for w in 1:2 loop
    (i, j, a, b) := Tables.gridCell(u1, u2, c1[w], c2[w], linearExtrapolation);
    tx[w] := Tables.cellValue(txMap, i, j, a, b);
    ty[w] := Tables.cellValue(tyMap, i, j, a, b);
    toe[w] := Tables.cellValue(toeMap, i, j, a, b);
    camber[w] := Tables.cellValue(camberMap, i, j, a, b);
    caster[w] := Tables.cellValue(casterMap, i, j, a, b);
    springLength[w] := Tables.cellValue(springLengthMap, i, j, a, b);
    damperLength[w] := Tables.cellValue(damperLengthMap, i, j, a, b);
    bumpStopLength[w] := Tables.cellValue(bumpStopLengthMap, i, j, a, b);
    reboundStopLength[w] := Tables.cellValue(reboundStopLengthMap, i, j, a, b);
    antiRollBarLength[w] := Tables.cellValue(antiRollBarLengthMap, i, j, a, b);
    dtxds[w, :] := cellTravelDerivatives(u1, u2, txMap, i, j, a, b, c1[w], c2[w], dc1ds[w, :],
      dc2ds[w, :], linearExtrapolation);
    dtyds[w, :] := cellTravelDerivatives(u1, u2, tyMap, i, j, a, b, c1[w], c2[w], dc1ds[w, :],
      dc2ds[w, :], linearExtrapolation);
    ddamperds[w, :] := cellTravelDerivatives(u1, u2, damperLengthMap, i, j, a, b, c1[w], c2[w], dc1ds[w, :],
      dc2ds[w, :], linearExtrapolation);
    dbumpds[w, :] := cellTravelDerivatives(u1, u2, bumpStopLengthMap, i, j, a, b, c1[w], c2[w], dc1ds[w, :],
      dc2ds[w, :], linearExtrapolation);
    dreboundds[w, :] := cellTravelDerivatives(u1, u2, reboundStopLengthMap, i, j, a, b, c1[w], c2[w], dc1ds[w, :],
      dc2ds[w, :], linearExtrapolation);
  end for;
  annotation (Documentation(info = "<html>
<p>Each wheel's position on the axle's kinematic maps is located once
(<a href=\"modelica://VehicleRTM.Tables.gridCell\">gridCell</a>) and every map is read in that cell,
with the same arithmetic as <a href=\"modelica://VehicleRTM.Tables.interp2\">interp2</a> and
<a href=\"modelica://VehicleRTM.Suspensions.travelDerivative\">travelDerivative</a> (the same results
to the last bit): one search per wheel instead of one per map and slope, at every model evaluation.</p>
<p>The maps of <a href=\"modelica://VehicleRTM.Suspensions.KinematicMaps\">KinematicMaps</a> are passed
as arrays rather than as the record, so every tool can flatten the call; the results are whole arrays
over both wheels because a tuple equation receives whole variables.</p>
</html>"));
end axleKinematics;
