/* VehicleRTM.Examples.QuarterCarFreeVibration: sprung quarter mass on a SLEKQ corner and a linear tyre
 * (no tension) on fixed ground, released from an offset. No inputs: the FMU is the example itself. */
#include <math.h>

#include "model.h"
#include "model_support.h"
#include "common/slekq_corner.h"

SLEKQ_CHECK_LAYOUT(data);
SLEKQ_CHECK_LAYOUT(corner_data);

const char *const MODEL_LOCALS[] = {"aBody", "zWheel", "FTyre", SLEKQ_LOCAL_NAMES("corner."), NULL};

void model_calculated_parameters(ModelInstance *m)
{
    /* mBody = data.mSprung and corner.data = data are aliases (applied by the wrapper) */
    BINDING(corner_FDesign, R(mBody) * R(g));
    BINDING(corner_z0, R(zWheel0) - R(zBody0));
    R(delta0) = (R(mBody) + R(data_mUnsprung)) * R(g) / R(data_cTyre);
    if (!(R(corner_data_k1) > 0))
        model_error(m, "corner.data.k1 = %g: the linear spring rate must be > 0", R(corner_data_k1));
    slekq_calculated_parameters(SLEKQ_CORNER_DATA(corner_data), R(corner_FDesign), R(corner_side),
                                B(corner_freeLengthFromLoad), &R(corner_Lfree), &R(corner_m));
}

void model_initial_states(ModelInstance *m)
{
    R(corner_z) = R(corner_z0);
    R(corner_v) = R(corner_v0);
    R(zBody) = R(zBody0);
    R(vBody) = 0;
}

void model_outputs_and_derivatives(ModelInstance *m)
{
    const SlekqParameters p = SLEKQ_PARAMETERS(corner);
    SlekqInputs u = {R(corner_z), R(corner_v), 0, 0, 0, 0, 0, 0, 0, 0};
    SlekqState s;
    double aBody;
    R(zWheel) = R(zBody) + R(corner_z);
    R(FTyre) = fmax(0, R(data_cTyre) * (R(delta0) - R(zWheel)) - R(data_dTyre) * (R(vBody) + R(corner_v)));
    u.FZ = R(FTyre);
    slekq_evaluate(&p, &u, &s);
    /* mBody*aBody = FBody - mBody*g with FBody = FBody0 - mu*aBody, solved explicitly */
    aBody = (s.FBody0 - R(mBody) * R(g)) / (R(mBody) + s.mu);
    slekq_finish(&p, &u, aBody, &s);
    SLEKQ_STORE(corner, u, s);
    R(aBody) = aBody;
    DER(zBody) = R(vBody);
    DER(vBody) = aBody;
}

void model_discrete_update(ModelInstance *m)
{
    (void)m; /* no when-clauses */
}
