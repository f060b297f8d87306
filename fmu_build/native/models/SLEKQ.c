/* VehicleRTM.QuarterCars.SLEKQ: the single-link equivalent kinematic quarter-car on its own, every
 * input an FMU input (FZ, aBody and the homotopy inputs of Eq. 5). The equations are those of
 * common/slekq_corner.c; this file binds them to the top-level variables. */
#include "model.h"
#include "model_support.h"
#include "common/slekq_corner.h"

SLEKQ_CHECK_LAYOUT(data);

/* Every variable of SLEKQ is an input, an output or a state: nothing else to expose. */
const char *const MODEL_LOCALS[] = {NULL};

void model_calculated_parameters(ModelInstance *m)
{
    /* parameter FDesign = data.mSprung*g (unless the importer set it) */
    BINDING(FDesign, R(data_mSprung) * R(g));
    if (!(R(data_k1) > 0))
        model_error(m, "data.k1 = %g: the linear spring rate must be > 0", R(data_k1));
    slekq_calculated_parameters(SLEKQ_CORNER_DATA(data), R(FDesign), R(side), B(freeLengthFromLoad),
                                &R(Lfree), &R(m));
}

void model_initial_states(ModelInstance *m)
{
    R(z) = R(z0);
    R(v) = R(v0);
}

void model_outputs_and_derivatives(ModelInstance *m)
{
    const SlekqParameters p = {SLEKQ_CORNER_DATA(data), R(side), B(pathInertia), R(g), R(NI), R(NP), R(ND),
                               R(Lfree), R(m)};
    const SlekqInputs u = {R(z), R(v), R(FZ), R(lambda), R(GI), R(GP), R(GD), R(zRef), R(vRef), R(aRef)};
    SlekqState s;
    slekq_evaluate(&p, &u, &s);
    slekq_finish(&p, &u, R(aBody), &s);
    R(a) = s.a;
    R(L) = s.L;
    R(dLdz) = s.dLdz;
    R(dL) = s.dL;
    R(vStrut) = s.vStrut;
    R(Fspring) = s.Fspring;
    R(Fdamper) = s.Fdamper;
    R(Q) = s.Q;
    R(Fhomotopy) = s.Fhomotopy;
    R(FBody) = s.FBody;
    R(FBody0) = s.FBody0;
    R(mu) = s.mu;
    R(camber) = s.camber;
    R(toe) = s.toe;
    R(rotY) = s.rotY;
    R(xWheel) = s.xWheel;
    R(yWheel) = s.yWheel;
    DER(z) = R(v);
    DER(v) = s.a;
}

void model_discrete_update(ModelInstance *m)
{
    (void)m; /* no when-clauses */
}
