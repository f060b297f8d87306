within VehicleRTM.Vehicles;
function solveSymmetric3 "Solution x of A*x = b for a symmetric positive definite 3x3 matrix A (Cramer's rule)"
  input Real A[3, 3] "Symmetric positive definite matrix (a mass matrix)";
  input Real b[3] "Right-hand side (generalized forces)";
  output Real x[3] "Solution (accelerations)";
protected
  Real c11 "Cofactor (1,1)";
  Real c12 "Cofactor (1,2)";
  Real c13 "Cofactor (1,3)";
  Real c22 "Cofactor (2,2)";
  Real c23 "Cofactor (2,3)";
  Real c33 "Cofactor (3,3)";
  Real det "Determinant of A";
algorithm
  c11 := A[2, 2]*A[3, 3] - A[2, 3]*A[2, 3];
  c12 := A[1, 3]*A[2, 3] - A[1, 2]*A[3, 3];
  c13 := A[1, 2]*A[2, 3] - A[1, 3]*A[2, 2];
  c22 := A[1, 1]*A[3, 3] - A[1, 3]*A[1, 3];
  c23 := A[1, 2]*A[1, 3] - A[1, 1]*A[2, 3];
  c33 := A[1, 1]*A[2, 2] - A[1, 2]*A[1, 2];
  det := A[1, 1]*c11 + A[1, 2]*c12 + A[1, 3]*c13;
  assert(det > 0, "solveSymmetric3: the matrix is not positive definite (check masses and inertias)");
  x := {c11*b[1] + c12*b[2] + c13*b[3], c12*b[1] + c22*b[2] + c23*b[3], c13*b[1] + c23*b[2] + c33*b[3]}/det;
  annotation (Documentation(info = "<html>
<p>Closed-form solution of a symmetric 3&times;3 linear system by the adjugate: the vehicle's
lateral-roll-yaw mass matrix times the accelerations equals the generalized forces. The upper
triangle of <code>A</code> is used.</p>
</html>"));
end solveSymmetric3;
