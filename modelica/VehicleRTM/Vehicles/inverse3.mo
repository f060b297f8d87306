within VehicleRTM.Vehicles;
function inverse3 "Inverse of a non-singular 3x3 matrix (adjugate over determinant)"
  input Real A[3, 3] "Matrix";
  output Real B[3, 3] "Its inverse";
protected
  Real det "Determinant of A";
algorithm
  det := A[1, 1]*(A[2, 2]*A[3, 3] - A[2, 3]*A[3, 2]) - A[1, 2]*(A[2, 1]*A[3, 3] - A[2, 3]*A[3, 1])
    + A[1, 3]*(A[2, 1]*A[3, 2] - A[2, 2]*A[3, 1]);
  assert(abs(det) > 1e-300, "inverse3: singular matrix (a mass matrix must be positive definite)");
  B := {{A[2, 2]*A[3, 3] - A[2, 3]*A[3, 2], A[1, 3]*A[3, 2] - A[1, 2]*A[3, 3], A[1, 2]*A[2, 3] - A[1, 3]*A[2, 2]},
        {A[2, 3]*A[3, 1] - A[2, 1]*A[3, 3], A[1, 1]*A[3, 3] - A[1, 3]*A[3, 1], A[1, 3]*A[2, 1] - A[1, 1]*A[2, 3]},
        {A[2, 1]*A[3, 2] - A[2, 2]*A[3, 1], A[1, 2]*A[3, 1] - A[1, 1]*A[3, 2], A[1, 1]*A[2, 2] - A[1, 2]*A[2, 1]}}/det;
  annotation (Documentation(info = "<html>
<p>Closed-form inverse of a 3&times;3 matrix, used for the vehicle's lateral-roll-yaw mass matrix,
which depends on parameters only (evaluated once at initialization).</p>
</html>"));
end inverse3;
