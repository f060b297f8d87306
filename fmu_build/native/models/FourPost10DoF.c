/* VehicleRTM.Vehicles.FourPost10DoF: rigid body (heave, roll, pitch) on four SLEKQ corners, each on a
 * linear tyre spring and damper (no tension) standing on a post whose height is an input. The body
 * accelerations are solved explicitly with the corner coupling masses (Cramer's rule), as in the
 * Modelica model. */
#include <math.h>

#include "model.h"
#include "model_support.h"
#include "common/slekq_corner.h"

SLEKQ_CHECK_LAYOUT(dataFront);
SLEKQ_CHECK_LAYOUT(dataRear);
SLEKQ_CHECK_LAYOUT(cornerFL_data);
SLEKQ_CHECK_LAYOUT(cornerFR_data);
SLEKQ_CHECK_LAYOUT(cornerRL_data);
SLEKQ_CHECK_LAYOUT(cornerRR_data);
_Static_assert(DIM_x_1 == 4 && DIM_y_1 == 4 && DIM_delta0_1 == 4 && DIM_zPost_1 == 4 && DIM_vPost_1 == 4 &&
               DIM_zWheel_1 == 4 && DIM_FTyre_1 == 4 && DIM_zBody_1 == 4 && DIM_vBody_1 == 4 && DIM_aBody_1 == 4,
               "FourPost10DoF: four corners expected");

const char *const MODEL_LOCALS[] = {
    "aRoll", "aPitch", "zBody", "vBody", "aBody",
    SLEKQ_LOCAL_NAMES("cornerFL."), SLEKQ_LOCAL_NAMES("cornerFR."),
    SLEKQ_LOCAL_NAMES("cornerRL."), SLEKQ_LOCAL_NAMES("cornerRR."),
    NULL};

