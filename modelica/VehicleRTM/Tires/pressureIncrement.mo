within VehicleRTM.Tires;
function pressureIncrement "Normalised inflation pressure increment dpi of MF 6.1 (0 for MF 5.2 or when the pressure is not given)"
  input MFCoefficients c "Tyre coefficients";
  output Units.Ratio dpi "(INFLPRES - NOMPRES)/NOMPRES, or 0";
algorithm
  dpi := if c.mfVersion >= 61 and c.NOMPRES > 0 and c.INFLPRES > 0 then (c.INFLPRES - c.NOMPRES)/c.NOMPRES else 0;
  annotation (Documentation(info = "<html>
<p>Normalised inflation pressure increment <code>dpi = (INFLPRES - NOMPRES)/NOMPRES</code> of the
MF 6.1 pressure terms (PPX*, PPY*, PPZ*, PCF*). It is 0, which disables every pressure term, for
<code>mfVersion = 52</code> (PAC2002 has no pressure terms) and when INFLPRES or NOMPRES is not
positive (the record default 0).</p>
</html>"));
end pressureIncrement;
