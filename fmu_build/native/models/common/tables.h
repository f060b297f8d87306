/* VehicleRTM.Tables in C: linear interpolation on fixed grids, clamped or linearly extrapolated.
 *
 * Every function returns bit for bit what the Modelica function of the same name computes (same
 * segment search, same formula, same order of operations). Indices are 0-based here; tables of
 * two arguments are row-major, y[i*n2 + j] = y[i+1, j+1] of Modelica.
 *
 * The *_locate / *_at helpers split a lookup into "find the cell" and "read a table in that
 * cell", so that several tables on the same grid at the same point (the kinematic maps of one
 * wheel, the compliance maps of one load) share one search. They give the same numbers as the
 * one-shot functions: the same expressions are evaluated in the same order.
 */
#ifndef VEHICLERTM_TABLES_H
#define VEHICLERTM_TABLES_H

/* Tables.segment: index i (0-based) of the segment [x[i], x[i+1]] holding u, 0 <= i <= n-2.
 * The Modelica function bisects; for a strictly increasing grid its result is the largest
 * i <= n-2 with x[i] <= u, or 0 when there is none (u below x[1], or NaN). That same index is
 * found here from a guess on an equidistant grid, corrected by walking to the neighbours (one
 * division and a few comparisons instead of log2(n) unpredictable branches). */
static inline int tables_segment(const double *x, int n, double u)
{
    if (!(u >= x[1]))
        return 0;
    if (u >= x[n - 2])
        return n - 2;
    /* here n >= 4 and x[1] <= u < x[n-2]: the answer lies in 1..n-3, and both walks stop inside it */
    const double guess = (u - x[0]) / (x[n - 1] - x[0]) * (double)(n - 1);
    int i = guess >= 1 ? (guess <= n - 3 ? (int)guess : n - 3) : 1;   /* NaN (a flat grid): 1 */
    while (x[i] > u)
        i--;
    while (x[i + 1] <= u)
        i++;
    return i;
}

static inline double tables_clamp(double u, double lo, double hi)
{
    /* min(max(u, lo), hi) */
    const double m = u > lo ? u : lo;
    return m < hi ? m : hi;
}

double tables_interp1(const double *x, const double *y, int n, double u, int linearExtrapolation);
double tables_interp1Slope(const double *x, const double *y, int n, double u, int linearExtrapolation);
double tables_interp2(const double *x1, int n1, const double *x2, int n2, const double *y,
                      double u1, double u2, int linearExtrapolation);
double tables_interp2SlopeX(const double *x1, int n1, const double *x2, int n2, const double *y,
                            double u1, double u2, int linearExtrapolation);
double tables_interp2SlopeY(const double *x1, int n1, const double *x2, int n2, const double *y,
                            double u1, double u2, int linearExtrapolation);

/* ---- one point, several tables on the same 1D grid (interp1) ------------------------------ */
typedef struct Interp1Point {
    int i;          /* segment */
    double t;       /* uc - x[i] */
    double d;       /* x[i+1] - x[i] */
} Interp1Point;

static inline void interp1_locate(Interp1Point *p, const double *x, int n, double u, int linearExtrapolation)
{
    const double uc = linearExtrapolation ? u : tables_clamp(u, x[0], x[n - 1]);
    p->i = tables_segment(x, n, uc);
    p->t = uc - x[p->i];
    p->d = x[p->i + 1] - x[p->i];
}

/* v := y[i] + (y[i + 1] - y[i])*(uc - x[i])/(x[i + 1] - x[i]) */
static inline double interp1_at(const Interp1Point *p, const double *y)
{
    return y[p->i] + (y[p->i + 1] - y[p->i]) * p->t / p->d;
}

/* ---- one point, several tables on the same 2D grid (interp2 and its slopes) --------------- */
typedef struct Interp2Cell {
    int i, j;           /* segments in x1 and x2 */
    int n2;             /* row length of the tables */
    double a, b;        /* (c1 - x1[i])/(x1[i+1] - x1[i]), (c2 - x2[j])/(x2[j+1] - x2[j]) */
    double d1, d2;      /* x1[i+1] - x1[i], x2[j+1] - x2[j] */
    int outside1;       /* slope in x1 is 0 (clamped and u1 outside the grid) */
    int outside2;       /* slope in x2 is 0 (clamped and u2 outside the grid) */
} Interp2Cell;

static inline void interp2_locate(Interp2Cell *c, const double *x1, int n1, const double *x2, int n2,
                                  double u1, double u2, int linearExtrapolation)
{
    const double c1 = linearExtrapolation ? u1 : tables_clamp(u1, x1[0], x1[n1 - 1]);
    const double c2 = linearExtrapolation ? u2 : tables_clamp(u2, x2[0], x2[n2 - 1]);
    /* segment(x, u) == segment(x, clamp(u)): the slope functions search with the raw argument,
     * which lands in the same end segment. */
    c->i = tables_segment(x1, n1, c1);
    c->j = tables_segment(x2, n2, c2);
    c->n2 = n2;
    c->d1 = x1[c->i + 1] - x1[c->i];
    c->d2 = x2[c->j + 1] - x2[c->j];
    c->a = (c1 - x1[c->i]) / c->d1;
    c->b = (c2 - x2[c->j]) / c->d2;
    c->outside1 = !linearExtrapolation && (u1 < x1[0] || u1 > x1[n1 - 1]);
    c->outside2 = !linearExtrapolation && (u2 < x2[0] || u2 > x2[n2 - 1]);
}

static inline double interp2_at(const Interp2Cell *c, const double *y)
{
    const double *r0 = y + c->i * c->n2 + c->j, *r1 = r0 + c->n2;
    const double a = c->a, b = c->b;
    return (1 - a) * (1 - b) * r0[0] + a * (1 - b) * r1[0] + (1 - a) * b * r0[1] + a * b * r1[1];
}

static inline double interp2_slopeX_at(const Interp2Cell *c, const double *y)
{
    const double *r0 = y + c->i * c->n2 + c->j, *r1 = r0 + c->n2;
    const double b = c->b;
    if (c->outside1)
        return 0;
    return ((1 - b) * (r1[0] - r0[0]) + b * (r1[1] - r0[1])) / c->d1;
}

static inline double interp2_slopeY_at(const Interp2Cell *c, const double *y)
{
    const double *r0 = y + c->i * c->n2 + c->j, *r1 = r0 + c->n2;
    const double a = c->a;
    if (c->outside2)
        return 0;
    return ((1 - a) * (r0[1] - r0[0]) + a * (r1[1] - r1[0])) / c->d2;
}

#endif