#define CORNER_PARAMETERS(P)                                                       \
    do {                                                                           \
        if (!(R(P##_data_k1) > 0))                                                 \
            model_error(m, #P ".data.k1 = %g: the linear spring rate must be > 0", \
                        R(P##_data_k1));                                           \
        slekq_calculated_parameters(SLEKQ_CORNER_DATA(P##_data), R(P##_FDesign),   \
                                    R(P##_side), B(P##_freeLengthFromLoad),        \
                                    &R(P##_Lfree), &R(P##_m));                     \
    } while (0)

void model_calculated_parameters(ModelInstance *m)
{
    double *x = RA(x), *y = RA(y), *delta0 = RA(delta0);
    const double g = R(g);
    R(b) = R(body_wheelbase) - R(body_a);
    x[0] = R(body_a);
    x[1] = R(body_a);
    x[2] = -R(b);
    x[3] = -R(b);
    y[0] = R(body_trackFront) / 2;
    y[1] = -R(body_trackFront) / 2;
    y[2] = R(body_trackRear) / 2;
    y[3] = -R(body_trackRear) / 2;
    R(FSprungFront) = R(body_m) * g * R(b) / (2 * R(body_wheelbase));
    R(FSprungRear) = R(body_m) * g * R(body_a) / (2 * R(body_wheelbase));
    delta0[0] = (R(FSprungFront) + R(dataFront_mUnsprung) * g) / R(dataFront_cTyre);
    delta0[1] = (R(FSprungFront) + R(dataFront_mUnsprung) * g) / R(dataFront_cTyre);
    delta0[2] = (R(FSprungRear) + R(dataRear_mUnsprung) * g) / R(dataRear_cTyre);
    delta0[3] = (R(FSprungRear) + R(dataRear_mUnsprung) * g) / R(dataRear_cTyre);
    /* cornerXX.FDesign = FSprungFront / FSprungRear (bindings to final parameters) */
    BINDING(cornerFL_FDesign, R(FSprungFront));
    BINDING(cornerFR_FDesign, R(FSprungFront));
    BINDING(cornerRL_FDesign, R(FSprungRear));
    BINDING(cornerRR_FDesign, R(FSprungRear));
    CORNER_PARAMETERS(cornerFL);
    CORNER_PARAMETERS(cornerFR);
    CORNER_PARAMETERS(cornerRL);
    CORNER_PARAMETERS(cornerRR);
}

void model_initial_states(ModelInstance *m)
{
    R(heave) = R(heave0);
    R(roll) = R(roll0);
    R(pitch) = R(pitch0);
    R(vHeave) = 0;
    R(vRoll) = 0;
    R(vPitch) = 0;
    R(cornerFL_z) = R(cornerFL_z0);
    R(cornerFL_v) = R(cornerFL_v0);
    R(cornerFR_z) = R(cornerFR_z0);
    R(cornerFR_v) = R(cornerFR_v0);
    R(cornerRL_z) = R(cornerRL_z0);
    R(cornerRL_v) = R(cornerRL_v0);
    R(cornerRR_z) = R(cornerRR_z0);
    R(cornerRR_v) = R(cornerRR_v0);
}

void model_outputs_and_derivatives(ModelInstance *m)
{
    const double *x = RA(x), *y = RA(y), *delta0 = RA(delta0), *zPost = RA(zPost), *vPost = RA(vPost);
    double *zBody = RA(zBody), *vBody = RA(vBody), *aBody = RA(aBody), *zWheel = RA(zWheel), *FTyre = RA(FTyre);
    const SlekqParameters p[4] = {SLEKQ_PARAMETERS(cornerFL), SLEKQ_PARAMETERS(cornerFR),
                                  SLEKQ_PARAMETERS(cornerRL), SLEKQ_PARAMETERS(cornerRR)};
    SlekqInputs u[4] = {{R(cornerFL_z), R(cornerFL_v), 0, 0, 0, 0, 0, 0, 0, 0},
                        {R(cornerFR_z), R(cornerFR_v), 0, 0, 0, 0, 0, 0, 0, 0},
                        {R(cornerRL_z), R(cornerRL_v), 0, 0, 0, 0, 0, 0, 0, 0},
                        {R(cornerRR_z), R(cornerRR_v), 0, 0, 0, 0, 0, 0, 0, 0}};
    const double cTyre[4] = {R(dataFront_cTyre), R(dataFront_cTyre), R(dataRear_cTyre), R(dataRear_cTyre)};
    const double dTyre[4] = {R(dataFront_dTyre), R(dataFront_dTyre), R(dataRear_dTyre), R(dataRear_dTyre)};
    SlekqState s[4];
    double FB0[4], mu[4];
    double M11, M12, M13, M22, M23, M33, f1, f2, f3, A11, A12, A13, A22, A23, A33, detM;
    double aHeave, aRoll, aPitch;
    int i;

    /* body kinematics at the wheel centres (small roll and pitch) */
    for (i = 0; i < 4; i++) {
        zBody[i] = R(heave) + y[i] * R(roll) - x[i] * R(pitch);
        vBody[i] = R(vHeave) + y[i] * R(vRoll) - x[i] * R(vPitch);
    }
    /* tyres: linear spring and damper between post and wheel centre, no tension */
    for (i = 0; i < 4; i++) {
        zWheel[i] = u[i].z;
        FTyre[i] = fmax(0, cTyre[i] * (delta0[i] + zPost[i] - zBody[i] - u[i].z) +
                               dTyre[i] * (vPost[i] - vBody[i] - u[i].v));
        u[i].FZ = FTyre[i];
        slekq_evaluate(&p[i], &u[i], &s[i]);
        FB0[i] = s[i].FBody0;
        mu[i] = s[i].mu;
    }
    /* body: heave, roll, pitch with the corner coupling masses, Cramer's rule */
    M11 = R(body_m) + (mu[0] + mu[1] + mu[2] + mu[3]);
    M12 = M13 = M23 = 0;
    M22 = M33 = 0;
    f1 = f2 = f3 = 0;
    for (i = 0; i < 4; i++) {
        M12 += mu[i] * y[i];
        M13 -= mu[i] * x[i];
        M22 += mu[i] * y[i] * y[i];
        M23 -= mu[i] * x[i] * y[i];
        M33 += mu[i] * x[i] * x[i];
        f1 += FB0[i];
        f2 += y[i] * FB0[i];
        f3 -= x[i] * FB0[i];
    }
    M22 += R(body_Ixx);
    M33 += R(body_Iyy);
    f1 -= R(body_m) * R(g);
    A11 = M22 * M33 - M23 * M23;
    A12 = M13 * M23 - M12 * M33;
    A13 = M12 * M23 - M13 * M22;
    A22 = M11 * M33 - M13 * M13;
    A23 = M12 * M13 - M11 * M23;
    A33 = M11 * M22 - M12 * M12;
    detM = M11 * A11 + M12 * A12 + M13 * A13;
    aHeave = (A11 * f1 + A12 * f2 + A13 * f3) / detM;
    aRoll = (A12 * f1 + A22 * f2 + A23 * f3) / detM;
    aPitch = (A13 * f1 + A23 * f2 + A33 * f3) / detM;
    for (i = 0; i < 4; i++) {
        aBody[i] = aHeave + y[i] * aRoll - x[i] * aPitch;
        slekq_finish(&p[i], &u[i], aBody[i], &s[i]);
    }
    SLEKQ_STORE(cornerFL, u[0], s[0]);
    SLEKQ_STORE(cornerFR, u[1], s[1]);
    SLEKQ_STORE(cornerRL, u[2], s[2]);
    SLEKQ_STORE(cornerRR, u[3], s[3]);
    R(aHeave) = aHeave;
    R(aRoll) = aRoll;
    R(aPitch) = aPitch;
    DER(heave) = R(vHeave);
    DER(roll) = R(vRoll);
    DER(pitch) = R(vPitch);
    DER(vHeave) = aHeave;
    DER(vRoll) = aRoll;
    DER(vPitch) = aPitch;
}

void model_discrete_update(ModelInstance *m)
{
    (void)m; /* no when-clauses */
}
