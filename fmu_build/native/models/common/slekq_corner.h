/* The SLEKQ corner in C: VehicleRTM.Suspensions.Corners (records and functions) and the equations of
 * VehicleRTM.QuarterCars.SLEKQ, shared by the SLEKQ, KCRig, FourPost10DoF and QuarterCarFreeVibration
 * model files.
 *
 * Every function mirrors the Modelica function of the same name (same branches, same formulas).
 * Arrays are 0-based here: w[0] is w[1] of Modelica, R[i][j] is R[i+1, j+1].
 */
#ifndef VEHICLERTM_SLEKQ_CORNER_H
#define VEHICLERTM_SLEKQ_CORNER_H

#include <stddef.h>

/* VehicleRTM.Suspensions.Corners.CornerData, field for field in declaration order. A model file
 * views the 40 consecutive Real parameters of a corner record in ModelInstance.r through this struct
 * (see SLEKQ_CORNER_DATA); SLEKQ_CHECK_LAYOUT proves at compile time that the value references
 * agree with the field offsets, so a changed record cannot be read wrongly. */
typedef struct CornerData {
    double xPath1, xPath2, xPath3;
    double yPath1, yPath2, yPath3;
    double toe0, toe1, toe2, toe3;
    double camber0, camber1, camber2, camber3;
    double rotY0, rotY1, rotY2, rotY3;
    double rUpper[3];
    double rLower[3];
    double k0, k1, k2, k3;
    double freeLength;
    double d1, d2, d3, d4, d5, d6;
    double blend;
    double mUnsprung, mSprung, cTyre, dTyre;
} CornerData;

