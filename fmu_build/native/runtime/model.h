/* Contract between the shared FMI 2.0 wrapper (fmi2_wrapper.c) and one model's C file.
 *
 * The build generates "model_variables.h" from rumoca's flattening of the Modelica class: value
 * references (VR_/VI_/VB_<stem>), array sizes (DIM_<stem>_<axis>), start values, and the value
 * references of the states and their derivatives. <stem> is the flattened name with '.' replaced
 * by '_' (arrays: the stem addresses element 1, row-major), der(x.y) becomes der_x_y.
 *
 * A model file implements the six functions below and lists the flattened names of any extra
 * variables it computes (beyond outputs and derivatives) in MODEL_LOCALS. It never allocates:
 * everything lives in the fixed-size ModelInstance, which the wrapper copies for FMU states.
 */
#ifndef VEHICLERTM_MODEL_H
#define VEHICLERTM_MODEL_H

#include "model_variables.h"

typedef struct ModelInstance {
    double time;
    double r[N_REALS];      /* Real variables by value reference */
    int i[N_INTEGERS];      /* Integer variables by value reference */
    int b[N_BOOLEANS];      /* Boolean variables by value reference (0/1) */
} ModelInstance;

#define R(stem) (m->r[VR_##stem])
#define RA(stem) (&m->r[VR_##stem])
#define I(stem) (m->i[VI_##stem])
#define IA(stem) (&m->i[VI_##stem])
#define B(stem) (m->b[VB_##stem])
#define DER(stem) (m->r[VR_der_##stem])
#define DERA(stem) (&m->r[VR_der_##stem])

/* Calculated parameters (final / dependent parameters) from the parameters. */
void model_calculated_parameters(ModelInstance *m);
/* States and discrete variables at the start time (after parameters are final). */
void model_initial_states(ModelInstance *m);
/* Outputs, locals and state derivatives from time, states, inputs and parameters. */
void model_outputs_and_derivatives(ModelInstance *m);
/* The state derivatives only (an intermediate integrator stage): computes what they need and may
 * leave outputs and locals stale until the next model_outputs_and_derivatives. */
void model_derivatives(ModelInstance *m);
/* Discrete updates (when-clauses), called after every accepted step with outputs up to date. */
void model_discrete_update(ModelInstance *m);

/* Flattened names of extra computed variables exposed as FMU locals; NULL-terminated. */
extern const char *const MODEL_LOCALS[];

#endif
