within VehicleRTM.Powertrain;
function gearEntry "Entry k of a per-gear vector (k clamped to the vector), by a fixed-bound loop"
  input Real values[:] "Per-gear values";
  input Integer k "Gear index";
  output Real value "values[min(max(k, 1), size(values, 1))]";
algorithm
  value := values[1];
  for i in 2:size(values, 1) loop
    if k >= i then
      value := values[i];
    end if;
  end for;
  annotation (Documentation(info = "<html>
<p>Returns <code>values[k]</code>, with <code>k</code> clamped to <code>1..size(values, 1)</code>.
It is the same as a subscript by the gear number; the subscript is written as a loop because
rumoca 0.10.2 evaluates an array subscripted by <code>pre(gear)</code> inside an event condition
as NaN. The loop keeps the library standard Modelica and portable.</p>
</html>"));
end gearEntry;
