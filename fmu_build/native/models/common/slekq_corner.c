/* VehicleRTM.Suspensions.Corners and the equations of VehicleRTM.QuarterCars.SLEKQ in C (see slekq_corner.h). */
#include "slekq_corner.h"

#include <math.h>

double slekq_spring_force(double dL, double k0, double k1, double k2, double k3)
{
    return ((k3 * dL + k2) * dL + k1) * dL + k0;
}

double slekq_damper_force(double v, double d1, double d2, double d3, double d4, double d5, double d6,
                          double blend)
{
    double F, h;
    /* Piecewise-linear Eq. 1 (first branch written continuous) */
    if (v < -d2)
        F = d1 * d2 - d3 * (v + d2);
    else if (v < 0)
        F = -d1 * v;
    else if (v < d5)
        F = -d4 * v;
    else
        F = -d4 * d5 - d6 * (v - d5);
    /* Quadratic Bezier blends */
    h = fmin(blend, 0.5 * fmin(d2, d5));
    if (h > 0) {
        if (fabs(v + d2) < h)
            F = d1 * d2 - d3 * (v + d2) + (d3 - d1) * (v + d2 + h) * (v + d2 + h) / (4 * h);
        else if (fabs(v) < h)
            F = -d1 * v + (d1 - d4) * (v + h) * (v + h) / (4 * h);
        else if (fabs(v - d5) < h)
            F = -d4 * v + (d4 - d6) * (v - d5 + h) * (v - d5 + h) / (4 * h);
    }
    return F;
}

void slekq_wheel_centre(double z, const CornerData *data, double side, double r[3], double drdz[3],
                        double d2rdz2[3])
{
    r[0] = z * (data->xPath1 + z * (data->xPath2 + z * data->xPath3));
    r[1] = side * z * (data->yPath1 + z * (data->yPath2 + z * data->yPath3));
    r[2] = z;
    drdz[0] = data->xPath1 + z * (2 * data->xPath2 + 3 * z * data->xPath3);
    drdz[1] = side * (data->yPath1 + z * (2 * data->yPath2 + 3 * z * data->yPath3));
    drdz[2] = 1;
    d2rdz2[0] = 2 * data->xPath2 + 6 * z * data->xPath3;
    d2rdz2[1] = side * (2 * data->yPath2 + 6 * z * data->yPath3);
    d2rdz2[2] = 0;
}

void slekq_wheel_angles(double z, const CornerData *data, double *toe, double *camber, double *rotY,
                        double *dtoe, double *dcamber, double *drotY)
{
    *toe = data->toe0 + z * (data->toe1 + z * (data->toe2 + z * data->toe3));
    *camber = data->camber0 + z * (data->camber1 + z * (data->camber2 + z * data->camber3));
    *rotY = data->rotY0 + z * (data->rotY1 + z * (data->rotY2 + z * data->rotY3));
    *dtoe = data->toe1 + z * (2 * data->toe2 + 3 * z * data->toe3);
    *dcamber = data->camber1 + z * (2 * data->camber2 + 3 * z * data->camber3);
    *drotY = data->rotY1 + z * (2 * data->rotY2 + 3 * z * data->rotY3);
}

static void matmul3(const double A[3][3], const double B[3][3], double C[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j] + A[i][2] * B[2][j];
}

void slekq_orientation(double toe, double camber, double rotY, double dtoe, double dcamber, double drotY,
                       double side, double R[3][3], double dR[3][3])
{
    const double psi = -side * toe, phi = -side * camber, theta = rotY;
    const double cps = cos(psi), sps = sin(psi), cph = cos(phi), sph = sin(phi);
    const double cth = cos(theta), sth = sin(theta);
    const double Rz[3][3] = {{cps, -sps, 0}, {sps, cps, 0}, {0, 0, 1}};
    const double Rx[3][3] = {{1, 0, 0}, {0, cph, -sph}, {0, sph, cph}};
    const double Ry[3][3] = {{cth, 0, sth}, {0, 1, 0}, {-sth, 0, cth}};
    const double dRz[3][3] = {{-sps, -cps, 0}, {cps, -sps, 0}, {0, 0, 0}};
    const double dRx[3][3] = {{0, 0, 0}, {0, -sph, -cph}, {0, cph, -sph}};
    const double dRy[3][3] = {{-sth, 0, cth}, {0, 0, 0}, {-cth, 0, -sth}};
    double RzRx[3][3], T[3][3], A[3][3], B[3][3], C[3][3];

    matmul3(Rz, Rx, RzRx);
    matmul3(RzRx, Ry, R);
    /* dR = (-side*dtoe)*(dRz*Rx*Ry) + (-side*dcamber)*(Rz*dRx*Ry) + drotY*(Rz*Rx*dRy) */
    matmul3(dRz, Rx, T);
    matmul3(T, Ry, A);
    matmul3(Rz, dRx, T);
    matmul3(T, Ry, B);
    matmul3(RzRx, dRy, C);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            dR[i][j] = (-side * dtoe) * A[i][j] + (-side * dcamber) * B[i][j] + drotY * C[i][j];
}

