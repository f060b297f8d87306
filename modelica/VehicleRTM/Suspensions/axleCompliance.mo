within VehicleRTM.Suspensions;
function axleCompliance "Superposed compliance displacements of an axle's two wheels (all rows of the maps), one search per load"
  input Real force[:] "Breakpoints for Fx and Fy [N]";
  input Real moment[:] "Breakpoints for Mz [N.m]";
  input Real txFxOwn[size(force, 1)] "tx against Fx on the own wheel";
  input Real txFxOpposite[size(force, 1)] "tx against Fx on the opposite wheel";
  input Real txFyOwn[size(force, 1)] "tx against Fy on the own wheel";
  input Real txFyOpposite[size(force, 1)] "tx against Fy on the opposite wheel";
  input Real txMzOwn[size(moment, 1)] "tx against Mz on the own wheel";
  input Real txMzOpposite[size(moment, 1)] "tx against Mz on the opposite wheel";
  input Real tyFxOwn[size(force, 1)] "ty against Fx on the own wheel";
  input Real tyFxOpposite[size(force, 1)] "ty against Fx on the opposite wheel";
  input Real tyFyOwn[size(force, 1)] "ty against Fy on the own wheel";
  input Real tyFyOpposite[size(force, 1)] "ty against Fy on the opposite wheel";
  input Real tyMzOwn[size(moment, 1)] "ty against Mz on the own wheel";
  input Real tyMzOpposite[size(moment, 1)] "ty against Mz on the opposite wheel";
  input Real toeFxOwn[size(force, 1)] "toe against Fx on the own wheel";
  input Real toeFxOpposite[size(force, 1)] "toe against Fx on the opposite wheel";
  input Real toeFyOwn[size(force, 1)] "toe against Fy on the own wheel";
  input Real toeFyOpposite[size(force, 1)] "toe against Fy on the opposite wheel";
  input Real toeMzOwn[size(moment, 1)] "toe against Mz on the own wheel";
  input Real toeMzOpposite[size(moment, 1)] "toe against Mz on the opposite wheel";
  input Real camberFxOwn[size(force, 1)] "camber against Fx on the own wheel";
  input Real camberFxOpposite[size(force, 1)] "camber against Fx on the opposite wheel";
  input Real camberFyOwn[size(force, 1)] "camber against Fy on the own wheel";
  input Real camberFyOpposite[size(force, 1)] "camber against Fy on the opposite wheel";
  input Real camberMzOwn[size(moment, 1)] "camber against Mz on the own wheel";
  input Real camberMzOpposite[size(moment, 1)] "camber against Mz on the opposite wheel";
  input Real wheelFx[2] "Longitudinal force at the wheel centre, left, right [N]";
  input Real wheelFy[2] "Lateral force at the wheel centre, left, right (ISO y) [N]";
  input Real wheelMz[2] "Aligning moment at the wheel, left, right [N.m]";
  output Units.Length tx[2] "Wheel-centre x displacement";
  output Units.Length ty[2] "Wheel-centre y displacement (left-wheel frame)";
  output Units.Angle toe[2] "Toe, rotation about z (left-wheel frame)";
  output Units.Angle camber[2] "Camber";
protected
  constant Real side[2] = {1, -1} "Mirror factor: left +1, right -1";
  Real own[3] "Fx, Fy, Mz on the own wheel, in the left wheel's frame";
  Real opposite[3] "Fx, Fy, Mz on the opposite wheel, in the left wheel's frame";
  Integer ownFx "Segment of own[1] on the force breakpoints";
  Integer ownFy "Segment of own[2] on the force breakpoints";
  Integer ownMz "Segment of own[3] on the moment breakpoints";
  Integer oppositeFx "Segment of opposite[1] on the force breakpoints";
  Integer oppositeFy "Segment of opposite[2] on the force breakpoints";
  Integer oppositeMz "Segment of opposite[3] on the moment breakpoints";
  Real duOwn[3] "own[k] less the start of its segment";
  Real dxOwn[3] "Width of own[k]'s segment";
  Real duOpposite[3] "opposite[k] less the start of its segment";
  Real dxOpposite[3] "Width of opposite[k]'s segment";
