/* VehicleRTM.Tables in C (see tables.h). One function per Modelica function, same arguments. */
#include "tables.h"

double tables_interp1(const double *x, const double *y, int n, double u, int linearExtrapolation)
{
    Interp1Point p;
    interp1_locate(&p, x, n, u, linearExtrapolation);
    return interp1_at(&p, y);
}

double tables_interp1Slope(const double *x, const double *y, int n, double u, int linearExtrapolation)
{
    const int i = tables_segment(x, n, u);
    if (!linearExtrapolation && (u < x[0] || u > x[n - 1]))
        return 0;
    return (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
}

double tables_interp2(const double *x1, int n1, const double *x2, int n2, const double *y,
                      double u1, double u2, int linearExtrapolation)
{
    Interp2Cell c;
    interp2_locate(&c, x1, n1, x2, n2, u1, u2, linearExtrapolation);
    return interp2_at(&c, y);
}

double tables_interp2SlopeX(const double *x1, int n1, const double *x2, int n2, const double *y,
                            double u1, double u2, int linearExtrapolation)
{
    Interp2Cell c;
    interp2_locate(&c, x1, n1, x2, n2, u1, u2, linearExtrapolation);
    return interp2_slopeX_at(&c, y);
}

double tables_interp2SlopeY(const double *x1, int n1, const double *x2, int n2, const double *y,
                            double u1, double u2, int linearExtrapolation)
{
    Interp2Cell c;
    interp2_locate(&c, x1, n1, x2, n2, u1, u2, linearExtrapolation);
    return interp2_slopeY_at(&c, y);
}
