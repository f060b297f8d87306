/* VehicleRTM.Tires in C (see mf.h). Each function mirrors the Modelica function of the same name;
 * the comments name the Modelica lines where the C differs in form only. */
#include "mf.h"

#include <math.h>

#define MF_EPS 1e-6                         /* eps of pureLongitudinal, pureLateral, combinedSlip */
#define MF_PI 3.14159265358979323846        /* pi of combinedSlip */
#define TIRE_PI 3.14159265358979            /* the literal of Tire's low-speed damping */

static inline double clampd(double u, double lo, double hi)
{
    /* min(max(u, lo), hi) */
    const double m = u > lo ? u : lo;
    return m < hi ? m : hi;
}

static inline double maxd(double a, double b) { return a > b ? a : b; }
static inline double mind(double a, double b) { return a < b ? a : b; }
static inline double sgn(double x) { return x >= 0 ? 1.0 : -1.0; }

/* Exact identities that save a transcendental call (they agree with the composed functions to a
 * few ulp): cos(atan(u)) = 1/sqrt(1 + u^2), sin(2*atan(u)) = 2u/(1 + u^2). Outside |u| < 1e150,
 * where u^2 would overflow, the composed form is used. */
static inline double cos_atan(double u)
{
    return fabs(u) < 1e150 ? 1 / sqrt(1 + u * u) : cos(atan(u));
}

static inline double sin_2atan(double u)
{
    return fabs(u) < 1e150 ? 2 * u / (1 + u * u) : sin(2 * atan(u));
}

/* exp(a*x), exactly 1 when the coefficient a is 0 (a common .tir value) */
static inline double exp_coef(double a, double x)
{
    return a == 0 ? 1 : exp(a * x);
}

double mf_pressureIncrement(const MFRecord *c, int mfVersion)
{
    return mfVersion >= 61 && c->NOMPRES > 0 && c->INFLPRES > 0 ? (c->INFLPRES - c->NOMPRES) / c->NOMPRES : 0;
}

double mf_effectiveRollingRadius(double Fz, const MFRecord *c)
{
    const double Cz = c->VERTICAL_STIFFNESS * c->LCZ;
    const double rho_d = maxd(Fz, 0) / c->FNOMIN;
    return c->UNLOADED_RADIUS - c->FNOMIN / Cz * (c->DREFF * atan(c->BREFF * rho_d) + c->FREFF * rho_d);
}

double mf_verticalForce(double deflection, double deflectionRate, const MFRecord *c)
{
    return deflection > 0
        ? maxd(0, c->VERTICAL_STIFFNESS * c->LCZ * deflection + c->VERTICAL_DAMPING * deflectionRate) : 0;
}

void mf_pureLongitudinal(double Fz, double kappa, double gamma, const MFRecord *c, int mfVersion,
                         double *Fx0, double *Kxk, double *mux)
{
    const int mf61 = mfVersion >= 61;
    const double Fz0p = c->FNOMIN * c->LFZO;
    const double dfz = (Fz - Fz0p) / Fz0p;
    const double dpi = mf_pressureIncrement(c, mfVersion);
    const double gx = mf61 ? sin(gamma) : gamma * c->LGAX;
    const double Cx = c->PCX1 * c->LCX;
    const double mu = (c->PDX1 + c->PDX2 * dfz) * (1 + c->PPX3 * dpi + c->PPX4 * (dpi * dpi))
        * (1 - c->PDX3 * (gx * gx)) * c->LMUX;
    const double Dx = mu * Fz;
    const double K = Fz * (c->PKX1 + c->PKX2 * dfz) * exp_coef(c->PKX3, dfz)
        * (1 + c->PPX1 * dpi + c->PPX2 * (dpi * dpi)) * c->LKX;
    const double Bx = K / (Cx * Dx + (Cx * Dx >= 0 ? MF_EPS : -MF_EPS));
    const double SHx = (c->PHX1 + c->PHX2 * dfz) * c->LHX;
    const double SVx = Fz * (c->PVX1 + c->PVX2 * dfz) * c->LVX * c->LMUX;
    const double kx = kappa + SHx;
    const double Ex = mind((c->PEX1 + c->PEX2 * dfz + c->PEX3 * (dfz * dfz)) * (1 - c->PEX4 * sgn(kx)) * c->LEX, 1);
    *Fx0 = Dx * sin(Cx * atan(Bx * kx - Ex * (Bx * kx - atan(Bx * kx)))) + SVx;
    *Kxk = K;
    *mux = mu;
}

