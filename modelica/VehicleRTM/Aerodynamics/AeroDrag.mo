within VehicleRTM.Aerodynamics;
block AeroDrag "Longitudinal aerodynamic drag of the vehicle body"
  parameter Units.Density airDensity = 1.2 "Air density";
  parameter Units.Area dragArea = 0.37*4.0 "Drag area Cd*A (3.5 t van: Cd 0.37, frontal area 4.0 m2)";
  parameter Units.Length height = 1.2
    "Height above the ground of the point where the drag acts (for the pitch moment)";
  input Units.Velocity vx "Longitudinal speed of the body relative to the air (x forward)";
  output Units.Force force "Drag force with the sign of vx; acts on the body as -force along x at height";
equation
  force = dragForce(vx, airDensity, dragArea);
  annotation (Documentation(info = "<html>
<p>Aerodynamic drag of the body, <code>force = 0.5*airDensity*dragArea*vx*|vx|</code>
(<a href=\"modelica://VehicleRTM.Aerodynamics.dragForce\">dragForce</a>), no wind, no lift, no side
force. <code>force</code> has the sign of <code>vx</code>: it is the resistance, and the vehicle
model applies <code>-force</code> along x at the height <code>height</code> above the ground.
Applied there rather than at the centre of gravity it makes the pitch moment
<code>My = -force*(height - h_CoG)</code> about the y axis: negative (nose up, as pitch is positive
nose down by ISO 8855) when the drag acts above the CoG. The vehicle model computes it, as it knows
the CoG height.</p>
<p>Defaults for a 3.5 t panel van: Cd about 0.37, frontal area about 4.0 m2, drag acting at about
1.2 m, half the roof height; plausible from public specifications, not data of a specific
vehicle.</p>
</html>"));
end AeroDrag;
