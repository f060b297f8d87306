within VehicleRTM.Suspensions;
record ComplianceMaps "1D compliance maps of one wheel: displacement per wheel-centre force, own and opposite wheel"
  parameter Units.Force force[:] = {-10000, 0, 10000} "Breakpoints for Fx and Fy at the wheel centre";
  parameter Units.Torque moment[:] = {-1000, 0, 1000} "Breakpoints for Mz at the wheel centre";
  parameter Real ownFx[4, size(force, 1)] = zeros(4, size(force, 1))
    "Rows tx [m], ty [m], toe [rad], camber [rad] against Fx on the own wheel";
  parameter Real ownFy[4, size(force, 1)] = zeros(4, size(force, 1))
    "Rows tx [m], ty [m], toe [rad], camber [rad] against Fy on the own wheel";
  parameter Real ownMz[4, size(moment, 1)] = zeros(4, size(moment, 1))
    "Rows tx [m], ty [m], toe [rad], camber [rad] against Mz on the own wheel";
  parameter Real oppositeFx[4, size(force, 1)] = zeros(4, size(force, 1))
    "Rows tx [m], ty [m], toe [rad], camber [rad] against Fx on the opposite wheel";
  parameter Real oppositeFy[4, size(force, 1)] = zeros(4, size(force, 1))
    "Rows tx [m], ty [m], toe [rad], camber [rad] against Fy on the opposite wheel";
  parameter Real oppositeMz[4, size(moment, 1)] = zeros(4, size(moment, 1))
    "Rows tx [m], ty [m], toe [rad], camber [rad] against Mz on the opposite wheel";
  annotation (Documentation(info = "<html>
<p>Compliance of the left wheel from the compliance tests of the multibody model: wheel-centre
displacements and rotations (rows tx, ty, toe, camber; units m, m, rad, rad) against a force
Fx, Fy or a moment Mz at the wheel centre, applied on the own wheel and on the opposite wheel.
They are superposed on the kinematics (Eq. 1 of the LCV paper). The Mx and My maps are left out
on purpose: the RTM applies the tyre forces at the wheel centre, so they would count the same
effect twice (as the paper says). Forces are in wheel axes; the right wheel uses the mirror image
(Fy, Mz, ty and toe change sign).</p>
</html>"));
end ComplianceMaps;
