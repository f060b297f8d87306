within VehicleRTM;
package Tires "Magic Formula tyres (PAC2002 / MF 5.2, MF 6.1 where the coefficients differ): combined slip, relaxation, vertical contact, rolling resistance"
  annotation (Documentation(info = "<html>
<p>Magic Formula tyres (PAC2002 / MF 5.2, MF 6.1 where the coefficients differ): combined slip, relaxation, vertical contact, rolling resistance.</p>
</html>"));
end Tires;