void slekq_strut_geometry(double z, const CornerData *data, double side, double *L, double *dLdz)
{
    double w[3], dw[3], d2w[3], toe, camber, rotY, dtoe, dcamber, drotY;
    double R[3][3], dR[3][3], R0[3][3], dR0[3][3], s[3], rL0[3], rU[3], p[3], dp[3];

    slekq_wheel_centre(z, data, side, w, dw, d2w);
    slekq_wheel_angles(0, data, &toe, &camber, &rotY, &dtoe, &dcamber, &drotY);
    slekq_orientation(toe, camber, rotY, dtoe, dcamber, drotY, side, R0, dR0);
    slekq_wheel_angles(z, data, &toe, &camber, &rotY, &dtoe, &dcamber, &drotY);
    slekq_orientation(toe, camber, rotY, dtoe, dcamber, drotY, side, R, dR);
    /* s = transpose(R0)*{rLower[1], side*rLower[2], rLower[3]} */
    rL0[0] = data->rLower[0];
    rL0[1] = side * data->rLower[1];
    rL0[2] = data->rLower[2];
    for (int i = 0; i < 3; i++)
        s[i] = R0[0][i] * rL0[0] + R0[1][i] * rL0[1] + R0[2][i] * rL0[2];
    rU[0] = data->rUpper[0];
    rU[1] = side * data->rUpper[1];
    rU[2] = data->rUpper[2];
    for (int i = 0; i < 3; i++) {
        p[i] = w[i] + (R[i][0] * s[0] + R[i][1] * s[1] + R[i][2] * s[2]) - rU[i];
        dp[i] = dw[i] + (dR[i][0] * s[0] + dR[i][1] * s[1] + dR[i][2] * s[2]);
    }
    *L = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    *dLdz = (p[0] * dp[0] + p[1] * dp[1] + p[2] * dp[2]) / *L;
}

double slekq_free_length(const CornerData *data, double FSprung, double side)
{
    double L0, dLdz0, Fd0, Fs, dL;
    slekq_strut_geometry(0, data, side, &L0, &dLdz0);
    Fd0 = slekq_damper_force(0, data->d1, data->d2, data->d3, data->d4, data->d5, data->d6, data->blend);
    Fs = -FSprung / dLdz0 - Fd0;
    dL = (Fs - data->k0) / data->k1;
    /* Newton iterations on the cubic, fixed count */
    for (int i = 0; i < 30; i++)
        dL = dL - (slekq_spring_force(dL, data->k0, data->k1, data->k2, data->k3) - Fs) /
                      (data->k1 + dL * (2 * data->k2 + 3 * data->k3 * dL));
    return L0 + dL;
}

void slekq_calculated_parameters(const CornerData *data, double FDesign, double side, int freeLengthFromLoad,
                                 double *Lfree, double *m)
{
    *Lfree = freeLengthFromLoad ? slekq_free_length(data, FDesign, side) : data->freeLength;
    *m = data->mUnsprung;
}

void slekq_evaluate(const SlekqParameters *p, const SlekqInputs *u, SlekqState *s)
{
    const CornerData *data = p->data;
    const double m = p->m, z = u->z, v = u->v;

    slekq_wheel_centre(z, data, p->side, s->w, s->dw, s->d2w);
    slekq_wheel_angles(z, data, &s->toe, &s->camber, &s->rotY, &s->dtoe, &s->dcamber, &s->drotY);
    s->xWheel = s->w[0];
    s->yWheel = s->w[1];
    slekq_strut_geometry(z, data, p->side, &s->L, &s->dLdz);
    s->dL = p->Lfree - s->L;
    s->vStrut = s->dLdz * v;
    s->Fspring = slekq_spring_force(s->dL, data->k0, data->k1, data->k2, data->k3);
    s->Fdamper = slekq_damper_force(s->vStrut, data->d1, data->d2, data->d3, data->d4, data->d5, data->d6,
                                    data->blend);
    s->Q = (s->Fspring + s->Fdamper) * s->dLdz;
    if (p->pathInertia) {
        const double dwdw = s->dw[0] * s->dw[0] + s->dw[1] * s->dw[1] + s->dw[2] * s->dw[2];
        const double dwd2w = s->dw[0] * s->d2w[0] + s->dw[1] * s->d2w[1] + s->dw[2] * s->d2w[2];
        s->mEff = m * dwdw;
        s->Fquad = m * dwd2w * v * v;
    } else {
        s->mEff = m;
        s->Fquad = 0;
    }
    s->Hknown = u->lambda * (u->GI * p->NI * (u->zRef - z) + u->GP * p->NP * (u->vRef - v) + u->GD * p->ND * u->aRef);
    s->mTotal = s->mEff + u->lambda * u->GD * p->ND;
    s->R = u->FZ - m * p->g + s->Q - s->Fquad + s->Hknown;
    s->mu = m * (s->mEff - m) / s->mTotal;
    s->FBody0 = u->FZ - m * p->g + s->Hknown - (m + u->lambda * u->GD * p->ND) / s->mTotal * s->R;
}

void slekq_finish(const SlekqParameters *p, const SlekqInputs *u, double aBody, SlekqState *s)
{
    const double m = p->m;
    s->aBody = aBody;
    s->a = (s->R - m * aBody) / s->mTotal;
    s->Fhomotopy = s->Hknown - u->lambda * u->GD * p->ND * s->a;
    s->FBody = u->FZ - m * p->g + s->Fhomotopy - m * (aBody + s->a);
}