void mf_pureLateral(double Fz, double alpha, double gamma, const MFRecord *c, int mfVersion, MFLateral *out)
{
    const int mf61 = mfVersion >= 61;
    const double Fz0p = c->FNOMIN * c->LFZO;
    const double dfz = (Fz - Fz0p) / Fz0p;
    const double dpi = mf_pressureIncrement(c, mfVersion);
    const double as = mf61 ? tan(alpha) : alpha;
    const double gy = mf61 ? sin(gamma) : gamma * c->LGAY;
    const double Cy = c->PCY1 * c->LCY;
    const double muy = (c->PDY1 + c->PDY2 * dfz) * (1 + c->PPY3 * dpi + c->PPY4 * (dpi * dpi))
        * (1 - c->PDY3 * (gy * gy)) * c->LMUY;
    const double Dy = muy * Fz;
    double Kya, SHy, SVy;
    if (mf61)
        Kya = c->PKY1 * Fz0p * (1 + c->PPY1 * dpi) * (1 - c->PKY3 * fabs(gy))
            * sin(c->PKY4 * atan(Fz / ((c->PKY2 + c->PKY5 * (gy * gy)) * (1 + c->PPY2 * dpi) * Fz0p))) * c->LKY;
    else
        Kya = c->PKY1 * Fz0p * sin_2atan(Fz / (c->PKY2 * Fz0p)) * (1 - c->PKY3 * fabs(gy)) * c->LKY;
    const double Kyap = Kya + (Kya >= 0 ? MF_EPS : -MF_EPS);
    if (mf61) {
        const double Kyg0 = Fz * (c->PKY6 + c->PKY7 * dfz) * (1 + c->PPY5 * dpi) * c->LKYC;
        const double SVyg = Fz * (c->PVY3 + c->PVY4 * dfz) * gy * c->LKYC * c->LMUY;
        SHy = (c->PHY1 + c->PHY2 * dfz) * c->LHY + (Kyg0 * gy - SVyg) / Kyap;
        SVy = Fz * (c->PVY1 + c->PVY2 * dfz) * c->LVY * c->LMUY + SVyg;
    } else {
        SHy = (c->PHY1 + c->PHY2 * dfz) * c->LHY + c->PHY3 * gy;
        SVy = Fz * ((c->PVY1 + c->PVY2 * dfz) * c->LVY + (c->PVY3 + c->PVY4 * dfz) * gy) * c->LMUY;
    }
    const double ay = as + SHy;
    const double Ey = mind((c->PEY1 + c->PEY2 * dfz) * (1 + (mf61 ? c->PEY5 * (gy * gy) : 0)
        - (c->PEY3 + c->PEY4 * gy) * sgn(ay)) * c->LEY, 1);
    const double By = Kya / (Cy * Dy + (Cy * Dy >= 0 ? MF_EPS : -MF_EPS));
    out->Fy0 = Dy * sin(Cy * atan(By * ay - Ey * (By * ay - atan(By * ay)))) + SVy;
    out->Kya = Kya;
    out->muy = muy;
    out->By = By;
    out->Cy = Cy;
    out->SHy = SHy;
    out->SVy = SVy;
}

void mf_slipStiffnesses(double Fz, double gamma, const MFRecord *c, int mfVersion, double *Kxk, double *Kya)
{
    const double FzL = clampd(Fz, 0, c->FZMAX);
    const double gL = clampd(gamma, c->CAMMIN, c->CAMMAX);
    double Fx0, mux;
    MFLateral lat;
    mf_pureLongitudinal(FzL, 0, gL, c, mfVersion, &Fx0, Kxk, &mux);
    mf_pureLateral(FzL, 0, gL, c, mfVersion, &lat);
    *Kya = lat.Kya;
}

