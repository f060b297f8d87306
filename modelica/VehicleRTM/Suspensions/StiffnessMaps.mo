within VehicleRTM.Suspensions;
record StiffnessMaps "Vertical force at the wheel centre from the parallel and opposite wheel-travel tests"
  parameter Units.Length travel[:] "Wheel travel breakpoints (positive in bump)";
  parameter Units.Force parallelForce[size(travel, 1)]
    "Vertical force per wheel in the parallel-travel test (unsprung weight removed; positive pushes the wheel down)";
  parameter Units.Force oppositeForce[size(travel, 1)]
    "Vertical force on the left wheel in the opposite-travel test (left travel = zo; unsprung weight removed)";
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
</html>"));
end StiffnessMaps;
