within VehicleRTM.Tables;
function segment "Index i of the grid segment [x[i], x[i+1]] that holds u (bisection, clamped to the end segments)"
  input Real x[:] "Strictly increasing breakpoints";
  input Real u "Abscissa";
  output Integer i "Segment index, 1 <= i <= size(x,1)-1";
protected
  Integer hi "Upper bracket index";
  Integer mid "Bisection index";
algorithm
  i := 1;
  hi := size(x, 1);
  // ceil(log2(n)) halvings always suffice; the bound keeps the loop a for-loop.
  for k in 1:integer(ceil(log(size(x, 1))/log(2))) loop
    if hi - i > 1 then
      mid := div(i + hi, 2);
      if u >= x[mid] then
        i := mid;
      else
        hi := mid;
      end if;
    end if;
  end for;
  annotation (Documentation(info = "<html>
<p>Returns the index of the segment of the breakpoint vector that contains <code>u</code>, found by
bisection in O(log n). Below the grid it returns 1, above it returns n-1, so the caller can
extrapolate with the end segments.</p>
</html>"));
end segment;