double mf_rollingResistance(double Fz, double Fx, double Vx, double gamma, const MFRecord *c, int mfVersion)
{
    const double Fz0 = c->FNOMIN;
    const double FzP = maxd(Fz, 0);
    const double vr = Vx / c->LONGVL;
    const double gL = clampd(gamma, c->CAMMIN, c->CAMMAX);
    const double vr2 = vr * vr;
    double m;
    if (mfVersion >= 61) {
        const double pr = c->NOMPRES > 0 && c->INFLPRES > 0 ? c->INFLPRES / c->NOMPRES : 1;
        m = c->UNLOADED_RADIUS * Fz0 * c->LMY * (c->QSY1 + c->QSY2 * Fx / Fz0 + c->QSY3 * fabs(vr) + c->QSY4 * (vr2 * vr2)
            + (c->QSY5 + c->QSY6 * FzP / Fz0) * (gL * gL)) * pow(FzP / Fz0, c->QSY7) * pow(pr, c->QSY8);
    } else {
        m = c->UNLOADED_RADIUS * FzP * c->LMY * (c->QSY1 + c->QSY2 * Fx / Fz0 + c->QSY3 * fabs(vr) + c->QSY4 * (vr2 * vr2));
    }
    const double direction = clampd(Vx / maxd(c->VXLOW, 1e-6), -1, 1);
    return -m * direction;
}

void mf_relaxationLengths(double Fz, double gamma, const MFRecord *c, int mfVersion,
                          double *sigmaKappa, double *sigmaAlpha)
{
    const double FzL = clampd(Fz, 0, c->FZMAX);
    const double gL = clampd(gamma, c->CAMMIN, c->CAMMAX);
    const double Fz0p = c->FNOMIN * c->LFZO;
    const double dfz = (FzL - Fz0p) / Fz0p;
    const double dpi = mf_pressureIncrement(c, mfVersion);
    if (mfVersion >= 61 && c->LONGITUDINAL_STIFFNESS > 0 && c->LATERAL_STIFFNESS > 0) {
        double Kxk, Kya;
        mf_slipStiffnesses(FzL, gL, c, mfVersion, &Kxk, &Kya);
        const double Cx = c->LONGITUDINAL_STIFFNESS * (1 + c->PCFX1 * dfz + c->PCFX2 * (dfz * dfz)) * (1 + c->PCFX3 * dpi);
        const double Cy = c->LATERAL_STIFFNESS * (1 + c->PCFY1 * dfz + c->PCFY2 * (dfz * dfz)) * (1 + c->PCFY3 * dpi);
        *sigmaKappa = fabs(Kxk / Cx);
        *sigmaAlpha = fabs(Kya / Cy);
    } else {
        const double gy = mfVersion >= 61 ? sin(gL) : gL * c->LGAY;
        *sigmaKappa = FzL * (c->PTX1 + c->PTX2 * dfz) * exp_coef(-c->PTX3, dfz) * c->UNLOADED_RADIUS / c->FNOMIN * c->LSGKP;
        *sigmaAlpha = c->PTY1 * sin_2atan(FzL / (c->PTY2 * Fz0p)) * (1 - c->PKY3 * fabs(gy))
            * c->UNLOADED_RADIUS * c->LFZO * c->LSGAL;
    }
}

/* W(B, C, E, x) = cos(C*atan(B*x - E*(B*x - atan(B*x)))) */
static inline double weight(double B, double C, double E, double x)
{
    return cos(C * atan(B * x - E * (B * x - atan(B * x))));
}

/* W(B, C, E, 0) = cos(C*atan(0)) = 1 exactly for finite B and E */
static inline double weight_at(double B, double C, double E, double x)
{
    return x == 0 && isfinite(B) && isfinite(E) ? 1 : weight(B, C, E, x);
}

