/* VehicleRTM.QuarterCars.KCRig: the body fixed, a vertical force FZ at the contact patch of one SLEKQ
 * corner (corner.aBody = 0); the homotopy inputs pass through to the corner. */
#include "model.h"
#include "model_support.h"
#include "common/slekq_corner.h"

SLEKQ_CHECK_LAYOUT(corner_data);

const char *const MODEL_LOCALS[] = {SLEKQ_LOCAL_NAMES("corner."), NULL};

void model_calculated_parameters(ModelInstance *m)
{
    /* corner.data, corner.g, corner.z0, ... are aliases of the rig's parameters (applied by the
     * wrapper); corner.FDesign = corner.data.mSprung*corner.g is SLEKQ's own binding */
    BINDING(corner_FDesign, R(corner_data_mSprung) * R(corner_g));
    if (!(R(corner_data_k1) > 0))
        model_error(m, "corner.data.k1 = %g: the linear spring rate must be > 0", R(corner_data_k1));
    slekq_calculated_parameters(SLEKQ_CORNER_DATA(corner_data), R(corner_FDesign), R(corner_side),
                                B(corner_freeLengthFromLoad), &R(corner_Lfree), &R(corner_m));
}

void model_initial_states(ModelInstance *m)
{
    R(corner_z) = R(corner_z0);
    R(corner_v) = R(corner_v0);
}

void model_outputs_and_derivatives(ModelInstance *m)
{
    const SlekqParameters p = SLEKQ_PARAMETERS(corner);
    const SlekqInputs u = {R(corner_z), R(corner_v), R(FZ), R(lambda), R(GI), R(GP), R(GD), R(zRef), R(vRef), R(aRef)};
    SlekqState s;
    slekq_evaluate(&p, &u, &s);
    slekq_finish(&p, &u, 0.0, &s);
    SLEKQ_STORE(corner, u, s);
    R(z) = R(corner_z);
    R(v) = R(corner_v);
    R(a) = s.a;
}

void model_discrete_update(ModelInstance *m)
{
    (void)m; /* no when-clauses */
}
