within VehicleRTM.Suspensions;
function complianceDisplacement "Superposed compliance displacement of one output of the left wheel (one row of the compliance maps)"
  input Real force[:] "Breakpoints for Fx and Fy [N]";
  input Real moment[:] "Breakpoints for Mz [N.m]";
  input Real ownFx[size(force, 1)] "Output against Fx on the own wheel";
  input Real ownFy[size(force, 1)] "Output against Fy on the own wheel";
  input Real ownMz[size(moment, 1)] "Output against Mz on the own wheel";
  input Real oppositeFx[size(force, 1)] "Output against Fx on the opposite wheel";
  input Real oppositeFy[size(force, 1)] "Output against Fy on the opposite wheel";
  input Real oppositeMz[size(moment, 1)] "Output against Mz on the opposite wheel";
  input Real own[3] "Fx [N], Fy [N], Mz [N.m] on the own wheel, in the left wheel's frame";
  input Real opposite[3] "Fx [N], Fy [N], Mz [N.m] on the opposite wheel, in the left wheel's frame";
  output Real delta "Displacement [m] or rotation [rad]";
algorithm
  delta := Tables.interp1(force, ownFx, own[1], true) + Tables.interp1(force, ownFy, own[2], true)
         + Tables.interp1(moment, ownMz, own[3], true) + Tables.interp1(force, oppositeFx, opposite[1], true)
         + Tables.interp1(force, oppositeFy, opposite[2], true) + Tables.interp1(moment, oppositeMz, opposite[3], true);
  annotation (Documentation(info = "<html>
<p>Sum of the compliance contributions of the own-wheel and opposite-wheel forces to one output
(Eq. 1 of the LCV paper: compliance superposed on kinematics). The maps are extrapolated linearly.
The rows are passed as arrays rather than as the record, so every tool can flatten the call.</p>
</html>"));
end complianceDisplacement;