/* Gxa and Gyk of combinedSlip; gs = gamma* (enters only through RBX3, RBY4 of MF 6.1) */
static double combined_Gxa(const MFSlip *p, double gs)
{
    const MFRecord *c = p->c;
    const double Bxa = (c->RBX1 + (p->mf61 ? c->RBX3 * (gs * gs) : 0)) * cos_atan(c->RBX2 * p->kL) * c->LXAL;
    const double Exa = mind(c->REX1 + c->REX2 * p->dfz, 1);
    const double xa = p->as + c->RHX1;
    return weight(Bxa, c->RCX1, Exa, xa) / weight_at(Bxa, c->RCX1, Exa, c->RHX1);
}

static double combined_Gyk(const MFSlip *p, double gs)
{
    const MFRecord *c = p->c;
    const double Byk = (c->RBY1 + (p->mf61 ? c->RBY4 * (gs * gs) : 0)) * cos_atan(c->RBY2 * (p->as - c->RBY3)) * c->LYKA;
    const double Eyk = mind(c->REY1 + c->REY2 * p->dfz, 1);
    const double SHyk = c->RHY1 + c->RHY2 * p->dfz;
    const double ks = p->kL + SHyk;
    return weight(Byk, c->RCY1, Eyk, ks) / weight_at(Byk, c->RCY1, Eyk, SHyk);
}

void mf_slip_prepare(MFSlip *p, const MFRecord *c, int mfVersion, double Fz, double kappa, double alpha,
                     double tanAlpha)
{
    p->c = c;
    p->mfVersion = mfVersion;
    p->mf61 = mfVersion >= 61;
    /* limits of the .tir ranges */
    p->FzL = clampd(Fz, 0, c->FZMAX);
    p->kL = clampd(kappa, c->KPUMIN, c->KPUMAX);
    p->aL = clampd(alpha, c->ALPMIN, c->ALPMAX);
    p->haveTan = p->aL == alpha && !isnan(tanAlpha);      /* then tan(aL) = tanAlpha */
    p->Fz0p = c->FNOMIN * c->LFZO;
    p->dfz = (p->FzL - p->Fz0p) / p->Fz0p;
    p->dpi = mf_pressureIncrement(c, mfVersion);
    p->as = p->mf61 ? (p->haveTan ? tanAlpha : tan(p->aL)) : p->aL;
    p->cosaL = p->haveTan ? cos_atan(tanAlpha) : cos(p->aL);
    /* The combined-slip weights depend on the inclination only through RBX3, RBY4 (MF 6.1). */
    p->GxaFree = !p->mf61 || c->RBX3 == 0;
    p->GykFree = !p->mf61 || c->RBY4 == 0;
    if (p->GxaFree)
        p->Gxa = combined_Gxa(p, 0);
    if (p->GykFree)
        p->Gyk = combined_Gyk(p, 0);
}

