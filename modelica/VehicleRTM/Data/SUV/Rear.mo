within VehicleRTM.Data.SUV;
record Rear "SUV rear corner: semi-trailing-arm multilink with the identified unsprung mass of the SLEKQ paper"
  extends VehicleRTM.Suspensions.Corners.SemiTrailingArm(mUnsprung = 64.1);
  annotation (Documentation(info = "<html>
<p>Rear corner of the SUV: the
<a href=\"modelica://VehicleRTM.Suspensions.Corners.SemiTrailingArm\">SemiTrailingArm</a> variant with
the unsprung mass identified in the SLEKQ paper (Table 2: 64.1 kg, bounds 63.9&ndash;76.1 kg, initial
guess 70.0 kg). Corner weight at design ride height (470 + 64.1) kg &middot; 9.81 m/s<sup>2</sup> = 5240 N.
All other data are those of the variant (plausible, not published in the paper).</p>
</html>"));
end Rear;
