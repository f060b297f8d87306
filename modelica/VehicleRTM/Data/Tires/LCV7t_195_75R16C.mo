within VehicleRTM.Data.Tires;
record LCV7t_195_75R16C "195/75 R16 C tyre (rear dual fitment) of a 7 t LCV, derived from the UAZ 225/75 R16 PAC2002 data"
  extends VehicleRTM.Data.Tires.UAZBUS_225_75R16(
    UNLOADED_RADIUS = 0.35,
    WIDTH = 0.195,
    ASPECT_RATIO = 0.75,
    RIM_RADIUS = 0.2032,
    RIM_WIDTH = 0.1397,
    VERTICAL_STIFFNESS = 334432,
    VERTICAL_DAMPING = 750,
    FNOMIN = 6000,
    FZMIN = 300,
    FZMAX = 13500);
  annotation (Documentation(info = "<html>
<p><b>Derived data, not a measured tyre.</b> A plausible 195/75 R16 C (load index 107/105, about
4.75 bar) tyre of a 7 t light commercial vehicle in rear dual fitment, made from
<a href=\"modelica://VehicleRTM.Data.Tires.UAZBUS_225_75R16\">UAZBUS_225_75R16</a> (Project Chrono,
BSD-3-Clause, Copyright (c) projectchrono.org) as follows:</p>
<ul>
<li>Geometry from the size designation: free radius 0.2032 m rim radius + 0.195*0.75 m sidewall
= 0.35 m, width 0.195 m, 5.5 inch rim.</li>
<li>Load capacity and vertical stiffness scaled by 1.5 (the C tyre carries more load at a higher
inflation pressure): FNOMIN 4000 to 6000 N, FZMIN 200 to 300 N, FZMAX 9000 to 13500 N,
VERTICAL_STIFFNESS 222955 to 334432 N/m (same nominal deflection FNOMIN/Cz), VERTICAL_DAMPING
500 to 750 N.s/m.</li>
<li>All Magic Formula shape coefficients, the scaling factors (LFZO = 1.449) and the relaxation
coefficients are the UAZ values. Since the slip and cornering stiffnesses and the friction are
written per unit nominal load, they scale with FNOMIN: the tyre is the UAZ tyre at 1.5 times the
load, with the same friction coefficients and the same slip at the force peaks.</li>
</ul>
<p>Replace it with a measured .tir of the real tyre when one is available
(<code>python -m pybridge.mbm.tir record FILE.tir NAME OUT.mo</code>).</p>
</html>"));
end LCV7t_195_75R16C;
