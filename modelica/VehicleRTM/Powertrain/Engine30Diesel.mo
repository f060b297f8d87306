within VehicleRTM.Powertrain;
record Engine30Diesel "3.0 L turbo-diesel, 130 kW at 3250 rpm, 400 N.m from 1500 to 3000 rpm (3.5 t van)"
  extends EngineData(
    speed = {800, 1000, 1250, 1500, 2000, 2500, 3000, 3250, 3500, 3750, 4000, 4250}*(3.14159265358979/30),
    throttle = {0, 0.25, 0.5, 0.75, 1},
    torque = {{0, 45, 90, 135, 180},
              {-20, 50, 120, 190, 260},
              {-25, 73.75, 172.5, 271.25, 370},
              {-28, 79, 186, 293, 400},
              {-33, 75.25, 183.5, 291.75, 400},
              {-38, 71.5, 181, 290.5, 400},
              {-44, 67, 178, 289, 400},
              {-47, 60.25, 167.5, 274.75, 382},
              {-50, 45, 140, 235, 330},
              {-54, 9.5, 73, 136.5, 200},
              {-58, -43.5, -29, -14.5, 0},
              {-62, -62, -62, -62, -62}},
    idleSpeed = 800*(3.14159265358979/30),
    inertia = 0.45);
  annotation (Documentation(info = "<html>
<p>Engine map of a 3.0 L four-cylinder common-rail turbo-diesel as fitted to 3.5 t light commercial
vehicles (rear-wheel drive vans of the Iveco Daily class). Values are <b>plausible from public
specifications</b> of this engine class (rated power about 130 kW, maximum torque about 400 N.m);
they are not measured data of any specific engine.</p>
<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">
<tr><th>rpm</th><th>800</th><th>1000</th><th>1250</th><th>1500-3000</th><th>3250</th><th>3500</th><th>3750</th><th>4000</th><th>4250</th></tr>
<tr><td>full load [N.m]</td><td>180</td><td>260</td><td>370</td><td>400</td><td>382 (130 kW)</td><td>330</td><td>200</td><td>0</td><td>-62</td></tr>
<tr><td>motoring [N.m]</td><td>0</td><td>-20</td><td>-25</td><td>-28 .. -44</td><td>-47</td><td>-50</td><td>-54</td><td>-58</td><td>-62</td></tr>
</table>
<p>Part load: the throttle is read as a torque demand, linear between the motoring and the
full-load torque (columns at throttle 0, 0.25, 0.5, 0.75, 1). Motoring torque corresponds to a
friction mean effective pressure of 1-2.6 bar. Idle 800 rpm; governed speed 3750-4000 rpm;
inertia of crankshaft, dual-mass flywheel and clutch 0.45 kg.m2.</p>
</html>"));
end Engine30Diesel;
