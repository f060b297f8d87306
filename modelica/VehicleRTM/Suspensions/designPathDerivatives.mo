within VehicleRTM.Suspensions;
function designPathDerivatives "Derivatives of a kinematic map of both wheels with respect to both travels, at design position"
  input Real u1[:] "Breakpoints of the first map argument";
  input Real u2[:] "Breakpoints of the second map argument";
  input Real table[size(u1, 1), size(u2, 1)] "Map values (left-wheel frame)";
  input Boolean solidAxle "Solid axle (parallel x opposite travel) or independent wheels (travel x rack)";
  input Boolean linearExtrapolation "Continue the map linearly beyond the grid";
  output Real d[2, 2] "d value[i] / d travel[j] at zero travel and zero rack travel (left-wheel frame)";
protected
  Real sidei "Mirror factor of wheel i";
  Real sidej "Mirror factor of wheel j";
algorithm
  for i in 1:2 loop
    for j in 1:2 loop
      sidei := if i == 1 then 1 else -1;
      sidej := if j == 1 then 1 else -1;
      d[i, j] := travelDerivative(u1, u2, table, 0, 0,
        if solidAxle then 0.5 else (if i == j then 1 else 0),
        if solidAxle then 0.5*sidei*sidej else 0, linearExtrapolation);
    end for;
  end for;
  annotation (Documentation(info = "<html>
<p>The chain-rule derivatives of <a href=\"modelica://VehicleRTM.Suspensions.travelDerivative\">travelDerivative</a>
for every pair (wheel i, travel j) of an axle at its design position. They are parameters: the
vehicle uses them for the inertia of the unsprung masses moving along their kinematic paths when
the body rolls or pitches (the roll inertia about the roll axis).</p>
</html>"));
end designPathDerivatives;
