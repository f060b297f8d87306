within VehicleRTM.Tires;
record MFCoefficients "Magic Formula coefficients of a PAC2002 / MF 5.2 (or MF 6.1) .tir file, names as the .tir keys"
  parameter Integer mfVersion(min = 52, max = 61) = 52 "Magic Formula version: 52 = PAC2002/MF 5.2, 61 = MF 6.1";
  // [MODEL]
  parameter Real LONGVL(unit = "m/s") = 16.7 "Reference (measurement) speed V0";
  parameter Real VXLOW(unit = "m/s") = 1 "Low-speed threshold: the rolling resistance moment fades to zero below it";
  // [DIMENSION]
  parameter Real UNLOADED_RADIUS(unit = "m") = 0.3 "Free tyre radius R0";
  parameter Real WIDTH(unit = "m") = 0.205 "Nominal section width [stored, not used]";
  parameter Real ASPECT_RATIO(unit = "1") = 0.6 "Nominal aspect ratio [stored, not used]";
  parameter Real RIM_RADIUS(unit = "m") = 0.19 "Nominal rim radius [stored, not used]";
  parameter Real RIM_WIDTH(unit = "m") = 0.15 "Rim width [stored, not used]";
  // [OPERATING_CONDITIONS]
  parameter Real INFLPRES(unit = "Pa") = 0 "Inflation pressure (0 disables the pressure terms) [MF 6.1 only]";
  parameter Real NOMPRES(unit = "Pa") = 0 "Nominal inflation pressure (0 disables the pressure terms) [MF 6.1 only]";
  // [VERTICAL]
  parameter Real VERTICAL_STIFFNESS(unit = "N/m") = 200000 "Vertical stiffness Cz";
  parameter Real VERTICAL_DAMPING(unit = "N.s/m") = 500 "Vertical damping";
  parameter Real BREFF(unit = "1") = 8.4 "Effective rolling radius: low-load stiffness factor";
  parameter Real DREFF(unit = "1") = 0.27 "Effective rolling radius: peak value";
  parameter Real FREFF(unit = "1") = 0.07 "Effective rolling radius: high-load stiffness factor";
  parameter Real FNOMIN(unit = "N") = 4000 "Nominal wheel load Fz0";
  // [STRUCTURAL]
  parameter Real LONGITUDINAL_STIFFNESS(unit = "N/m") = 0 "Longitudinal carcass stiffness (0: relaxation length from PTX) [MF 6.1 only]";
  parameter Real LATERAL_STIFFNESS(unit = "N/m") = 0 "Lateral carcass stiffness (0: relaxation length from PTY) [MF 6.1 only]";
  parameter Real PCFX1(unit = "1") = 0 "Variation of longitudinal carcass stiffness with load [MF 6.1 only]";
  parameter Real PCFX2(unit = "1") = 0 "Variation of longitudinal carcass stiffness with load squared [MF 6.1 only]";
  parameter Real PCFX3(unit = "1") = 0 "Variation of longitudinal carcass stiffness with pressure [MF 6.1 only]";
  parameter Real PCFY1(unit = "1") = 0 "Variation of lateral carcass stiffness with load [MF 6.1 only]";
  parameter Real PCFY2(unit = "1") = 0 "Variation of lateral carcass stiffness with load squared [MF 6.1 only]";
  parameter Real PCFY3(unit = "1") = 0 "Variation of lateral carcass stiffness with pressure [MF 6.1 only]";
  // [LONG_SLIP_RANGE]
  parameter Real KPUMIN(unit = "1") = -1.5 "Minimum valid longitudinal slip";
  parameter Real KPUMAX(unit = "1") = 1.5 "Maximum valid longitudinal slip";
  // [SLIP_ANGLE_RANGE]
  parameter Real ALPMIN(unit = "rad") = -1.5708 "Minimum valid slip angle";
  parameter Real ALPMAX(unit = "rad") = 1.5708 "Maximum valid slip angle";
  // [INCLINATION_ANGLE_RANGE]
  parameter Real CAMMIN(unit = "rad") = -0.2618 "Minimum valid inclination angle";
  parameter Real CAMMAX(unit = "rad") = 0.2618 "Maximum valid inclination angle";
  // [VERTICAL_FORCE_RANGE]
  parameter Real FZMIN(unit = "N") = 100 "Minimum allowed wheel load (informative: lower loads are evaluated as they are) [stored, not used]";
  parameter Real FZMAX(unit = "N") = 20000 "Maximum allowed wheel load (the Magic Formula load is clamped to it)";
  // [SCALING_COEFFICIENTS]
  parameter Real LFZO(unit = "1") = 1 "Scale factor of nominal (rated) load";
  parameter Real LCX(unit = "1") = 1 "Scale factor of Fx shape factor";
  parameter Real LMUX(unit = "1") = 1 "Scale factor of Fx peak friction coefficient";
  parameter Real LEX(unit = "1") = 1 "Scale factor of Fx curvature factor";
  parameter Real LKX(unit = "1") = 1 "Scale factor of Fx slip stiffness";
  parameter Real LHX(unit = "1") = 1 "Scale factor of Fx horizontal shift";
  parameter Real LVX(unit = "1") = 1 "Scale factor of Fx vertical shift";
  parameter Real LGAX(unit = "1") = 1 "Scale factor of inclination for Fx [MF 5.2 only]";
  parameter Real LCY(unit = "1") = 1 "Scale factor of Fy shape factor";
  parameter Real LMUY(unit = "1") = 1 "Scale factor of Fy peak friction coefficient";
  parameter Real LEY(unit = "1") = 1 "Scale factor of Fy curvature factor";
  parameter Real LKY(unit = "1") = 1 "Scale factor of Fy cornering stiffness";
  parameter Real LHY(unit = "1") = 1 "Scale factor of Fy horizontal shift";
  parameter Real LVY(unit = "1") = 1 "Scale factor of Fy vertical shift";
  parameter Real LGAY(unit = "1") = 1 "Scale factor of inclination for Fy [MF 5.2 only]";
  parameter Real LTR(unit = "1") = 1 "Scale factor of peak of pneumatic trail";
  parameter Real LRES(unit = "1") = 1 "Scale factor of offset of residual torque";
  parameter Real LGAZ(unit = "1") = 1 "Scale factor of inclination for Mz [MF 5.2 only]";
  parameter Real LXAL(unit = "1") = 1 "Scale factor of alpha influence on Fx";
  parameter Real LYKA(unit = "1") = 1 "Scale factor of kappa influence on Fy";
  parameter Real LVYKA(unit = "1") = 1 "Scale factor of kappa induced Fy";
  parameter Real LS(unit = "1") = 1 "Scale factor of moment arm of Fx";
  parameter Real LSGKP(unit = "1") = 1 "Scale factor of relaxation length of Fx";
  parameter Real LSGAL(unit = "1") = 1 "Scale factor of relaxation length of Fy";
  parameter Real LGYR(unit = "1") = 1 "Scale factor of gyroscopic torque [stored, not used]";
  parameter Real LMX(unit = "1") = 1 "Scale factor of overturning couple";
  parameter Real LVMX(unit = "1") = 1 "Scale factor of Mx vertical shift";
  parameter Real LMY(unit = "1") = 1 "Scale factor of rolling resistance torque";
  parameter Real LCZ(unit = "1") = 1 "Scale factor of vertical stiffness";
  parameter Real LKYC(unit = "1") = 1 "Scale factor of camber force stiffness [MF 6.1 only]";
  parameter Real LKZC(unit = "1") = 1 "Scale factor of camber torque stiffness [MF 6.1 only]";
  // [LONGITUDINAL_COEFFICIENTS]
  parameter Real PCX1(unit = "1") = 1.65 "Shape factor Cfx for longitudinal force";
  parameter Real PDX1(unit = "1") = 1 "Longitudinal friction Mux at Fznom";
  parameter Real PDX2(unit = "1") = 0 "Variation of friction Mux with load";
  parameter Real PDX3(unit = "1") = 0 "Variation of friction Mux with inclination squared";
  parameter Real PEX1(unit = "1") = 0 "Longitudinal curvature Efx at Fznom";
  parameter Real PEX2(unit = "1") = 0 "Variation of curvature Efx with load";
  parameter Real PEX3(unit = "1") = 0 "Variation of curvature Efx with load squared";
  parameter Real PEX4(unit = "1") = 0 "Factor in curvature Efx while driving";
  parameter Real PKX1(unit = "1") = 20 "Longitudinal slip stiffness Kfx/Fz at Fznom";
  parameter Real PKX2(unit = "1") = 0 "Variation of slip stiffness Kfx/Fz with load";
  parameter Real PKX3(unit = "1") = 0 "Exponent in slip stiffness Kfx/Fz with load";
  parameter Real PHX1(unit = "1") = 0 "Horizontal shift Shx at Fznom";
  parameter Real PHX2(unit = "1") = 0 "Variation of shift Shx with load";
  parameter Real PVX1(unit = "1") = 0 "Vertical shift Svx/Fz at Fznom";
  parameter Real PVX2(unit = "1") = 0 "Variation of shift Svx/Fz with load";
  parameter Real PPX1(unit = "1") = 0 "Variation of slip stiffness Kfx/Fz with pressure [MF 6.1 only]";
  parameter Real PPX2(unit = "1") = 0 "Variation of slip stiffness Kfx/Fz with pressure squared [MF 6.1 only]";
  parameter Real PPX3(unit = "1") = 0 "Variation of friction Mux with pressure [MF 6.1 only]";
  parameter Real PPX4(unit = "1") = 0 "Variation of friction Mux with pressure squared [MF 6.1 only]";
  parameter Real RBX1(unit = "1") = 10 "Slope factor for combined slip Fx reduction";
  parameter Real RBX2(unit = "1") = 0 "Variation of slope Fx reduction with kappa";
  parameter Real RBX3(unit = "1") = 0 "Influence of inclination on slope of Fx reduction [MF 6.1 only]";
  parameter Real RCX1(unit = "1") = 1 "Shape factor for combined slip Fx reduction";
  parameter Real REX1(unit = "1") = 0 "Curvature factor of combined Fx";
  parameter Real REX2(unit = "1") = 0 "Curvature factor of combined Fx with load";
  parameter Real RHX1(unit = "rad") = 0 "Shift factor for combined slip Fx reduction";
  parameter Real PTX1(unit = "1") = 2 "Relaxation length SigKap0/Fz at Fznom";
  parameter Real PTX2(unit = "1") = 0 "Variation of SigKap0/Fz with load";
  parameter Real PTX3(unit = "1") = 0 "Variation of SigKap0/Fz with exponent of load";
  // [OVERTURNING_COEFFICIENTS]
  parameter Real QSX1(unit = "1") = 0 "Lateral force induced overturning moment";
  parameter Real QSX2(unit = "1") = 0 "Inclination induced overturning couple";
  parameter Real QSX3(unit = "1") = 0 "Fy induced overturning couple";
  // [LATERAL_COEFFICIENTS]
  parameter Real PCY1(unit = "1") = 1.3 "Shape factor Cfy for lateral forces";
  parameter Real PDY1(unit = "1") = 1 "Lateral friction Muy";
  parameter Real PDY2(unit = "1") = 0 "Variation of friction Muy with load";
  parameter Real PDY3(unit = "1") = 0 "Variation of friction Muy with squared inclination";
  parameter Real PEY1(unit = "1") = 0 "Lateral curvature Efy at Fznom";
  parameter Real PEY2(unit = "1") = 0 "Variation of curvature Efy with load";
  parameter Real PEY3(unit = "1") = 0 "Zero order inclination dependency of curvature Efy";
  parameter Real PEY4(unit = "1") = 0 "Variation of curvature Efy with inclination";
  parameter Real PEY5(unit = "1") = 0 "Variation of curvature Efy with inclination squared [MF 6.1 only]";
  parameter Real PKY1(unit = "1") = -20 "Maximum value of stiffness Kfy/Fznom";
  parameter Real PKY2(unit = "1") = 2 "Load at which Kfy reaches maximum value";
  parameter Real PKY3(unit = "1") = 0 "Variation of Kfy/Fznom with inclination";
  parameter Real PKY4(unit = "1") = 2 "Curvature of stiffness Kfy [MF 6.1 only]";
  parameter Real PKY5(unit = "1") = 0 "Peak stiffness variation with inclination squared [MF 6.1 only]";
  parameter Real PKY6(unit = "1") = 0 "Fy inclination stiffness factor [MF 6.1 only]";
  parameter Real PKY7(unit = "1") = 0 "Variation of Fy inclination stiffness with load [MF 6.1 only]";
  parameter Real PHY1(unit = "rad") = 0 "Horizontal shift Shy at Fznom";
  parameter Real PHY2(unit = "rad") = 0 "Variation of shift Shy with load";
  parameter Real PHY3(unit = "1") = 0 "Variation of shift Shy with inclination [MF 5.2 only]";
  parameter Real PVY1(unit = "1") = 0 "Vertical shift in Svy/Fz at Fznom";
  parameter Real PVY2(unit = "1") = 0 "Variation of shift Svy/Fz with load";
  parameter Real PVY3(unit = "1") = 0 "Variation of shift Svy/Fz with inclination";
  parameter Real PVY4(unit = "1") = 0 "Variation of shift Svy/Fz with inclination and load";
  parameter Real PPY1(unit = "1") = 0 "Pressure effect on cornering stiffness magnitude [MF 6.1 only]";
  parameter Real PPY2(unit = "1") = 0 "Pressure effect on location of cornering stiffness peak [MF 6.1 only]";
  parameter Real PPY3(unit = "1") = 0 "Linear pressure effect on lateral friction [MF 6.1 only]";
  parameter Real PPY4(unit = "1") = 0 "Quadratic pressure effect on lateral friction [MF 6.1 only]";
  parameter Real PPY5(unit = "1") = 0 "Influence of pressure on inclination stiffness [MF 6.1 only]";
  parameter Real RBY1(unit = "1") = 10 "Slope factor for combined Fy reduction";
  parameter Real RBY2(unit = "1") = 0 "Variation of slope Fy reduction with alpha";
  parameter Real RBY3(unit = "rad") = 0 "Shift term for alpha in slope Fy reduction";
  parameter Real RBY4(unit = "1") = 0 "Influence of inclination on slope of Fy reduction [MF 6.1 only]";
  parameter Real RCY1(unit = "1") = 1 "Shape factor for combined Fy reduction";
  parameter Real REY1(unit = "1") = 0 "Curvature factor of combined Fy";
  parameter Real REY2(unit = "1") = 0 "Curvature factor of combined Fy with load";
  parameter Real RHY1(unit = "1") = 0 "Shift factor for combined Fy reduction";
  parameter Real RHY2(unit = "1") = 0 "Shift factor for combined Fy reduction with load";
  parameter Real RVY1(unit = "1") = 0 "Kappa induced side force Svyk/Muy*Fz at Fznom";
  parameter Real RVY2(unit = "1") = 0 "Variation of Svyk/Muy*Fz with load";
  parameter Real RVY3(unit = "1") = 0 "Variation of Svyk/Muy*Fz with inclination";
  parameter Real RVY4(unit = "1") = 0 "Variation of Svyk/Muy*Fz with alpha";
  parameter Real RVY5(unit = "1") = 0 "Variation of Svyk/Muy*Fz with kappa";
  parameter Real RVY6(unit = "1") = 0 "Variation of Svyk/Muy*Fz with atan(kappa)";
  parameter Real PTY1(unit = "1") = 2 "Peak value of relaxation length SigAlp0/R0";
  parameter Real PTY2(unit = "1") = 2 "Value of Fz/Fznom where SigAlp0 is extreme";
  // [ROLLING_COEFFICIENTS]
  parameter Real QSY1(unit = "1") = 0.01 "Rolling resistance torque coefficient";
  parameter Real QSY2(unit = "1") = 0 "Rolling resistance torque depending on Fx";
  parameter Real QSY3(unit = "1") = 0 "Rolling resistance torque depending on speed";
  parameter Real QSY4(unit = "1") = 0 "Rolling resistance torque depending on speed to the 4th power";
  parameter Real QSY5(unit = "1") = 0 "Rolling resistance torque depending on inclination squared [MF 6.1 only]";
  parameter Real QSY6(unit = "1") = 0 "Rolling resistance torque depending on load and inclination squared [MF 6.1 only]";
  parameter Real QSY7(unit = "1") = 1 "Rolling resistance torque coefficient load dependency (exponent) [MF 6.1 only]";
  parameter Real QSY8(unit = "1") = 0 "Rolling resistance torque coefficient pressure dependency (exponent) [MF 6.1 only]";
  // [ALIGNING_COEFFICIENTS]
  parameter Real QBZ1(unit = "1") = 10 "Trail slope factor for trail Bpt at Fznom";
  parameter Real QBZ2(unit = "1") = 0 "Variation of slope Bpt with load";
  parameter Real QBZ3(unit = "1") = 0 "Variation of slope Bpt with load squared";
  parameter Real QBZ4(unit = "1") = 0 "Variation of slope Bpt with inclination";
  parameter Real QBZ5(unit = "1") = 0 "Variation of slope Bpt with absolute inclination";
  parameter Real QBZ9(unit = "1") = 0 "Slope factor Br of residual torque Mzr";
  parameter Real QBZ10(unit = "1") = 0 "Slope factor Br of residual torque Mzr (times By*Cy)";
  parameter Real QCZ1(unit = "1") = 1.1 "Shape factor Cpt for pneumatic trail";
  parameter Real QDZ1(unit = "1") = 0.1 "Peak trail Dpt = Dpt*(Fz/Fznom*R0)";
  parameter Real QDZ2(unit = "1") = 0 "Variation of peak Dpt with load";
  parameter Real QDZ3(unit = "1") = 0 "Variation of peak Dpt with inclination";
  parameter Real QDZ4(unit = "1") = 0 "Variation of peak Dpt with inclination squared";
  parameter Real QDZ6(unit = "1") = 0 "Peak residual torque Dmr = Dmr/(Fz*R0)";
  parameter Real QDZ7(unit = "1") = 0 "Variation of peak factor Dmr with load";
  parameter Real QDZ8(unit = "1") = 0 "Variation of peak factor Dmr with inclination";
  parameter Real QDZ9(unit = "1") = 0 "Variation of peak factor Dmr with inclination and load";
  parameter Real QDZ10(unit = "1") = 0 "Variation of peak factor Dmr with inclination squared [MF 6.1 only]";
  parameter Real QDZ11(unit = "1") = 0 "Variation of peak factor Dmr with inclination squared and load [MF 6.1 only]";
  parameter Real QEZ1(unit = "1") = 0 "Trail curvature Ept at Fznom";
  parameter Real QEZ2(unit = "1") = 0 "Variation of curvature Ept with load";
  parameter Real QEZ3(unit = "1") = 0 "Variation of curvature Ept with load squared";
  parameter Real QEZ4(unit = "1") = 0 "Variation of curvature Ept with sign of Alpha-t";
  parameter Real QEZ5(unit = "1") = 0 "Variation of Ept with inclination and sign Alpha-t";
  parameter Real QHZ1(unit = "rad") = 0 "Trail horizontal shift Sht at Fznom";
  parameter Real QHZ2(unit = "rad") = 0 "Variation of shift Sht with load";
  parameter Real QHZ3(unit = "1") = 0 "Variation of shift Sht with inclination";
  parameter Real QHZ4(unit = "1") = 0 "Variation of shift Sht with inclination and load";
  parameter Real SSZ1(unit = "1") = 0 "Nominal value of s/R0: effect of Fx on Mz";
  parameter Real SSZ2(unit = "1") = 0 "Variation of distance s/R0 with Fy/Fznom";
  parameter Real SSZ3(unit = "1") = 0 "Variation of distance s/R0 with inclination";
  parameter Real SSZ4(unit = "1") = 0 "Variation of distance s/R0 with load and inclination";
  parameter Real PPZ1(unit = "1") = 0 "Linear pressure effect on pneumatic trail [MF 6.1 only]";
  parameter Real PPZ2(unit = "1") = 0 "Influence of pressure on residual aligning torque [MF 6.1 only]";
  parameter Real QTZ1(unit = "1") = 0 "Gyroscopic torque constant [stored, not used]";
  parameter Real MBELT(unit = "kg") = 0 "Belt mass of the wheel [stored, not used]";
  annotation (Documentation(info = "<html>
<p>All coefficients of a TeimOrbit tyre property file (.tir) of the PAC2002 / MF 5.2 Magic Formula,
plus the MF 6.1 coefficients where MF 6.1 differs. The parameter names are exactly the .tir keys;
units are SI, as the .tir reader (<code>pybridge/mbm/tir.py</code>) requires.</p>
<p><code>mfVersion</code> selects the equations: <b>52</b> = PAC2002 / MF 5.2 (the LGAX, LGAY, LGAZ
inclination scaling and PHY3 are used, the MF 6.1 coefficients are ignored), <b>61</b> = MF 6.1
(inclination enters as sin(gamma), slip angle as tan(alpha), the cornering stiffness has PKY4 and
PKY5, the camber stiffness PKY6 and PKY7 replaces PHY3, and the inflation pressure terms PPX*, PPY*,
PPZ*, QSY8, PCF* are active when both INFLPRES and NOMPRES are positive; pressure 0 disables them).
The equations are listed in
<a href=\"modelica://VehicleRTM.Tires.combinedSlip\">combinedSlip</a>.</p>
<p>Descriptions marked [stored, not used] are kept so that a record holds the whole file but do
not enter the equations (section geometry, FZMIN, gyroscopic torque QTZ1/LGYR/MBELT).
Defaults are a generic tyre: shifts 0, scaling factors 1; a data record sets every value of its
file (see <code>VehicleRTM.Data.Tires</code>).</p>
<p>This file is generated by <code>python -m pybridge.mbm.tir coefficients</code> from the
parameter list <code>MF_PARAMETERS</code>; edit that list, not this file.</p>
</html>"));
end MFCoefficients;
