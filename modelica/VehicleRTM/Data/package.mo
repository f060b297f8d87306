within VehicleRTM;
package Data "Example parameter records: 3.5 t and 7 t LCVs, the SUV corners of the SLEKQ paper, tyres"
  annotation (Documentation(info = "<html>
<p>Example parameter records: 3.5 t and 7 t LCVs, the SUV corners of the SLEKQ paper, tyres.</p>
</html>"));
end Data;