#define SLEKQ_FIELD_OK(P, field) \
    (VR_##P##_##field - VR_##P##_xPath1 == (int)(offsetof(CornerData, field) / sizeof(double)))

/* Compile-time proof that the record P (a flattened stem such as corner_data) is laid out as CornerData. */
#define SLEKQ_CHECK_LAYOUT(P) \
    _Static_assert(SLEKQ_FIELD_OK(P, xPath3) && SLEKQ_FIELD_OK(P, yPath1) && SLEKQ_FIELD_OK(P, yPath3) && \
                   SLEKQ_FIELD_OK(P, toe0) && SLEKQ_FIELD_OK(P, toe3) && SLEKQ_FIELD_OK(P, camber0) && \
                   SLEKQ_FIELD_OK(P, camber3) && SLEKQ_FIELD_OK(P, rotY0) && SLEKQ_FIELD_OK(P, rotY3) && \
                   SLEKQ_FIELD_OK(P, rUpper) && SLEKQ_FIELD_OK(P, rLower) && SLEKQ_FIELD_OK(P, k0) && \
                   SLEKQ_FIELD_OK(P, k3) && SLEKQ_FIELD_OK(P, freeLength) && SLEKQ_FIELD_OK(P, d1) && \
                   SLEKQ_FIELD_OK(P, d6) && SLEKQ_FIELD_OK(P, blend) && SLEKQ_FIELD_OK(P, mUnsprung) && \
                   SLEKQ_FIELD_OK(P, mSprung) && SLEKQ_FIELD_OK(P, cTyre) && SLEKQ_FIELD_OK(P, dTyre) && \
                   DIM_##P##_rUpper_1 == 3 && DIM_##P##_rLower_1 == 3 && \
                   sizeof(CornerData) == 40 * sizeof(double), \
                   "record " #P " is not laid out as VehicleRTM.Suspensions.Corners.CornerData")

/* The corner record P of ModelInstance m as a CornerData (no copy). */
#define SLEKQ_CORNER_DATA(P) ((const CornerData *)&m->r[VR_##P##_xPath1])

/* Corners.springForce (Eq. 2). */
double slekq_spring_force(double dL, double k0, double k1, double k2, double k3);
/* Corners.damperForce (Eq. 1 with C1 quadratic Bezier blends). */
double slekq_damper_force(double v, double d1, double d2, double d3, double d4, double d5, double d6,
                          double blend);
/* Corners.wheelCentre: displacement r, dr/dz and d2r/dz2 of the wheel centre. */
void slekq_wheel_centre(double z, const CornerData *data, double side, double r[3], double drdz[3],
                        double d2rdz2[3]);
/* Corners.wheelAngles: toe, camber, rotY and their derivatives along the path. */
void slekq_wheel_angles(double z, const CornerData *data, double *toe, double *camber, double *rotY,
                        double *dtoe, double *dcamber, double *drotY);
/* Corners.orientation: rotation matrix R = Rz*Rx*Ry and dR/dz. */
void slekq_orientation(double toe, double camber, double rotY, double dtoe, double dcamber, double drotY,
                       double side, double R[3][3], double dR[3][3]);
/* Corners.strutGeometry: strut length L and installation ratio dL/dz. */
void slekq_strut_geometry(double z, const CornerData *data, double side, double *L, double *dLdz);
/* Corners.freeLength: spring free length for static equilibrium at z = 0 under FSprung. */
double slekq_free_length(const CornerData *data, double FSprung, double side);

/* The parameters of one QuarterCars.SLEKQ instance that its equations use. */
typedef struct SlekqParameters {
    const CornerData *data;
    double side;
    int pathInertia;
    double g, NI, NP, ND;
    double Lfree, m;    /* final parameters (see slekq_calculated_parameters) */
} SlekqParameters;

/* Inputs of QuarterCars.SLEKQ and its two states (aBody is passed to slekq_finish). */
typedef struct SlekqInputs {
    double z, v;
    double FZ, lambda, GI, GP, GD, zRef, vRef, aRef;
} SlekqInputs;

/* Every variable of QuarterCars.SLEKQ computed by its equations (protected ones included). */
typedef struct SlekqState {
    double w[3], dw[3], d2w[3];
    double toe, camber, rotY, dtoe, dcamber, drotY;
    double xWheel, yWheel;
    double L, dLdz, dL, vStrut;
    double Fspring, Fdamper, Q;
    double mEff, Fquad, Hknown, mTotal, R;
    double mu, FBody0;
    /* known only once the body acceleration is (slekq_finish) */
    double aBody, a, Fhomotopy, FBody;
} SlekqState;

/* The final parameters Lfree and m of SLEKQ from data, FDesign, side and freeLengthFromLoad. */
void slekq_calculated_parameters(const CornerData *data, double FDesign, double side, int freeLengthFromLoad,
                                 double *Lfree, double *m);
/* Every equation of SLEKQ that does not need the body acceleration aBody (it gives FBody0 and mu, so
 * that an assembly can solve its body accelerations explicitly: FBody = FBody0 - mu*aBody). */
void slekq_evaluate(const SlekqParameters *p, const SlekqInputs *u, SlekqState *s);
/* The rest, once aBody is known: a = der(v), Fhomotopy, FBody. */
void slekq_finish(const SlekqParameters *p, const SlekqInputs *u, double aBody, SlekqState *s);

/* Parameters of the SLEKQ instance whose flattened stem is P (e.g. corner, cornerFL; a top-level
 * SLEKQ uses the macros with an empty-prefix variant written out in SLEKQ.c). */
#define SLEKQ_PARAMETERS(P)                                                                    \
    ((SlekqParameters){SLEKQ_CORNER_DATA(P##_data), R(P##_side), B(P##_pathInertia), R(P##_g), \
                       R(P##_NI), R(P##_NP), R(P##_ND), R(P##_Lfree), R(P##_m)})

/* Store the variables of SLEKQ instance P that the FMU exposes (its inputs, outputs and der()). */
#define SLEKQ_STORE(P, u, s)                                                                     \
    do {                                                                                         \
        R(P##_FZ) = (u).FZ; R(P##_aBody) = (s).aBody; R(P##_lambda) = (u).lambda;                \
        R(P##_GI) = (u).GI; R(P##_GP) = (u).GP; R(P##_GD) = (u).GD;                              \
        R(P##_zRef) = (u).zRef; R(P##_vRef) = (u).vRef; R(P##_aRef) = (u).aRef;                  \
        R(P##_a) = (s).a; R(P##_L) = (s).L; R(P##_dLdz) = (s).dLdz; R(P##_dL) = (s).dL;          \
        R(P##_vStrut) = (s).vStrut; R(P##_Fspring) = (s).Fspring; R(P##_Fdamper) = (s).Fdamper;  \
        R(P##_Q) = (s).Q; R(P##_Fhomotopy) = (s).Fhomotopy; R(P##_FBody) = (s).FBody;            \
        R(P##_FBody0) = (s).FBody0; R(P##_mu) = (s).mu; R(P##_camber) = (s).camber;             \
        R(P##_toe) = (s).toe; R(P##_rotY) = (s).rotY; R(P##_xWheel) = (s).xWheel;                \
        R(P##_yWheel) = (s).yWheel;                                                              \
        DER(P##_z) = (u).v; DER(P##_v) = (s).a;                                                  \
    } while (0)

/* The exposed variable names of SLEKQ instance "prefix" (a string literal such as "corner."), for
 * MODEL_LOCALS. */
#define SLEKQ_LOCAL_NAMES(prefix)                                                                 \
    prefix "FZ", prefix "aBody", prefix "lambda", prefix "GI", prefix "GP", prefix "GD",          \
    prefix "zRef", prefix "vRef", prefix "aRef", prefix "a", prefix "L", prefix "dLdz",           \
    prefix "dL", prefix "vStrut", prefix "Fspring", prefix "Fdamper", prefix "Q",                 \
    prefix "Fhomotopy", prefix "FBody", prefix "FBody0", prefix "mu", prefix "camber",            \
    prefix "toe", prefix "rotY", prefix "xWheel", prefix "yWheel"

#endif