algorithm
  for w in 1:2 loop
    own := {wheelFx[w], side[w]*wheelFy[w], side[w]*wheelMz[w]};
    opposite := {wheelFx[3 - w], side[w]*wheelFy[3 - w], side[w]*wheelMz[3 - w]};
    ownFx := Tables.segment(force, own[1]);
    ownFy := Tables.segment(force, own[2]);
    ownMz := Tables.segment(moment, own[3]);
    oppositeFx := Tables.segment(force, opposite[1]);
    oppositeFy := Tables.segment(force, opposite[2]);
    oppositeMz := Tables.segment(moment, opposite[3]);
    duOwn := {own[1] - force[ownFx], own[2] - force[ownFy], own[3] - moment[ownMz]};
    dxOwn := {force[ownFx + 1] - force[ownFx], force[ownFy + 1] - force[ownFy], moment[ownMz + 1] - moment[ownMz]};
    duOpposite := {opposite[1] - force[oppositeFx], opposite[2] - force[oppositeFy], opposite[3] - moment[oppositeMz]};
    dxOpposite := {force[oppositeFx + 1] - force[oppositeFx], force[oppositeFy + 1] - force[oppositeFy],
      moment[oppositeMz + 1] - moment[oppositeMz]};
    tx[w] := Tables.interp1Offset(txFxOwn, ownFx, duOwn[1], dxOwn[1])
      + Tables.interp1Offset(txFyOwn, ownFy, duOwn[2], dxOwn[2])
      + Tables.interp1Offset(txMzOwn, ownMz, duOwn[3], dxOwn[3])
      + Tables.interp1Offset(txFxOpposite, oppositeFx, duOpposite[1], dxOpposite[1])
      + Tables.interp1Offset(txFyOpposite, oppositeFy, duOpposite[2], dxOpposite[2])
      + Tables.interp1Offset(txMzOpposite, oppositeMz, duOpposite[3], dxOpposite[3]);
    ty[w] := Tables.interp1Offset(tyFxOwn, ownFx, duOwn[1], dxOwn[1])
      + Tables.interp1Offset(tyFyOwn, ownFy, duOwn[2], dxOwn[2])
      + Tables.interp1Offset(tyMzOwn, ownMz, duOwn[3], dxOwn[3])
      + Tables.interp1Offset(tyFxOpposite, oppositeFx, duOpposite[1], dxOpposite[1])
      + Tables.interp1Offset(tyFyOpposite, oppositeFy, duOpposite[2], dxOpposite[2])
      + Tables.interp1Offset(tyMzOpposite, oppositeMz, duOpposite[3], dxOpposite[3]);
    toe[w] := Tables.interp1Offset(toeFxOwn, ownFx, duOwn[1], dxOwn[1])
      + Tables.interp1Offset(toeFyOwn, ownFy, duOwn[2], dxOwn[2])
      + Tables.interp1Offset(toeMzOwn, ownMz, duOwn[3], dxOwn[3])
      + Tables.interp1Offset(toeFxOpposite, oppositeFx, duOpposite[1], dxOpposite[1])
      + Tables.interp1Offset(toeFyOpposite, oppositeFy, duOpposite[2], dxOpposite[2])
      + Tables.interp1Offset(toeMzOpposite, oppositeMz, duOpposite[3], dxOpposite[3]);
    camber[w] := Tables.interp1Offset(camberFxOwn, ownFx, duOwn[1], dxOwn[1])
      + Tables.interp1Offset(camberFyOwn, ownFy, duOwn[2], dxOwn[2])
      + Tables.interp1Offset(camberMzOwn, ownMz, duOwn[3], dxOwn[3])
      + Tables.interp1Offset(camberFxOpposite, oppositeFx, duOpposite[1], dxOpposite[1])
      + Tables.interp1Offset(camberFyOpposite, oppositeFy, duOpposite[2], dxOpposite[2])
      + Tables.interp1Offset(camberMzOpposite, oppositeMz, duOpposite[3], dxOpposite[3]);
  end for;
  annotation (Documentation(info = "<html>
<p>Eq. 1 of the LCV paper for each wheel of the axle: each compliance output (x and y displacement of the wheel
centre, toe, camber) is the sum of six 1D maps, one per load (Fx, Fy, Mz on the own and on the
opposite wheel, seen in this wheel's mirrored left-wheel frame), linearly extrapolated beyond the measured range. The loads are located on their
breakpoints once, their offsets and segment widths computed once, and the 24 maps read in those segments
(<a href=\"modelica://VehicleRTM.Tables.interp1Offset\">interp1Offset</a>), with the arithmetic of
<a href=\"modelica://VehicleRTM.Tables.interp1\">interp1</a> (the same results to the last bit). The maps of
<a href=\"modelica://VehicleRTM.Suspensions.ComplianceMaps\">ComplianceMaps</a> are passed as arrays
rather than as the record, so every tool can flatten the call.</p>
</html>"));
end axleCompliance;
