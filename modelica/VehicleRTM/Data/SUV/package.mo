within VehicleRTM.Data;
package SUV "Mid-size SUV of the SLEKQ paper: front MacPherson and rear semi-trailing-arm corners, sprung body"
  annotation (Documentation(info = "<html>
<p>Parameter records of the sports utility vehicle of Hall et al. (2013), <i>Reduction of a vehicle
multibody dynamic model using homotopy optimization</i>: a MacPherson strut front suspension and a
semi-trailing-arm multilink rear suspension (SLEKQ corner records) and the sprung body for the
four-post model.</p>
<ul>
<li><a href=\"modelica://VehicleRTM.Data.SUV.Front\">Front</a>: front corner (extends
<a href=\"modelica://VehicleRTM.Suspensions.Corners.MacPherson\">Suspensions.Corners.MacPherson</a>).</li>
<li><a href=\"modelica://VehicleRTM.Data.SUV.Rear\">Rear</a>: rear corner (extends
<a href=\"modelica://VehicleRTM.Suspensions.Corners.SemiTrailingArm\">Suspensions.Corners.SemiTrailingArm</a>).</li>
<li><a href=\"modelica://VehicleRTM.Data.SUV.Body\">Body</a>: sprung mass, inertias, wheelbase, centre
of gravity, tracks.</li>
</ul>
<p>The paper publishes the identified unsprung masses (Table 2) but not the kinematic curves, spring
and damper coefficients or body data; those values here are plausible data for a mid-size SUV, not
the paper's vehicle.</p>
</html>"));
end SUV;
