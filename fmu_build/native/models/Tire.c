/* Native physics of VehicleRTM.Tires.Tire: the Magic Formula tyre with first-order slip
 * relaxation (the equations of Tire.mo, through common/mf.c). Inputs Fz, vx, vy, omega, gamma;
 * states kappa, tanAlpha; outputs Fx, Fy, Mz, My, Mx, Re, kappa, alpha, FxSlip, FySlip. */
#include "model.h"
#include "common/mf.h"

MF_CHECK_LAYOUT(c)

const char *const MODEL_LOCALS[] = {"sigmaKappa", "sigmaAlpha", "damping", NULL};

void model_calculated_parameters(ModelInstance *m)
{
    (void)m;    /* Tire has no final or dependent parameters */
}

void model_initial_states(ModelInstance *m)
{
    R(kappa) = 0;       /* kappa(start = 0, fixed = true) */
    R(tanAlpha) = 0;    /* tanAlpha(start = 0, fixed = true) */
}

void model_outputs_and_derivatives(ModelInstance *m)
{
    const TireInputs in = {R(Fz), R(vx), R(vy), R(omega), R(gamma), R(kappa), R(tanAlpha)};
    TireOutputs out;
    mf_tire(MF_RECORD(m, c), MF_VERSION(m, c), R(sigmaMin), R(lowSpeedDamping), &in, &out);
    R(Fx) = out.Fx;
    R(Fy) = out.Fy;
    R(Mz) = out.Mz;
    R(My) = out.My;
    R(Mx) = out.Mx;
    R(Re) = out.Re;
    R(alpha) = out.alpha;
    R(sigmaKappa) = out.sigmaKappa;
    R(sigmaAlpha) = out.sigmaAlpha;
    R(damping) = out.damping;
    R(FxSlip) = out.FxSlip;
    R(FySlip) = out.FySlip;
    DER(kappa) = out.der_kappa;
    DER(tanAlpha) = out.der_tanAlpha;
}

void model_discrete_update(ModelInstance *m)
{
    (void)m;    /* no when-clauses */
}
