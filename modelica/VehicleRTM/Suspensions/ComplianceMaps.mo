within VehicleRTM.Suspensions;
record ComplianceMaps "1D compliance maps of one wheel: displacement per wheel-centre force, own and opposite wheel"
  parameter Units.Force force[:] "Breakpoints for Fx and Fy at the wheel centre";
  parameter Units.Torque moment[:] "Breakpoints for Mz at the wheel centre";
  parameter Units.Length txFxOwn[size(force, 1)] = zeros(size(force, 1))
    "Wheel-centre x displacement against Fx on the own wheel";
  parameter Units.Length txFxOpposite[size(force, 1)] = zeros(size(force, 1))
    "Wheel-centre x displacement against Fx on the opposite wheel";
  parameter Units.Length txFyOwn[size(force, 1)] = zeros(size(force, 1))
    "Wheel-centre x displacement against Fy on the own wheel";
  parameter Units.Length txFyOpposite[size(force, 1)] = zeros(size(force, 1))
    "Wheel-centre x displacement against Fy on the opposite wheel";
  parameter Units.Length txMzOwn[size(moment, 1)] = zeros(size(moment, 1))
    "Wheel-centre x displacement against Mz on the own wheel";
  parameter Units.Length txMzOpposite[size(moment, 1)] = zeros(size(moment, 1))
    "Wheel-centre x displacement against Mz on the opposite wheel";
  parameter Units.Length tyFxOwn[size(force, 1)] = zeros(size(force, 1))
    "Wheel-centre y displacement against Fx on the own wheel";
  parameter Units.Length tyFxOpposite[size(force, 1)] = zeros(size(force, 1))
    "Wheel-centre y displacement against Fx on the opposite wheel";
  parameter Units.Length tyFyOwn[size(force, 1)] = zeros(size(force, 1))
    "Wheel-centre y displacement against Fy on the own wheel";
  parameter Units.Length tyFyOpposite[size(force, 1)] = zeros(size(force, 1))
    "Wheel-centre y displacement against Fy on the opposite wheel";
  parameter Units.Length tyMzOwn[size(moment, 1)] = zeros(size(moment, 1))
    "Wheel-centre y displacement against Mz on the own wheel";
  parameter Units.Length tyMzOpposite[size(moment, 1)] = zeros(size(moment, 1))
    "Wheel-centre y displacement against Mz on the opposite wheel";
  parameter Units.Angle toeFxOwn[size(force, 1)] = zeros(size(force, 1))
    "Toe (rz) against Fx on the own wheel";
  parameter Units.Angle toeFxOpposite[size(force, 1)] = zeros(size(force, 1))
    "Toe (rz) against Fx on the opposite wheel";
  parameter Units.Angle toeFyOwn[size(force, 1)] = zeros(size(force, 1))
    "Toe (rz) against Fy on the own wheel";
  parameter Units.Angle toeFyOpposite[size(force, 1)] = zeros(size(force, 1))
    "Toe (rz) against Fy on the opposite wheel";
  parameter Units.Angle toeMzOwn[size(moment, 1)] = zeros(size(moment, 1))
    "Toe (rz) against Mz on the own wheel";
  parameter Units.Angle toeMzOpposite[size(moment, 1)] = zeros(size(moment, 1))
    "Toe (rz) against Mz on the opposite wheel";
  parameter Units.Angle camberFxOwn[size(force, 1)] = zeros(size(force, 1))
    "Camber against Fx on the own wheel";
  parameter Units.Angle camberFxOpposite[size(force, 1)] = zeros(size(force, 1))
    "Camber against Fx on the opposite wheel";
  parameter Units.Angle camberFyOwn[size(force, 1)] = zeros(size(force, 1))
    "Camber against Fy on the own wheel";
  parameter Units.Angle camberFyOpposite[size(force, 1)] = zeros(size(force, 1))
    "Camber against Fy on the opposite wheel";
  parameter Units.Angle camberMzOwn[size(moment, 1)] = zeros(size(moment, 1))
    "Camber against Mz on the own wheel";
  parameter Units.Angle camberMzOpposite[size(moment, 1)] = zeros(size(moment, 1))
    "Camber against Mz on the opposite wheel";
  annotation (Documentation(info = "<html>
<p>Compliance of the left wheel from the compliance tests of the multibody model: wheel-centre
displacements tx, ty [m] and rotations toe, camber [rad] against a force Fx, Fy or a moment Mz at
the wheel centre, applied on the own wheel and on the opposite wheel; named
<code>&lt;output&gt;&lt;input&gt;&lt;Own|Opposite&gt;</code>, e.g. <code>toeFyOwn</code>. They are superposed on
the kinematics (Eq. 1 of the LCV paper). The Mx and My maps are left out on purpose: the RTM applies
the tyre forces at the wheel centre, so they would count the same effect twice (as the paper says).
Forces are in wheel axes; the right wheel uses the mirror image (Fy, Mz, ty and toe change sign).</p>
</html>"));
end ComplianceMaps;
