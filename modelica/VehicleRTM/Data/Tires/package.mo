within VehicleRTM.Data;
package Tires "Magic Formula tyre records (.tir data) for VehicleRTM.Tires"
  annotation (Documentation(info = "<html>
<p>Records extending <a href=\"modelica://VehicleRTM.Tires.MFCoefficients\">VehicleRTM.Tires.MFCoefficients</a>:</p>
<ul>
<li><b>UAZBUS_225_75R16</b>: 225/75 R16 PAC2002 tyre of the Project Chrono UAZ bus, generated from
the .tir file by <code>pybridge/mbm/tir.py</code>.</li>
<li><b>LCV7t_225_75R16C</b>: 225/75 R16 C 118/116 tyre (single front, dual rear) of a 7 t light
commercial vehicle, derived from the UAZ tyre by the similarity method (load class x 1.439), generated
from <code>scenarios/tires/LCV7t_225_75R16C_Pac02Tire.tir</code>.</li>
</ul>
</html>"));
end Tires;
