/* Native physics of VehicleRTM.ADAS.AdaptiveCruise: constant-time-gap adaptive cruise control
 * (the equations of AdaptiveCruise.mo). Input speed; states gap, gapErrorIntegral; outputs throttle,
 * brakePedal, leadSpeed, gap, desiredGap, accelerationDemand. */
#include <stddef.h>

#include "model.h"
#include "model_support.h"

const char *const MODEL_LOCALS[] = {NULL};

static double clamp01(double x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

void model_calculated_parameters(ModelInstance *m)
{
    if (!(R(leadChangeDuration) > 0))
        model_error(m, "leadChangeDuration = %g s: the lead vehicle's speed change needs a duration > 0",
                    R(leadChangeDuration));
    if (!(R(integralGain) != 0))
        model_error(m, "integralGain = %g: must be non-zero (the integral starts at initialDemand/integralGain)",
                    R(integralGain));
}

void model_initial_states(ModelInstance *m)
{
    R(gap) = R(initialGap);
    R(gapErrorIntegral) = R(initialDemand) / R(integralGain);
}

void model_outputs_and_derivatives(ModelInstance *m)
{
    const double ramp = (m->time - R(leadChangeStart)) / R(leadChangeDuration);
    R(leadSpeed) = R(leadInitialSpeed) + (R(leadFinalSpeed) - R(leadInitialSpeed)) * clamp01(ramp);
    R(desiredGap) = R(standstillGap) + R(timeGap) * R(speed);
    R(accelerationDemand) = R(gapGain) * (R(gap) - R(desiredGap)) + R(speedGain) * (R(leadSpeed) - R(speed))
                            + R(integralGain) * R(gapErrorIntegral);
    R(throttle) = clamp01(R(accelerationDemand) / R(throttleAcceleration));
    R(brakePedal) = clamp01(-R(accelerationDemand) / R(brakeDeceleration));
    DER(gap) = R(leadSpeed) - R(speed);
    DER(gapErrorIntegral) = R(gap) - R(desiredGap);
}

void model_discrete_update(ModelInstance *m)
{
    (void)m;    /* no when-clauses */
}
