within VehicleRTM.Data.SUV;
record Front "SUV front corner: MacPherson strut with the identified unsprung mass of the SLEKQ paper"
  extends VehicleRTM.Suspensions.Corners.MacPherson(mUnsprung = 59.1);
  annotation (Documentation(info = "<html>
<p>Front corner of the SUV: the
<a href=\"modelica://VehicleRTM.Suspensions.Corners.MacPherson\">MacPherson</a> variant with the
unsprung mass identified in the SLEKQ paper (Table 2: 59.1 kg, bounds 58.5&ndash;63.7 kg, initial guess
61.1 kg). Corner weight at design ride height (520 + 59.1) kg &middot; 9.81 m/s<sup>2</sup> = 5681 N,
the offset F0 of the K&amp;C swept-sine test. All other data are those of the variant (plausible, not
published in the paper).</p>
</html>"));
end Front;
