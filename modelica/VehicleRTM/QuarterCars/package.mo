within VehicleRTM;
package QuarterCars "SLEKQ single-link equivalent kinematic quarter-car with homotopy coupling, and its K&C rig"
  annotation (Documentation(info = "<html>
<p>The reduced suspension model of Hall, Uchida, Loh, Schmitke and McPhee, <i>Reduction of a vehicle
multibody dynamic model using homotopy optimization</i> (Arch. Mech. Eng. LX(1), 2013).</p>
<ul>
<li><a href=\"modelica://VehicleRTM.QuarterCars.SLEKQ\">SLEKQ</a>: single-link equivalent kinematic
quarter-car. One unsprung mass on a kinematic path (polynomials of the vertical travel), a cubic
spring (Eq. 2) and a Bezier-blended piecewise-linear damper (Eq. 1) along the strut's line of
action, and the homotopy coupling term (Eq. 3, 5) with &lambda;, gains and reference signals as
inputs. Corner data: <a href=\"modelica://VehicleRTM.Suspensions.Corners\">Suspensions.Corners</a>.</li>
<li><a href=\"modelica://VehicleRTM.QuarterCars.KCRig\">KCRig</a>: the kinematics and compliance rig
of the identification (body fixed, vertical force at the contact patch).</li>
</ul>
<p>Assemblies: <a href=\"modelica://VehicleRTM.Vehicles.FourPost10DoF\">Vehicles.FourPost10DoF</a>;
examples: <a href=\"modelica://VehicleRTM.Examples.KCSweptSine\">Examples.KCSweptSine</a>,
<a href=\"modelica://VehicleRTM.Examples.QuarterCarFreeVibration\">Examples.QuarterCarFreeVibration</a>,
<a href=\"modelica://VehicleRTM.Examples.FourPostHeave\">Examples.FourPostHeave</a>,
<a href=\"modelica://VehicleRTM.Examples.FourPostPitch\">Examples.FourPostPitch</a>.</p>
</html>"));
end QuarterCars;
