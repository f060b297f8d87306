within VehicleRTM.Powertrain;
record Engine30DieselHD "3.0 L turbo-diesel, heavy-duty rating 150 kW / 470 N.m (7 t truck)"
  extends EngineData(
    speed = {800, 1000, 1250, 1500, 2000, 2500, 3000, 3250, 3500, 3750, 4000, 4250}*(3.14159265358979/30),
    throttle = {0, 0.25, 0.5, 0.75, 1},
    torque = {{0, 52.5, 105, 157.5, 210},
              {-22, 58.5, 139, 219.5, 300},
              {-28, 86.5, 201, 315.5, 430},
              {-31, 94.25, 219.5, 344.75, 470},
              {-36, 90.5, 217, 343.5, 470},
              {-42, 86, 214, 342, 470},
              {-48, 81.5, 211, 340.5, 470},
              {-51, 72, 195, 318, 441},
              {-55, 53.75, 162.5, 271.25, 380},
              {-59, 13.25, 85.5, 157.75, 230},
              {-63, -47.25, -31.5, -15.75, 0},
              {-68, -68, -68, -68, -68}},
    idleSpeed = 800*(3.14159265358979/30),
    inertia = 0.55);
  annotation (Documentation(info = "<html>
<p>Engine map of the heavy-duty rating of the 3.0 L turbo-diesel, as fitted to 7 t light trucks.
Values are <b>plausible from public specifications</b> of this engine class (rated power about
150 kW, maximum torque about 470 N.m); they are not measured data of any specific engine.</p>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>rpm</th><th>800</th><th>1000</th><th>1250</th><th>1500-3000</th><th>3250</th><th>3500</th><th>3750</th><th>4000</th><th>4250</th></tr>
<tr><td>full load [N.m]</td><td>210</td><td>300</td><td>430</td><td>470</td><td>441 (150 kW)</td><td>380</td><td>230</td><td>0</td><td>-68</td></tr>
<tr><td>motoring [N.m]</td><td>0</td><td>-22</td><td>-28</td><td>-31 .. -48</td><td>-51</td><td>-55</td><td>-59</td><td>-63</td><td>-68</td></tr>
</table>
<p>Part load linear in throttle between the motoring and the full-load torque, as in
<a href=\"modelica://VehicleRTM.Powertrain.Engine30Diesel\">Engine30Diesel</a>. Idle 800 rpm;
inertia 0.55 kg.m2 (heavier flywheel).</p>
</html>"));
end Engine30DieselHD;