void mf_slip_at_gamma(const MFSlip *p, double gamma, MFForces *out)
{
    const MFRecord *c = p->c;
    const int mfVersion = p->mfVersion, mf61 = p->mf61;
    const double FzL = p->FzL, kL = p->kL, aL = p->aL, Fz0p = p->Fz0p, dfz = p->dfz, dpi = p->dpi, as = p->as;
    const double gL = clampd(gamma, c->CAMMIN, c->CAMMAX);
    const double gs = mf61 ? sin(gL) : gL;
    const double gz = mf61 ? sin(gL) : gL * c->LGAZ;
    /* pure slip */
    double Fx0, Kxk, mux;
    MFLateral lat;
    mf_pureLongitudinal(FzL, kL, gL, c, mfVersion, &Fx0, &Kxk, &mux);
    mf_pureLateral(FzL, aL, gL, c, mfVersion, &lat);
    /* combined slip longitudinal force */
    const double Gxa = p->GxaFree ? p->Gxa : combined_Gxa(p, gs);
    const double Fx = Gxa * Fx0;
    /* combined slip lateral force */
    const double Gyk = p->GykFree ? p->Gyk : combined_Gyk(p, gs);
    double SVyk = 0;    /* sin(RVY5*atan(RVY6*kL)) = 0 when RVY5 or RVY6 is 0 */
    if (c->RVY5 != 0 && c->RVY6 != 0) {
        const double DVyk = lat.muy * FzL * (c->RVY1 + c->RVY2 * dfz + c->RVY3 * gs) * cos_atan(c->RVY4 * as);
        SVyk = DVyk * sin(c->RVY5 * atan(c->RVY6 * kL)) * c->LVYKA;
    }
    const double Fy = Gyk * lat.Fy0 + SVyk;
    /* aligning moment */
    const double Kyap = lat.Kya + (lat.Kya >= 0 ? MF_EPS : -MF_EPS);
    const double SHt = c->QHZ1 + c->QHZ2 * dfz + (c->QHZ3 + c->QHZ4 * dfz) * gz;
    const double at = as + SHt;
    const double ar = as + lat.SHy + lat.SVy / Kyap;
    const double Bt = (c->QBZ1 + c->QBZ2 * dfz + c->QBZ3 * (dfz * dfz)) * (1 + c->QBZ4 * gz + c->QBZ5 * fabs(gz))
        * c->LKY / c->LMUY;
    const double Ct = c->QCZ1;
    const double Dt = FzL * (c->QDZ1 + c->QDZ2 * dfz) * (1 - c->PPZ1 * dpi) * (1 + c->QDZ3 * gz + c->QDZ4 * (gz * gz))
        * c->UNLOADED_RADIUS / Fz0p * c->LTR;
    const double qez45 = c->QEZ4 + c->QEZ5 * gz;     /* 0: the atan term vanishes */
    const double Et = mind((c->QEZ1 + c->QEZ2 * dfz + c->QEZ3 * (dfz * dfz))
        * (1 + (qez45 == 0 ? 0 : qez45 * (2 / MF_PI) * atan(Bt * Ct * at))), 1);
    const double Br = c->QBZ9 * c->LKY / c->LMUY + c->QBZ10 * lat.By * lat.Cy;
    double Dr;
    if (mf61)
        Dr = FzL * c->UNLOADED_RADIUS * ((c->QDZ6 + c->QDZ7 * dfz) * c->LRES
            + ((c->QDZ8 + c->QDZ9 * dfz) * (1 + c->PPZ2 * dpi) + (c->QDZ10 + c->QDZ11 * dfz) * fabs(gz)) * gz * c->LKZC) * c->LMUY;
    else
        Dr = FzL * c->UNLOADED_RADIUS * ((c->QDZ6 + c->QDZ7 * dfz) * c->LRES + (c->QDZ8 + c->QDZ9 * dfz) * gz) * c->LMUY;
    const double r2b = Kxk / Kyap * kL;
    const double r2 = r2b * r2b;
    const double tat = tan(at), tar = tan(ar);
    const double ateq = atan(sqrt(tat * tat + r2)) * sgn(at);
    const double areq = atan(sqrt(tar * tar + r2)) * sgn(ar);
    const double t = Dt * cos(Ct * atan(Bt * ateq - Et * (Bt * ateq - atan(Bt * ateq)))) * p->cosaL;
    const double Mzr = Dr * cos_atan(Br * areq) * p->cosaL;
    const double s = c->UNLOADED_RADIUS * (c->SSZ1 + c->SSZ2 * Fy / Fz0p + (c->SSZ3 + c->SSZ4 * dfz) * gs) * c->LS;
    double Fyp;
    if (mf61) {
        MFLateral lat0;
        mf_pureLateral(FzL, aL, 0, c, mfVersion, &lat0);
        Fyp = Gyk * lat0.Fy0;
    } else {
        Fyp = Fy - SVyk;
    }
    out->Fx = Fx;
    out->Fy = Fy;
    out->Mz = -t * Fyp + Mzr + s * Fx;
    /* overturning moment */
    out->Mx = c->UNLOADED_RADIUS * FzL * (c->QSX1 * c->LVMX - c->QSX2 * gs + c->QSX3 * Fy / Fz0p) * c->LMX;
    out->My = 0;
}

