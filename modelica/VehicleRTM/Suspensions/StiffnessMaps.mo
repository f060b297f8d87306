within VehicleRTM.Suspensions;
record StiffnessMaps "Vertical force at the wheel centre from the parallel and opposite wheel-travel tests"
  parameter Units.Length travel[:] "Wheel travel breakpoints (positive in bump)";
  parameter Units.Force parallelForce[size(travel, 1)]
    "Vertical force per wheel in the parallel-travel test (unsprung weight removed; positive pushes the wheel down)";
  parameter Units.Force oppositeForce[size(travel, 1)]
    "Vertical force on the left wheel in the opposite-travel test (left travel = zo; unsprung weight removed)";
  parameter Units.Force friction(min = 0) = 0
    "Spring friction per wheel at the wheel centre (a multi-leaf pack's inter-leaf friction), Dahl law; 0: none";
  parameter Units.Length frictionTravel(min = 0) = 0.001
    "Presliding travel of the friction: after a reversal the force builds up to friction over about this travel (initial rate friction/frictionTravel)";
  annotation (Documentation(info = "<html>
<p>The whole vertical stiffness of the suspension at the wheel centre (springs, leaf springs,
torsion bars, anti-roll bar, bushings), as 1D maps from the parallel and opposite wheel-travel
tests, with the unsprung weight removed, so the value at zero travel is the static sprung load
of the corner (LCV paper, Sect. <i>Suspension vertical and roll stiffness</i>).</p>
<p>The anti-roll term is the difference opposite - parallel, evaluated at the opposite travel
zo = (zL - zR)/2. The force on the left wheel is <code>parallel(zL) + (opposite(zo) - parallel(zo))</code>
and on the right wheel <code>parallel(zR) - (opposite(zo) - parallel(zo))</code>. For a solid axle the
opposite stiffness is lower than the parallel one: the anti-roll term then has a negative gain
and acts as the internal force that reduces roll stiffness, as the paper describes.</p>
<p>Spring friction (a multi-leaf pack), Dahl's law on each wheel's own travel: the force
<code>friction</code>&middot;<i>s</i> is added to the wheel's spring force, with
<i>ds/dt = (v - |v| s)/frictionTravel</i>, <i>v</i> the wheel's travel rate: <i>s</i> stays within &plusmn;1,
the force reaches &plusmn;<code>friction</code> while the wheel moves (more load in bump, less in
rebound) and after a reversal changes with the rate friction/frictionTravel. The maps are then the
elastic force (the K&amp;C loads without the friction). The friction acts on the own wheel's travel: in
opposite travel of a solid axle whose springs sit inboard of the wheels the K&amp;C loop at the wheel
is narrower (spring track over wheel track). <code>friction = 0</code> (default) gives no force.</p>
</html>"));
end StiffnessMaps;
