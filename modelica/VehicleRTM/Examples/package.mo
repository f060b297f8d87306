within VehicleRTM;
package Examples "One simulation harness per manoeuvre family, inputs defined inside the model, with experiment annotations"
  annotation (Documentation(info = "<html>
<p>One simulation harness per manoeuvre family, inputs defined inside the model, with experiment annotations.</p>
</html>"));
end Examples;