/* combinedSlip without My. tanAlpha: tan(alpha) when the caller has it (the Tire model's state),
 * else NAN; it saves tan(aL) and cos(aL) when alpha is inside [ALPMIN, ALPMAX]. */
static void combined_slip(double Fz, double kappa, double alpha, double tanAlpha, double gamma, const MFRecord *c,
                          int mfVersion, MFForces *out)
{
    MFSlip p;
    mf_slip_prepare(&p, c, mfVersion, Fz, kappa, alpha, tanAlpha);
    mf_slip_at_gamma(&p, gamma, out);
}

void mf_combinedSlipNoMy(double Fz, double kappa, double alpha, double gamma, const MFRecord *c, int mfVersion,
                         MFForces *out)
{
    combined_slip(Fz, kappa, alpha, NAN, gamma, c, mfVersion, out);
}

void mf_combinedSlip(double Fz, double kappa, double alpha, double gamma, double Vx, const MFRecord *c,
                     int mfVersion, MFForces *out)
{
    mf_combinedSlipNoMy(Fz, kappa, alpha, gamma, c, mfVersion, out);
    out->My = mf_rollingResistance(Fz, out->Fx, Vx, gamma, c, mfVersion);
}

void mf_tire_slip_forces(const MFRecord *c, int mfVersion, double Fz, double kappa, double tanAlpha,
                         double gamma, TireOutputs *out)
{
    MFForces f;
    out->alpha = atan(tanAlpha);
    combined_slip(Fz, kappa, out->alpha, tanAlpha, gamma, c, mfVersion, &f);
    out->FxSlip = f.Fx;
    out->FySlip = f.Fy;
    out->Mz = f.Mz;
    out->Mx = f.Mx;
}

void mf_tire_slip_prepare(const MFRecord *c, int mfVersion, double Fz, double kappa, double tanAlpha,
                          MFSlip *slip, TireOutputs *out)
{
    out->alpha = atan(tanAlpha);
    mf_slip_prepare(slip, c, mfVersion, Fz, kappa, out->alpha, tanAlpha);
}

void mf_tire_slip_at_gamma(const MFSlip *slip, double gamma, TireOutputs *out)
{
    MFForces f;
    mf_slip_at_gamma(slip, gamma, &f);
    out->FxSlip = f.Fx;
    out->FySlip = f.Fy;
    out->Mz = f.Mz;
    out->Mx = f.Mx;
}

void mf_tire_finish(const MFRecord *c, int mfVersion, double sigmaMin, double lowSpeedDamping,
                    const TireInputs *in, TireOutputs *out)
{
    const double vxAbs = fabs(in->vx);
    out->Re = mf_effectiveRollingRadius(in->Fz, c);
    mf_relaxationLengths(in->Fz, in->gamma, c, mfVersion, &out->sigmaKappa, &out->sigmaAlpha);
    /* max(sigmaKappa, sigmaMin)*der(kappa) + vxAbs*kappa = omega*Re - vx, likewise tanAlpha */
    out->der_kappa = (in->omega * out->Re - in->vx - vxAbs * in->kappa) / maxd(out->sigmaKappa, sigmaMin);
    out->der_tanAlpha = (in->vy - vxAbs * in->tanAlpha) / maxd(out->sigmaAlpha, sigmaMin);
    out->My = mf_rollingResistance(in->Fz, out->FxSlip, in->vx, in->gamma, c, mfVersion);
    out->damping = vxAbs < c->VXLOW ? 0.5 * lowSpeedDamping * (1 + cos(TIRE_PI * vxAbs / c->VXLOW)) : 0;
    out->Fx = out->FxSlip + out->damping * (in->omega * out->Re - in->vx);
    out->Fy = out->FySlip - out->damping * in->vy;
}

void mf_tire(const MFRecord *c, int mfVersion, double sigmaMin, double lowSpeedDamping,
             const TireInputs *in, TireOutputs *out)
{
    mf_tire_slip_forces(c, mfVersion, in->Fz, in->kappa, in->tanAlpha, in->gamma, out);
    mf_tire_finish(c, mfVersion, sigmaMin, lowSpeedDamping, in, out);
}
