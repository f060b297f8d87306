/* FMI 2.0 wrapper shared by every native VehicleRTM FMU: Model Exchange and Co-Simulation in one binary.
 *
 * The model's C file implements the contract of model.h; this file implements the FMI 2.0 API around
 * it. The build generates two headers next to it: model_variables.h (value references, sizes and
 * start values from rumoca's flattening) and fmu_info.h (GUID, causality of each value reference,
 * internal step size, names for messages).
 *
 * Model Exchange: no event indicators (numberOfEventIndicators = 0). The model's when-clauses
 * (model_discrete_update) are evaluated at fmi2CompletedIntegratorStep, i.e. after every accepted
 * integrator step, not at located state events.
 *
 * Co-Simulation: fmi2DoStep integrates with the build's --integrator (FMU_INTEGRATOR: IMEX2, the two-step
 * Adams-Bashforth method with the stiff states by linearly implicit BDF2 (imex2_step); Heun's explicit
 * trapezoidal rule, the classic fourth-order Runge-Kutta method, or the plain two-step Adams-Bashforth method) at the
 * fixed internal step of the parameter fixedStepSize (default: the build's --step option, FMU_FIXED_STEP);
 * a communication step longer than that is
 * split into substeps, the last one shortened so that the communication point is hit exactly.
 * Inputs are held constant over a communication step, or interpolated linearly when the importer gives
 * their first derivatives (fmi2SetRealInputDerivatives, canInterpolateInputs = true; fmi2SetReal of
 * an input resets its derivative to zero). model_discrete_update runs after every internal step; when
 * it changes a discrete value or a state (a when-clause fired, a discrete equation changed value), the
 * step is undone and the first time of that change is located by bisection, re-integrating from the
 * last point before it, to 1/4096 of the step (locate_event); the update is made there and the step
 * continues to its end. Nothing is allocated in fmi2DoStep: all the work arrays live in the instance;
 * the location keeps nothing across calls, so FMU states and fmi2Reset are not concerned.
 *
 * Parameters are causality="parameter", variability="fixed": they may be set after instantiation and
 * in initialization mode; fmi2ExitInitializationMode evaluates model_calculated_parameters (every
 * parameter binding, unless the importer set that parameter), model_initial_states and
 * model_outputs_and_derivatives, in that order.
 *
 * FMU states (fmi2GetFMUstate and friends) are copies of the instance's core (ModelInstance, the
 * "set by the importer" flags and the mode); serialization is a byte copy with a GUID header.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "model.h"
#include "model_support.h"
#include "fmu_info.h"

/* ---- instance --------------------------------------------------------------------------------- */

enum {
    MODE_INSTANTIATED = 1 << 0,
    MODE_INITIALIZATION = 1 << 1,
    MODE_EVENT = 1 << 2,
    MODE_CONTINUOUS = 1 << 3,
    MODE_STEP_COMPLETE = 1 << 4,
    MODE_TERMINATED = 1 << 5,
    MODE_ERROR = 1 << 6
};

#define STATE_ARRAY (N_STATES > 0 ? N_STATES : 1)
#define INPUT_ARRAY (N_INPUT_REAL > 0 ? N_INPUT_REAL : 1)
/* Co-Simulation integrators; fmu_info.h's FMU_INTEGRATOR names the build's (native_backend.INTEGRATOR_METHODS) */
#define FMU_INTEGRATOR_RK4 0
#define FMU_INTEGRATOR_HEUN 1
#define FMU_INTEGRATOR_AB2 2
#define FMU_INTEGRATOR_IMEX2 3
/* Internal step of the Co-Simulation integrator: the FMU parameter fixedStepSize. */
#define FIXED_STEP(m) ((m)->r[VR_fixedStepSize])

/* Everything an FMU state holds. ModelInstance first, so that a ModelInstance pointer given to the
 * model is also a pointer to its core and to its Component. */
typedef struct Core {
    ModelInstance m;
    unsigned char set_r[N_REALS];     /* parameter set by the importer since instantiation / reset */
    unsigned char set_i[N_INTEGERS];
    unsigned char set_b[N_BOOLEANS];
    int mode;
    int dirty;                        /* outputs and derivatives must be recomputed */
    double start_time;
    /* Co-Simulation input interpolation: first derivatives of the Real inputs set by
     * fmi2SetRealInputDerivatives; fmi2SetReal of an input resets its derivative to 0 */
    double input_der[N_INPUT_REAL > 0 ? N_INPUT_REAL : 1];
    int any_input_der;
    /* Adams-Bashforth 2 (FMU_INTEGRATOR_AB2): the derivatives at the previous step point and the length
     * of the step since; history == 0 (after initialization, reset, or a discrete change of the
     * model) restarts the method with one Heun step */
    int history;
    double h_prev;
    double f_prev[STATE_ARRAY];
    /* A Real input set to a new value since the last evaluation (with a history): the derivatives
     * before the jump; the next evaluation shifts f_prev by the jump of the derivatives, so the
     * multistep methods continue across held-input jumps without a restart */
    int inputs_jumped;
    double f_before_jump[STATE_ARRAY];
    /* The input Jacobian of the step start after a jump (input_jacobian.h): the Real inputs before the
     * jump, a column d f / d u_i per input, the jump it was measured with (0: none) and when; the
     * derivatives in the instance are predicted ones; an Integer or Boolean input changed (no prediction) */
    double u_before_jump[INPUT_ARRAY];
    double jac[INPUT_ARRAY][STATE_ARRAY];
    double jac_du[INPUT_ARRAY];
    double jac_time[INPUT_ARRAY];
    int f_predicted;
    int other_input_changed;
    /* IMEX2 (FMU_INTEGRATOR_IMEX2, imex2_step), besides the AB2 history above */
    double x_prev[STATE_ARRAY];       /* the states at the previous step point */
    double dx_prev[STATE_ARRAY];      /* x_prev - the states one step before (0 after a restart) */
    double stiff_d[STATE_ARRAY];      /* measured d f_j / d x_j of a state integrated implicitly, else 0 */
    unsigned char suspect[STATE_ARRAY];    /* steps in a row that looked stiff (detect_stiff_states) */
    unsigned short cooldown[STATE_ARRAY];  /* steps before a false suspect is tested again */
    int n_stiff;                      /* states with stiff_d != 0 */
    int since_measure;                /* steps since the last measurement of stiff_d */
    int diagonal_measured;            /* the whole diagonal, at the first step after initialization */
} Core;

typedef struct Component {
    Core core;                        /* must stay the first member */
    int model_failed;                 /* set by model_error during a model call */
    fmi2Type type;
    int logging_on;
    char *name;
    fmi2CallbackFunctions cb;
    /* work arrays of fmi2DoStep and of the discrete-change test (no allocation while stepping); every
     * integrator step leaves the states it started from in x0 (the restart point of locate_event) */
    double x0[STATE_ARRAY];
    double acc[STATE_ARRAY];
    double snap_x[STATE_ARRAY];
    int snap_i[N_INTEGERS];
    int snap_b[N_BOOLEANS];
    double snap_r[N_DISCRETE_REAL > 0 ? N_DISCRETE_REAL : 1];
    double input_start[N_INPUT_REAL > 0 ? N_INPUT_REAL : 1];   /* inputs at the communication point */
    unsigned char jac_todo[INPUT_ARRAY];   /* input_jacobian.h: per input 0 unchanged, 1 predict, 2 measure */
    double jac_u_new[INPUT_ARRAY];
    /* state-event location in fmi2DoStep (locate_event): the latest point known to be before the
     * event (its states; the discrete values, unchanged since the step's start) */
    double ev_x[STATE_ARRAY];
    int ev_i[N_INTEGERS];
    int ev_b[N_BOOLEANS];
    double ev_r[N_DISCRETE_REAL > 0 ? N_DISCRETE_REAL : 1];
} Component;

#define SERIAL_MAGIC 0x564d5254u /* "VMRT" */

typedef struct SerialHeader {
    unsigned int magic;
    unsigned int size;
    char guid[64];
} SerialHeader;

/* ---- logging ---------------------------------------------------------------------------------- */

static void vlog(Component *c, fmi2Status status, const char *category, const char *format, va_list args)
{
    char message[1024];
    size_t k, j = 0;
    char escaped[2 * sizeof(message)];
    if (!c || !c->cb.logger)
        return;
    if (status == fmi2OK && !c->logging_on)
        return;
    vsnprintf(message, sizeof(message), format, args);
    /* the importer may treat the message as a printf format: escape '%' */
    for (k = 0; message[k] && j + 2 < sizeof(escaped); k++) {
        if (message[k] == '%')
            escaped[j++] = '%';
        escaped[j++] = message[k];
    }
    escaped[j] = '\0';
    c->cb.logger(c->cb.componentEnvironment, c->name ? c->name : "?", status, category, escaped);
}

static void log_error(Component *c, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vlog(c, fmi2Error, "logStatusError", format, args);
    va_end(args);
}

static void log_info(Component *c, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vlog(c, fmi2OK, "logEvents", format, args);
    va_end(args);
}

void model_error(ModelInstance *m, const char *format, ...)
{
    Component *c = (Component *)m;
    va_list args;
    va_start(args, format);
    vlog(c, fmi2Error, "logStatusError", format, args);
    va_end(args);
    c->model_failed = 1;
}

void model_log(ModelInstance *m, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vlog((Component *)m, fmi2OK, "logEvents", format, args);
    va_end(args);
}

int model_real_was_set(const ModelInstance *m, unsigned int vr)
{
    return vr < N_REALS && ((const Core *)m)->set_r[vr];
}

int model_integer_was_set(const ModelInstance *m, unsigned int vr)
{
    return vr < N_INTEGERS && ((const Core *)m)->set_i[vr];
}

int model_boolean_was_set(const ModelInstance *m, unsigned int vr)
{
    return vr < N_BOOLEANS && ((const Core *)m)->set_b[vr];
}

/* ---- helpers ---------------------------------------------------------------------------------- */

static const char *kind_name(int kind)
{
    switch (kind) {
    case KIND_PARAMETER: return "a parameter";
    case KIND_CALCULATED: return "a calculated parameter";
    case KIND_INPUT: return "an input";
    case KIND_OUTPUT: return "an output";
    case KIND_STATE: return "a continuous state";
    case KIND_DERIVATIVE: return "a state derivative";
    case KIND_LOCAL: return "a local variable";
    default: return "not a variable of this FMU";
    }
}

static const char *mode_name(int mode)
{
    switch (mode) {
    case MODE_INSTANTIATED: return "instantiated";
    case MODE_INITIALIZATION: return "initialization mode";
    case MODE_EVENT: return "event mode";
    case MODE_CONTINUOUS: return "continuous-time mode";
    case MODE_STEP_COMPLETE: return "step complete";
    case MODE_TERMINATED: return "terminated";
    default: return "error";
    }
}

/* Guard at the top of every API function: a valid instance in one of the allowed modes. */
static int allowed(Component *c, const char *function, int modes)
{
    if (!c)
        return 0;
    if (!(c->core.mode & modes)) {
        log_error(c, "%s must not be called when the FMU is %s", function, mode_name(c->core.mode));
        c->core.mode = MODE_ERROR;
        return 0;
    }
    return 1;
}

static fmi2Status fail(Component *c)
{
    c->core.mode = MODE_ERROR;
    return fmi2Error;
}

static void load_start_values(Core *core)
{
    int k;
    memset(core, 0, sizeof(*core));
    for (k = 0; k < N_REALS; k++)
        core->m.r[k] = START_REAL[k];
    for (k = 0; k < N_INTEGERS; k++)
        core->m.i[k] = (int)START_INTEGER[k];
    for (k = 0; k < N_BOOLEANS; k++)
        core->m.b[k] = START_BOOLEAN[k] != 0.0;
#ifdef N_PRESET_REAL
    /* An FMU exported with a parameter set baked in (pybridge export): the set's parameters count as
     * set by the importer, so parameters bound to them keep the values the set gave them. */
    for (k = 0; k < N_PRESET_REAL; k++)
        core->set_r[PRESET_REAL[k]] = 1;
    for (k = 0; k < N_PRESET_INTEGER; k++)
        core->set_i[PRESET_INTEGER[k]] = 1;
    for (k = 0; k < N_PRESET_BOOLEAN; k++)
        core->set_b[PRESET_BOOLEAN[k]] = 1;
#endif
    core->mode = MODE_INSTANTIATED;
    core->dirty = 1;
}

/* After held inputs jumped, the multistep history takes the jump of the derivatives just evaluated. */
static void shift_history(Core *core)
{
    if (core->inputs_jumped && core->history) {
        int j;
        for (j = 0; j < N_STATES; j++)
            core->f_prev[j] += core->m.r[DERIVATIVE_VR[j]] - core->f_before_jump[j];
    }
    core->inputs_jumped = 0;
}

/* Outputs, locals and derivatives at the current time, states and inputs. */
static int evaluate(Component *c)
{
    Core *core = &c->core;
    c->model_failed = 0;
    model_outputs_and_derivatives(&core->m);
    core->dirty = 0;
    core->f_predicted = 0;
    core->other_input_changed = 0;
    shift_history(core);
    return !c->model_failed;
}

static int input_jump_derivatives(Component *c);

/* The derivatives where a step starts, after inputs (or parameters) were set since the last evaluation:
 * derivatives only, as every integrator step ends with a full evaluation. The outputs stay stale (dirty)
 * until then. After jumps of Real inputs only, a multistep method takes them from the input Jacobian
 * (input_jacobian.h). */
static int evaluate_step_start(Component *c)
{
    Core *core = &c->core;
    if (core->inputs_jumped && core->history && !core->other_input_changed)
        return input_jump_derivatives(c);
    c->model_failed = 0;
    core->f_predicted = 0;
    core->other_input_changed = 0;
    model_derivatives(&core->m);
    shift_history(core);
    return !c->model_failed;
}

/* The state derivatives only, for an intermediate stage of an integrator step: outputs and locals
 * stay stale (dirty) until the step's last evaluation. */
static int evaluate_derivatives(Component *c)
{
    c->model_failed = 0;
    model_derivatives(&c->core.m);
    c->core.dirty = 1;
    c->core.f_predicted = 0;
    return !c->model_failed;
}

#include "input_jacobian.h"

/* Calculated parameters, initial states, outputs (initialization). */
static int initialize(Component *c)
{
    Core *core = &c->core;
    c->model_failed = 0;
    model_calculated_parameters(&core->m);
    if (c->model_failed)
        return 0;
    model_initial_states(&core->m);
    if (c->model_failed)
        return 0;
    return evaluate(c);
}

/* Bring outputs up to date before a get (initialization mode: the whole initialization). */
static int update(Component *c)
{
    if (!c->core.dirty)
        return 1;
    if (c->core.mode & MODE_INITIALIZATION)
        return initialize(c);
    if (c->core.mode & (MODE_EVENT | MODE_CONTINUOUS | MODE_STEP_COMPLETE | MODE_TERMINATED))
        return evaluate(c);
    return 1; /* instantiated: start values */
}

/* Logs the first state whose value is not finite, else the first whose derivative is not (Co-Simulation: the
 * step diverged): the state that ran away, not the first one its overflow made NaN through a 0*inf. */
static void report_divergence(Component *c)
{
    const ModelInstance *m = &c->core.m;
    int j, pass;
    for (pass = 0; pass < 2; pass++) {
        for (j = 0; j < N_STATES; j++) {
            if (!isfinite(m->r[STATE_VR[j]]) || (pass == 1 && !isfinite(m->r[DERIVATIVE_VR[j]]))) {
                log_error(c, "fmi2DoStep: the simulation diverged at t = %.17g s: %s = %g, its derivative %g",
                          m->time, NAME_REAL[STATE_VR[j]], m->r[STATE_VR[j]], m->r[DERIVATIVE_VR[j]]);
                return;
            }
        }
    }
}

/* model_discrete_update; outputs and derivatives are recomputed when it changed a discrete variable
 * or a state. With ``check_finite`` (a Co-Simulation step) it first refuses, with report_divergence's
 * message, states or derivatives that are not finite: x - x is 0 for a finite x and NaN otherwise, so
 * one sum over the snapshot of the states tells (no branch per state). Returns 0 if the model failed
 * or the check did. */
static int discrete_update(Component *c, int check_finite)
{
    ModelInstance *m = &c->core.m;
    double not_finite = 0.0;
    int k, changed = 0;
    memcpy(c->snap_i, m->i, sizeof(m->i));
    memcpy(c->snap_b, m->b, sizeof(m->b));
    for (k = 0; k < N_DISCRETE_REAL; k++)
        c->snap_r[k] = m->r[DISCRETE_REAL[k]];
    for (k = 0; k < N_STATES; k++) {
        const double x = m->r[STATE_VR[k]], f = m->r[DERIVATIVE_VR[k]];
        c->snap_x[k] = x;
        not_finite += (x - x) + (f - f);
    }
    if (check_finite && not_finite != 0.0) {
        report_divergence(c);
        return 0;
    }
    c->model_failed = 0;
    model_discrete_update(m);
    if (c->model_failed)
        return 0;
    changed = memcmp(c->snap_i, m->i, sizeof(m->i)) != 0 || memcmp(c->snap_b, m->b, sizeof(m->b)) != 0;
    for (k = 0; k < N_DISCRETE_REAL; k++)
        changed |= c->snap_r[k] != m->r[DISCRETE_REAL[k]];
    for (k = 0; k < N_STATES; k++)
        changed |= c->snap_x[k] != m->r[STATE_VR[k]];
    if (changed) {
        c->core.dirty = 1;
        c->core.history = 0;
        memset(c->core.jac_du, 0, sizeof(c->core.jac_du));   /* the input Jacobian is measured again */
    }
    return 1;
}

/* ---- common functions ------------------------------------------------------------------------- */

const char *fmi2GetTypesPlatform(void)
{
    return fmi2TypesPlatform;
}

const char *fmi2GetVersion(void)
{
    return fmi2Version;
}

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    Component *c = (Component *)comp;
    size_t k;
    if (!c)
        return fmi2Error;
    for (k = 0; k < nCategories; k++) {
        /* unknown categories are tolerated (tools pass their own, e.g. "logAll"): all messages are on */
        if (categories[k] && strcmp(categories[k], "logEvents") != 0 && strcmp(categories[k], "logStatusError") != 0)
            log_info(c, "fmi2SetDebugLogging: category '%s' is not one of this FMU's (logEvents, logStatusError)",
                     categories[k]);
    }
    c->logging_on = loggingOn != fmi2False;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn)
{
    Component *c;
    Component tmp;
    (void)fmuResourceLocation;
    (void)visible;
    memset(&tmp, 0, sizeof(tmp));
    if (functions)
        tmp.cb = *functions;
    tmp.name = (char *)(instanceName ? instanceName : "?");
    tmp.logging_on = 1;
    if (!instanceName || !instanceName[0]) {
        log_error(&tmp, "fmi2Instantiate: an instance name is required");
        return NULL;
    }
    if (!fmuGUID || strcmp(fmuGUID, FMU_GUID) != 0) {
        log_error(&tmp, "fmi2Instantiate: GUID %s does not match this FMU's %s (modelDescription.xml and "
                        "binary come from different builds)", fmuGUID ? fmuGUID : "(null)", FMU_GUID);
        return NULL;
    }
    if ((fmuType == fmi2ModelExchange && !FMU_HAS_ME) || (fmuType == fmi2CoSimulation && !FMU_HAS_CS) ||
        (fmuType != fmi2ModelExchange && fmuType != fmi2CoSimulation)) {
        log_error(&tmp, "fmi2Instantiate: this FMU was built without %s (rebuild with --fmi-type me_cs)",
                  fmuType == fmi2ModelExchange ? "Model Exchange" : "Co-Simulation");
        return NULL;
    }
    if (functions && functions->allocateMemory)
        c = (Component *)functions->allocateMemory(1, sizeof(Component));
    else
        c = (Component *)calloc(1, sizeof(Component));
    if (!c) {
        log_error(&tmp, "fmi2Instantiate: out of memory");
        return NULL;
    }
    memset(c, 0, sizeof(*c));
    c->cb = tmp.cb;
    c->type = fmuType;
    c->logging_on = loggingOn != fmi2False;
    {
        size_t n = strlen(instanceName) + 1;
        c->name = (char *)(functions && functions->allocateMemory ? functions->allocateMemory(n, 1) : calloc(n, 1));
        if (c->name)
            memcpy(c->name, instanceName, n);
    }
    load_start_values(&c->core);
    log_info(c, "fmi2Instantiate: %s (%s), internal step %g s", FMU_MODEL_NAME,
             fmuType == fmi2ModelExchange ? "Model Exchange" : "Co-Simulation", FMU_FIXED_STEP);
    return c;
}

void fmi2FreeInstance(fmi2Component comp)
{
    Component *c = (Component *)comp;
    fmi2CallbackFreeMemory release;
    if (!c)
        return;
    release = c->cb.freeMemory;
    if (release) {
        if (c->name)
            release(c->name);
        release(c);
    } else {
        free(c->name);
        free(c);
    }
}

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    Component *c = (Component *)comp;
    (void)toleranceDefined;
    (void)tolerance;
    (void)stopTimeDefined;
    (void)stopTime;
    if (!allowed(c, "fmi2SetupExperiment", MODE_INSTANTIATED))
        return fmi2Error;
    c->core.m.time = startTime;
    c->core.start_time = startTime;
    c->core.dirty = 1;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2EnterInitializationMode", MODE_INSTANTIATED))
        return fmi2Error;
    c->core.mode = MODE_INITIALIZATION;
    c->core.dirty = 1;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component comp)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2ExitInitializationMode", MODE_INITIALIZATION))
        return fmi2Error;
    if (!(FIXED_STEP(&c->core.m) > 0) || !isfinite(FIXED_STEP(&c->core.m))) {
        log_error(c, "fmi2ExitInitializationMode: fixedStepSize must be a positive number of seconds (got %g)",
                  FIXED_STEP(&c->core.m));
        return fail(c);
    }
    if (!initialize(c)) {
        log_error(c, "fmi2ExitInitializationMode: the model could not be initialized");
        return fail(c);
    }
    c->core.mode = c->type == fmi2ModelExchange ? MODE_EVENT : MODE_STEP_COMPLETE;
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component comp)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2Terminate", MODE_EVENT | MODE_CONTINUOUS | MODE_STEP_COMPLETE))
        return fmi2Error;
    c->core.mode = MODE_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component comp)
{
    Component *c = (Component *)comp;
    if (!c)
        return fmi2Error;
    load_start_values(&c->core);
    c->model_failed = 0;
    return fmi2OK;
}

/* ---- getting and setting variables ------------------------------------------------------------ */

#define GET_MODES \
    (MODE_INSTANTIATED | MODE_INITIALIZATION | MODE_EVENT | MODE_CONTINUOUS | MODE_STEP_COMPLETE | MODE_TERMINATED | MODE_ERROR)

static int check_vrs(Component *c, const char *function, const fmi2ValueReference vr[], size_t nvr, unsigned int n,
                     const unsigned char *kinds)
{
    size_t k;
    if (nvr > 0 && !vr) {
        log_error(c, "%s: NULL value reference array", function);
        return 0;
    }
    for (k = 0; k < nvr; k++) {
        if (vr[k] >= n || kinds[vr[k]] == KIND_HIDDEN) {
            log_error(c, "%s: %u is not a value reference of this FMU", function, (unsigned int)vr[k]);
            return 0;
        }
    }
    return 1;
}

/* May the importer set a variable of this kind now (FMI 2.0, section 4.2 / 3.2 state tables)? */
static int settable(Component *c, int kind)
{
    if (kind == KIND_PARAMETER)
        return (c->core.mode & (MODE_INSTANTIATED | MODE_INITIALIZATION)) != 0;
    if (kind == KIND_INPUT)
        return (c->core.mode & (MODE_INSTANTIATED | MODE_INITIALIZATION | MODE_EVENT | MODE_CONTINUOUS |
                                MODE_STEP_COMPLETE)) != 0;
    return 0;
}

static int check_settable(Component *c, const char *function, const fmi2ValueReference vr[], size_t nvr,
                          const unsigned char *kinds, const char *const *names)
{
    size_t k;
    for (k = 0; k < nvr; k++) {
        const int kind = kinds[vr[k]];
        if (!settable(c, kind)) {
            if (kind == KIND_PARAMETER)
                log_error(c, "%s: %s is a fixed parameter; it can be set only before "
                             "fmi2ExitInitializationMode (the FMU is %s; use fmi2Reset to change it)",
                          function, names[vr[k]], mode_name(c->core.mode));
            else
                log_error(c, "%s: %s is %s; it cannot be set", function, names[vr[k]], kind_name(kind));
            return 0;
        }
    }
    return 1;
}

fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2GetReal", GET_MODES))
        return fmi2Error;
    if (!check_vrs(c, "fmi2GetReal", vr, nvr, N_REALS, KIND_REAL))
        return fmi2Error;
    if (nvr > 0 && !update(c))
        return fail(c);
    for (k = 0; k < nvr; k++)
        value[k] = c->core.m.r[vr[k]];
    return fmi2OK;
}

fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[])
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2GetInteger", GET_MODES))
        return fmi2Error;
    if (!check_vrs(c, "fmi2GetInteger", vr, nvr, N_INTEGERS, KIND_INTEGER))
        return fmi2Error;
    if (nvr > 0 && !update(c))
        return fail(c);
    for (k = 0; k < nvr; k++)
        value[k] = c->core.m.i[vr[k]];
    return fmi2OK;
}

fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[])
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2GetBoolean", GET_MODES))
        return fmi2Error;
    if (!check_vrs(c, "fmi2GetBoolean", vr, nvr, N_BOOLEANS, KIND_BOOLEAN))
        return fmi2Error;
    if (nvr > 0 && !update(c))
        return fail(c);
    for (k = 0; k < nvr; k++)
        value[k] = c->core.m.b[vr[k]] ? fmi2True : fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    Component *c = (Component *)comp;
    (void)vr;
    (void)value;
    if (!allowed(c, "fmi2GetString", GET_MODES))
        return fmi2Error;
    if (nvr > 0) {
        log_error(c, "fmi2GetString: this FMU has no String variables");
        return fmi2Error;
    }
    return fmi2OK;
}

/* A held input jumps: keep the derivatives before it (the first jump since the last evaluation) for
 * the history shift of evaluate(). */
static void input_jump(Core *core)
{
    if (core->history && !core->inputs_jumped && !core->dirty) {
        int j;
        for (j = 0; j < N_STATES; j++)
            core->f_before_jump[j] = core->m.r[DERIVATIVE_VR[j]];
        for (j = 0; j < N_INPUT_REAL; j++)
            core->u_before_jump[j] = core->m.r[INPUT_REAL[j]];
        core->inputs_jumped = 1;
    } else if (!core->inputs_jumped) {
        core->history = 0;            /* the derivatives before the jump are not at hand */
    }
    core->dirty = 1;
}

fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2SetReal", GET_MODES & ~(MODE_TERMINATED | MODE_ERROR)))
        return fmi2Error;
    if (!check_vrs(c, "fmi2SetReal", vr, nvr, N_REALS, KIND_REAL) ||
        !check_settable(c, "fmi2SetReal", vr, nvr, KIND_REAL, NAME_REAL))
        return fmi2Error;
    for (k = 0; k < nvr; k++) {
        /* an input set to the value it has does not invalidate the outputs (no re-evaluation) */
        if (KIND_REAL[vr[k]] == KIND_PARAMETER) {
            c->core.dirty = 1;
            c->core.history = 0;      /* a multistep method restarts */
        } else if (c->core.m.r[vr[k]] != value[k]) {
            input_jump(&c->core);
        }
        c->core.m.r[vr[k]] = value[k];
        if (KIND_REAL[vr[k]] == KIND_PARAMETER)
            c->core.set_r[vr[k]] = 1;
        else if (KIND_REAL[vr[k]] == KIND_INPUT && c->core.any_input_der) {
            int j;
            for (j = 0; j < N_INPUT_REAL; j++)
                if (INPUT_REAL[j] == vr[k])
                    c->core.input_der[j] = 0;
        }
    }
    return fmi2OK;
}

fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[])
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2SetInteger", GET_MODES & ~(MODE_TERMINATED | MODE_ERROR)))
        return fmi2Error;
    if (!check_vrs(c, "fmi2SetInteger", vr, nvr, N_INTEGERS, KIND_INTEGER) ||
        !check_settable(c, "fmi2SetInteger", vr, nvr, KIND_INTEGER, NAME_INTEGER))
        return fmi2Error;
    for (k = 0; k < nvr; k++) {
        if (c->core.m.i[vr[k]] != value[k] || KIND_INTEGER[vr[k]] == KIND_PARAMETER)
            c->core.dirty = c->core.other_input_changed = 1;
        c->core.m.i[vr[k]] = value[k];
        if (KIND_INTEGER[vr[k]] == KIND_PARAMETER)
            c->core.set_i[vr[k]] = 1;
    }
    return fmi2OK;
}

fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[])
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2SetBoolean", GET_MODES & ~(MODE_TERMINATED | MODE_ERROR)))
        return fmi2Error;
    if (!check_vrs(c, "fmi2SetBoolean", vr, nvr, N_BOOLEANS, KIND_BOOLEAN) ||
        !check_settable(c, "fmi2SetBoolean", vr, nvr, KIND_BOOLEAN, NAME_BOOLEAN))
        return fmi2Error;
    for (k = 0; k < nvr; k++) {
        if (c->core.m.b[vr[k]] != (value[k] != fmi2False) || KIND_BOOLEAN[vr[k]] == KIND_PARAMETER)
            c->core.dirty = c->core.other_input_changed = 1;
        c->core.m.b[vr[k]] = value[k] != fmi2False;
        if (KIND_BOOLEAN[vr[k]] == KIND_PARAMETER)
            c->core.set_b[vr[k]] = 1;
    }
    return fmi2OK;
}

fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
    Component *c = (Component *)comp;
    (void)vr;
    (void)value;
    if (!allowed(c, "fmi2SetString", GET_MODES & ~(MODE_TERMINATED | MODE_ERROR)))
        return fmi2Error;
    if (nvr > 0) {
        log_error(c, "fmi2SetString: this FMU has no String variables");
        return fmi2Error;
    }
    return fmi2OK;
}

/* ---- FMU states ------------------------------------------------------------------------------- */

static void *allocate(Component *c, size_t size)
{
    return c->cb.allocateMemory ? c->cb.allocateMemory(1, size) : calloc(1, size);
}

static void release(Component *c, void *p)
{
    if (c->cb.freeMemory)
        c->cb.freeMemory(p);
    else
        free(p);
}

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *state)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2GetFMUstate", GET_MODES))
        return fmi2Error;
    if (!state) {
        log_error(c, "fmi2GetFMUstate: NULL state pointer");
        return fmi2Error;
    }
    if (!*state) {
        *state = allocate(c, sizeof(Core));
        if (!*state) {
            log_error(c, "fmi2GetFMUstate: out of memory");
            return fmi2Error;
        }
    }
    memcpy(*state, &c->core, sizeof(Core));
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate state)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2SetFMUstate", GET_MODES))
        return fmi2Error;
    if (!state) {
        log_error(c, "fmi2SetFMUstate: NULL state");
        return fmi2Error;
    }
    memcpy(&c->core, state, sizeof(Core));
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *state)
{
    Component *c = (Component *)comp;
    if (!c)
        return fmi2Error;
    if (state && *state) {
        release(c, *state);
        *state = NULL;
    }
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate state, size_t *size)
{
    Component *c = (Component *)comp;
    (void)state;
    if (!c || !size)
        return fmi2Error;
    *size = sizeof(SerialHeader) + sizeof(Core);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate state, fmi2Byte serializedState[], size_t size)
{
    Component *c = (Component *)comp;
    SerialHeader header;
    if (!c || !state || !serializedState)
        return fmi2Error;
    if (size < sizeof(SerialHeader) + sizeof(Core)) {
        log_error(c, "fmi2SerializeFMUstate: buffer of %lu bytes is too small", (unsigned long)size);
        return fmi2Error;
    }
    memset(&header, 0, sizeof(header));
    header.magic = SERIAL_MAGIC;
    header.size = (unsigned int)sizeof(Core);
    strncpy(header.guid, FMU_GUID, sizeof(header.guid) - 1);
    memcpy(serializedState, &header, sizeof(header));
    memcpy(serializedState + sizeof(header), state, sizeof(Core));
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *state)
{
    Component *c = (Component *)comp;
    SerialHeader header;
    if (!c || !serializedState || !state)
        return fmi2Error;
    if (size != sizeof(SerialHeader) + sizeof(Core)) {
        log_error(c, "fmi2DeSerializeFMUstate: %lu bytes is not a serialized state of this FMU", (unsigned long)size);
        return fmi2Error;
    }
    memcpy(&header, serializedState, sizeof(header));
    if (header.magic != SERIAL_MAGIC || header.size != sizeof(Core) ||
        strncmp(header.guid, FMU_GUID, sizeof(header.guid)) != 0) {
        log_error(c, "fmi2DeSerializeFMUstate: the serialized state comes from another FMU or build");
        return fmi2Error;
    }
    if (!*state) {
        *state = allocate(c, sizeof(Core));
        if (!*state) {
            log_error(c, "fmi2DeSerializeFMUstate: out of memory");
            return fmi2Error;
        }
    }
    memcpy(*state, serializedState + sizeof(header), sizeof(Core));
    return fmi2OK;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    Component *c = (Component *)comp;
    (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown; (void)dvUnknown;
    if (c)
        log_error(c, "fmi2GetDirectionalDerivative is not provided (providesDirectionalDerivative=false)");
    return fmi2Error;
}

/* ---- Model Exchange --------------------------------------------------------------------------- */

#define ME_MODES (MODE_EVENT | MODE_CONTINUOUS)

fmi2Status fmi2EnterEventMode(fmi2Component comp)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2EnterEventMode", MODE_EVENT | MODE_CONTINUOUS))
        return fmi2Error;
    c->core.mode = MODE_EVENT;
    return fmi2OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component comp, fmi2EventInfo *info)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2NewDiscreteStates", MODE_EVENT))
        return fmi2Error;
    if (info) {
        info->newDiscreteStatesNeeded = fmi2False;
        info->terminateSimulation = fmi2False;
        info->nominalsOfContinuousStatesChanged = fmi2False;
        info->valuesOfContinuousStatesChanged = fmi2False;
        info->nextEventTimeDefined = fmi2False;
        info->nextEventTime = 0;
    }
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component comp)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2EnterContinuousTimeMode", MODE_EVENT))
        return fmi2Error;
    c->core.mode = MODE_CONTINUOUS;
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component comp, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation)
{
    Component *c = (Component *)comp;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!allowed(c, "fmi2CompletedIntegratorStep", MODE_CONTINUOUS))
        return fmi2Error;
    if (!update(c) || !discrete_update(c, 0)) {
        log_error(c, "fmi2CompletedIntegratorStep: the model failed at t = %.17g s", c->core.m.time);
        return fail(c);
    }
    if (enterEventMode)
        *enterEventMode = fmi2False;
    if (terminateSimulation)
        *terminateSimulation = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component comp, fmi2Real time)
{
    Component *c = (Component *)comp;
    if (!allowed(c, "fmi2SetTime", ME_MODES))
        return fmi2Error;
    c->core.m.time = time;
    c->core.dirty = 1;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component comp, const fmi2Real x[], size_t nx)
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2SetContinuousStates", MODE_CONTINUOUS))
        return fmi2Error;
    if (nx != N_STATES || (nx > 0 && !x)) {
        log_error(c, "fmi2SetContinuousStates: %lu states given, the FMU has %d", (unsigned long)nx, N_STATES);
        return fmi2Error;
    }
    for (k = 0; k < nx; k++)
        c->core.m.r[STATE_VR[k]] = x[k];
    c->core.dirty = 1;
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component comp, fmi2Real derivatives[], size_t nx)
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2GetDerivatives", MODE_INITIALIZATION | ME_MODES | MODE_TERMINATED | MODE_ERROR))
        return fmi2Error;
    if (nx != N_STATES || (nx > 0 && !derivatives)) {
        log_error(c, "fmi2GetDerivatives: %lu derivatives requested, the FMU has %d states", (unsigned long)nx, N_STATES);
        return fmi2Error;
    }
    if (!update(c))
        return fail(c);
    for (k = 0; k < nx; k++)
        derivatives[k] = c->core.m.r[DERIVATIVE_VR[k]];
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component comp, fmi2Real eventIndicators[], size_t ni)
{
    Component *c = (Component *)comp;
    (void)eventIndicators;
    if (!allowed(c, "fmi2GetEventIndicators", MODE_INITIALIZATION | ME_MODES | MODE_TERMINATED | MODE_ERROR))
        return fmi2Error;
    if (ni != 0) {
        log_error(c, "fmi2GetEventIndicators: the FMU has no event indicators (%lu requested)", (unsigned long)ni);
        return fmi2Error;
    }
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx)
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2GetContinuousStates", MODE_INITIALIZATION | ME_MODES | MODE_TERMINATED | MODE_ERROR))
        return fmi2Error;
    if (nx != N_STATES || (nx > 0 && !x)) {
        log_error(c, "fmi2GetContinuousStates: %lu states requested, the FMU has %d", (unsigned long)nx, N_STATES);
        return fmi2Error;
    }
    if (c->core.mode & MODE_INITIALIZATION && !update(c))
        return fail(c);
    for (k = 0; k < nx; k++)
        x[k] = c->core.m.r[STATE_VR[k]];
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component comp, fmi2Real x_nominal[], size_t nx)
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2GetNominalsOfContinuousStates", GET_MODES))
        return fmi2Error;
    if (nx != N_STATES || (nx > 0 && !x_nominal)) {
        log_error(c, "fmi2GetNominalsOfContinuousStates: %lu nominals requested, the FMU has %d states",
                  (unsigned long)nx, N_STATES);
        return fmi2Error;
    }
    for (k = 0; k < nx; k++)
        x_nominal[k] = 1.0;
    return fmi2OK;
}

/* ---- Co-Simulation ---------------------------------------------------------------------------- */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    Component *c = (Component *)comp;
    size_t k;
    if (!allowed(c, "fmi2SetRealInputDerivatives", MODE_INSTANTIATED | MODE_INITIALIZATION | MODE_STEP_COMPLETE))
        return fmi2Error;
    if (nvr > 0 && (!vr || !order || !value)) {
        log_error(c, "fmi2SetRealInputDerivatives: NULL argument");
        return fmi2Error;
    }
    for (k = 0; k < nvr; k++) {
        int j, found = -1;
        for (j = 0; j < N_INPUT_REAL; j++)
            if (INPUT_REAL[j] == vr[k])
                found = j;
        if (found < 0) {
            log_error(c, "fmi2SetRealInputDerivatives: value reference %u is not a Real input", (unsigned int)vr[k]);
            return fmi2Error;
        }
        if (order[k] != 1) {
            log_error(c, "fmi2SetRealInputDerivatives: derivative order %d of %s is not supported (only 1: "
                         "inputs are interpolated linearly)", (int)order[k], NAME_REAL[vr[k]]);
            return fmi2Error;
        }
        c->core.input_der[found] = value[k];
        if (value[k] != 0)
            c->core.any_input_der = 1;
    }
    return fmi2OK;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[])
{
    Component *c = (Component *)comp;
    (void)vr; (void)order; (void)value;
    if (c && nvr > 0)
        log_error(c, "fmi2GetRealOutputDerivatives: output derivatives are not provided (maxOutputDerivativeOrder=0)");
    return nvr > 0 ? fmi2Error : fmi2OK;
}

/* Inputs at time t of the communication step that started at t0 (linear, from the input derivatives). */
static void set_inputs(Component *c, double t0, double t)
{
    int j;
    if (!c->core.any_input_der)
        return;
    for (j = 0; j < N_INPUT_REAL; j++)
        if (c->core.input_der[j] != 0)
            c->core.m.r[INPUT_REAL[j]] = c->input_start[j] + c->core.input_der[j] * (t - t0);
}

/* One classic RK4 step of length h from (t, x); the derivatives at (t, x) are in the instance.
 * Ends at time t_end (= t + h up to rounding) with outputs up to date. */
static int rk4_step(Component *c, double t0, double t, double h, double t_end)
{
    ModelInstance *m = &c->core.m;
    double *x0 = c->x0, *acc = c->acc;
    int j;
    for (j = 0; j < N_STATES; j++) {
        x0[j] = m->r[STATE_VR[j]];
        acc[j] = m->r[DERIVATIVE_VR[j]];                              /* k1 */
        m->r[STATE_VR[j]] = x0[j] + 0.5 * h * acc[j];
    }
    m->time = t + 0.5 * h;
    set_inputs(c, t0, m->time);
    if (!evaluate_derivatives(c))
        return 0;
    for (j = 0; j < N_STATES; j++) {
        const double k2 = m->r[DERIVATIVE_VR[j]];
        acc[j] += 2.0 * k2;
        m->r[STATE_VR[j]] = x0[j] + 0.5 * h * k2;
    }
    if (!evaluate_derivatives(c))
        return 0;
    for (j = 0; j < N_STATES; j++) {
        const double k3 = m->r[DERIVATIVE_VR[j]];
        acc[j] += 2.0 * k3;
        m->r[STATE_VR[j]] = x0[j] + h * k3;
    }
    m->time = t + h;
    set_inputs(c, t0, m->time);
    if (!evaluate_derivatives(c))
        return 0;
    for (j = 0; j < N_STATES; j++)
        m->r[STATE_VR[j]] = x0[j] + (h / 6.0) * (acc[j] + m->r[DERIVATIVE_VR[j]]);
    m->time = t_end;
    set_inputs(c, t0, t_end);
    return evaluate(c);
}

/* One step of the explicit trapezoidal rule (Heun) of length h from (t, x); the derivatives at (t, x)
 * are in the instance. Two evaluations: the predictor and the end point (whose derivatives start the
 * next step). Second order; at 1 ms it is stable for the tyre and unsprung modes of the RTM. */
static int heun_step(Component *c, double t0, double t, double h, double t_end)
{
    ModelInstance *m = &c->core.m;
    double *x0 = c->x0, *acc = c->acc;
    int j;
    for (j = 0; j < N_STATES; j++) {
        x0[j] = m->r[STATE_VR[j]];
        acc[j] = m->r[DERIVATIVE_VR[j]];                              /* k1 */
        m->r[STATE_VR[j]] = x0[j] + h * acc[j];
    }
    m->time = t + h;
    set_inputs(c, t0, m->time);
    if (!evaluate_derivatives(c))
        return 0;
    for (j = 0; j < N_STATES; j++)
        m->r[STATE_VR[j]] = x0[j] + 0.5 * h * (acc[j] + m->r[DERIVATIVE_VR[j]]);
    m->time = t_end;
    set_inputs(c, t0, t_end);
    return evaluate(c);
}


/* One step of the two-step Adams-Bashforth method of length h from (t, x): one evaluation (the end
 * point, whose derivatives start the next step). Second order, with the variable-step coefficients
 * (the last substep of a communication step may be shorter). Its first step after initialization,
 * a reset or a discrete change of the model is a Heun step. Across a jump of a held input the history
 * is shifted by the jump of the derivatives (evaluate), which keeps the formula second order. Stable for h*lambda in (-1, 0) on the
 * real axis: half the range of Heun's, enough for the RTM at 1 ms (benchmarks/rtm_accuracy.py). */
static int ab2_step(Component *c, double t0, double t, double h, double t_end)
{
    ModelInstance *m = &c->core.m;
    double *f_prev = c->core.f_prev;
    int j;
    if (!c->core.history) {
        if (!heun_step(c, t0, t, h, t_end))
            return 0;
        memcpy(f_prev, c->acc, sizeof(c->core.f_prev));
    } else {
        const double half_ratio = 0.5 * h / c->core.h_prev;
        for (j = 0; j < N_STATES; j++) {
            const double x = m->r[STATE_VR[j]], f = m->r[DERIVATIVE_VR[j]];
            c->x0[j] = x;
            m->r[STATE_VR[j]] = x + h * ((1.0 + half_ratio) * f - half_ratio * f_prev[j]);
            f_prev[j] = f;
        }
        m->time = t_end;
        set_inputs(c, t0, t_end);
        if (!evaluate(c))
            return 0;
    }
    c->core.history = 1;
    c->core.h_prev = h;
    return 1;
}

/* ---- IMEX2: AB2 for the non-stiff states, linearly implicit BDF2 for the stiff ones ----------------
 *
 * A state is stiff when its own derivative d f_j / d x_j = d_j puts h*d_j outside AB2's stability
 * interval (-1, 0) on the real axis. In the RTM that is the wheel spin of a braked wheel near
 * standstill: the regularised Coulomb brake T*tanh(omega/omegaReg) is a viscous damper of
 * T/omegaReg, lambda = -T/(J*omegaReg), about -7600 1/s at the front and -4700 1/s at the rear of the
 * van at full brake (h*lambda = -7.6 at 1 ms: every explicit method at 1 ms chatters there, RK4 too).
 * A stiff state follows the two-step BDF2 with the rest of its derivative, f_j - d_j*x_j, extrapolated
 * linearly (IMEX BDF2: second order, L-stable in d_j); the others follow AB2. One model evaluation per
 * step, plus: N_STATES at the first step after initialization or reset (every d_j, one forward
 * difference each); one every STIFF_REFRESH steps while some state is stiff, and one when a state
 * starts to look stiff (the stiff and suspect states perturbed together: their couplings are far
 * weaker than their own terms).
 * Detection is free: a state that alternates (its last two steps of opposite signs) with a secant
 * (f_j - f_prev_j)/(x_j - x_prev_j) over the last step giving h*(secant - d_j) below -STIFF_DETECT, on
 * two steps in a row, is a suspect (the alternation of an unstable explicit mode; a turning point of a
 * smooth state changes the sign of its steps once). A state measured non-stiff (a false suspect) is
 * not tested again for STIFF_COOLDOWN steps. A stiff state measured at h*d_j above -STIFF_KEEP turns
 * explicit again (a stale d_j on a non-stiff state would cost accuracy: the IMEX error has a
 * h^3*d_j*x'' term) and stays tested (a braked wheel that slips and sticks again). The restart step (after initialization, reset, a discrete
 * change) is the two-stage Rosenbrock-W method ROS2 with W = diag(d): second order
 * for any W, L-stable, equal to Heun's step when no state is stiff. */
#define STIFF_DETECT 0.8
#define STIFF_KEEP 0.5
#define STIFF_REFRESH 20
#define STIFF_COOLDOWN 200
#define STIFF_PERTURBATION 1e-7

/* The restart step: ROS2 (gamma = 1 + 1/sqrt(2)) with W = diag(stiff_d); two evaluations. */
static int ros2_step(Component *c, double t0, double t, double h, double t_end)
{
    ModelInstance *m = &c->core.m;
    const double *d = c->core.stiff_d;
    const double gamma = 1.0 + 0.70710678118654752440;
    double *x0 = c->x0, *k1 = c->acc;
    int j;
    for (j = 0; j < N_STATES; j++) {
        x0[j] = m->r[STATE_VR[j]];
        k1[j] = m->r[DERIVATIVE_VR[j]] / (1.0 - gamma * h * d[j]);
        m->r[STATE_VR[j]] = x0[j] + h * k1[j];
    }
    m->time = t + h;
    set_inputs(c, t0, m->time);
    if (!evaluate_derivatives(c))
        return 0;
    for (j = 0; j < N_STATES; j++) {
        const double k2 = (m->r[DERIVATIVE_VR[j]] - 2.0 * k1[j]) / (1.0 - gamma * h * d[j]);
        m->r[STATE_VR[j]] = x0[j] + h * (1.5 * k1[j] + 0.5 * k2);
    }
    m->time = t_end;
    set_inputs(c, t0, t_end);
    return evaluate(c);
}

/* The secant (f_j - f_prev_j) / (x_j - x_prev_j) of state j over the last step (0 where the state did
 * not move beyond round-off). */
static double secant(const Core *core, int j)
{
    const double x = core->m.r[STATE_VR[j]], dx = x - core->x_prev[j];
    return fabs(dx) > 1e-14 * fabs(x) ? (core->m.r[DERIVATIVE_VR[j]] - core->f_prev[j]) / dx : 0.0;
}

/* Measures d_j = d f_j / d x_j at the step point by forward differences: of every state, one
 * evaluation each (all != 0), or of the stiff and the suspect states, perturbed together in one
 * evaluation. A suspect whose local slope is not stiff takes the secant over the last step instead (a
 * mode chattering between the saturations of a regularised friction has a small local slope and a
 * steep chord). States with hs*d_j < -STIFF_KEEP are integrated implicitly. Leaves the states and their derivatives as they were. */
static int measure_stiff_diagonal(Component *c, double hs, int all)
{
    Core *core = &c->core;
    ModelInstance *m = &core->m;
    double *x0 = c->x0, *f0 = c->acc;
    int j, k;
    if (!exact_derivatives(c))
        return 0;
    for (j = 0; j < N_STATES; j++) {
        x0[j] = m->r[STATE_VR[j]];
        f0[j] = m->r[DERIVATIVE_VR[j]];
    }
    for (k = 0; k < (all ? N_STATES : 1); k++) {
        for (j = all ? k : 0; j < (all ? k + 1 : N_STATES); j++)
            if (all || core->stiff_d[j] != 0 || core->suspect[j] >= 2)
                m->r[STATE_VR[j]] = x0[j] + STIFF_PERTURBATION * fmax(fabs(x0[j]), 1.0);
        if (!evaluate_derivatives(c))
            return 0;
        for (j = 0; j < N_STATES; j++) {
            if (m->r[STATE_VR[j]] != x0[j]) {
                const int was_stiff = core->stiff_d[j] != 0;
                double d = (m->r[DERIVATIVE_VR[j]] - f0[j]) / (m->r[STATE_VR[j]] - x0[j]);
                m->r[STATE_VR[j]] = x0[j];
                m->r[DERIVATIVE_VR[j]] = f0[j];
                if (core->suspect[j] >= 2 && hs * d >= -STIFF_KEEP)
                    d = secant(core, j);
                core->stiff_d[j] = hs * d < -STIFF_KEEP ? d : 0.0;
                if (core->stiff_d[j] == 0 && !was_stiff && !all)
                    core->cooldown[j] = STIFF_COOLDOWN;      /* a false suspect */
                core->suspect[j] = 0;
            }
        }
    }
    for (j = 0; j < N_STATES; j++)
        m->r[DERIVATIVE_VR[j]] = f0[j];
    core->n_stiff = 0;
    for (j = 0; j < N_STATES; j++)
        core->n_stiff += core->stiff_d[j] != 0;
    core->since_measure = 0;
    return 1;
}

/* Marks the states that alternated over the last two steps with a secant that looked unstable for
 * the explicit part of their update, hs*(secant - d_j) < -STIFF_DETECT (see above); returns whether
 * one did on two steps in a row. */
static int detect_stiff_states(Core *core, double hs)
{
    const ModelInstance *m = &core->m;
    int j, found = 0;
    for (j = 0; j < N_STATES; j++) {
        if (core->cooldown[j] > 0 && core->stiff_d[j] == 0) {
            core->cooldown[j]--;
            continue;
        }
        if ((m->r[STATE_VR[j]] - core->x_prev[j]) * core->dx_prev[j] < 0
            && hs * (secant(core, j) - core->stiff_d[j]) < -STIFF_DETECT) {
            if (core->suspect[j] < 2)
                core->suspect[j]++;
            found |= core->suspect[j] >= 2;
        } else {
            core->suspect[j] = 0;
        }
    }
    return found;
}

/* One IMEX2 step of length h from (t, x): one evaluation (the end point), see above. The variable-step
 * coefficients of AB2 and BDF2 with r = h/h_prev (the last substep of a communication step may be
 * shorter). */
static int imex2_step(Component *c, double t0, double t, double h, double t_end)
{
    Core *core = &c->core;
    ModelInstance *m = &core->m;
    const double hs = FIXED_STEP(m);
    int j;
    if (!core->diagonal_measured) {
        if (!measure_stiff_diagonal(c, hs, 1))
            return 0;
        core->diagonal_measured = 1;
    }
    if (!core->history) {
        for (j = 0; j < N_STATES; j++) {
            core->x_prev[j] = m->r[STATE_VR[j]];
            core->f_prev[j] = m->r[DERIVATIVE_VR[j]];
            core->dx_prev[j] = 0.0;
        }
        if (!ros2_step(c, t0, t, h, t_end))
            return 0;
    } else {
        const double r = h / core->h_prev, beta = h * (1.0 + r) / (1.0 + 2.0 * r), half_hr = 0.5 * h * r;
        const double a = (1.0 + r) * (1.0 + r) / (1.0 + 2.0 * r), b = r * r / (1.0 + 2.0 * r);
        if ((detect_stiff_states(core, hs) || (core->n_stiff > 0 && ++core->since_measure >= STIFF_REFRESH))
            && !measure_stiff_diagonal(c, hs, 0))
            return 0;
        for (j = 0; j < N_STATES; j++) {
            const double x = m->r[STATE_VR[j]], f = m->r[DERIVATIVE_VR[j]], d = core->stiff_d[j];
            c->x0[j] = x;
            if (d == 0)
                m->r[STATE_VR[j]] = x + h * f + half_hr * (f - core->f_prev[j]);
            else
                m->r[STATE_VR[j]] = (a * x - b * core->x_prev[j]
                                     + beta * ((1.0 + r) * (f - d * x) - r * (core->f_prev[j] - d * core->x_prev[j])))
                                    / (1.0 - beta * d);
            core->dx_prev[j] = x - core->x_prev[j];
            core->x_prev[j] = x;
            core->f_prev[j] = f;
        }
        m->time = t_end;
        set_inputs(c, t0, t_end);
        if (!evaluate(c))
            return 0;
    }
    core->history = 1;
    core->h_prev = h;
    return 1;
}

#if FMU_INTEGRATOR == FMU_INTEGRATOR_IMEX2
#define integrator_step imex2_step
#elif FMU_INTEGRATOR == FMU_INTEGRATOR_AB2
#define integrator_step ab2_step
#elif FMU_INTEGRATOR == FMU_INTEGRATOR_HEUN
#define integrator_step heun_step
#else
#define integrator_step rk4_step
#endif

/* ---- Co-Simulation: state events located inside the internal step ---------------------------- */

/* Bisection of an event to within EVENT_RESOLUTION of the internal step (12 halvings: 1.2 us at 5 ms) */
#define EVENT_RESOLUTION (1.0 / 4096.0)
/* Events located in one internal step at most; more (a chattering condition) act at the step's end */
#define MAX_EVENTS_PER_STEP 8

/* Back to the saved point before the event (time t, the states ev_x, the discrete values ev_*), with
 * its outputs and derivatives; a multistep method restarts there (history = 0). */
static int restart_at(Component *c, double t0, double t)
{
    ModelInstance *m = &c->core.m;
    int k;
    memcpy(m->i, c->ev_i, sizeof(m->i));
    memcpy(m->b, c->ev_b, sizeof(m->b));
    for (k = 0; k < N_DISCRETE_REAL; k++)
        m->r[DISCRETE_REAL[k]] = c->ev_r[k];
    for (k = 0; k < N_STATES; k++)
        m->r[STATE_VR[k]] = c->ev_x[k];
    m->time = t;
    set_inputs(c, t0, t);
    c->core.history = 0;
    return evaluate(c);
}

static void save_states(Component *c)
{
    int k;
    for (k = 0; k < N_STATES; k++)
        c->ev_x[k] = c->core.m.r[STATE_VR[k]];
}

/* One integrator step from t to t_next, then (finite states and derivatives) model_discrete_update;
 * *changed: it changed a discrete value or a state (an event happened in (t, t_next]; the instance then
 * holds the updated values). */
static int step_and_update(Component *c, double t0, double t, double t_next, int *changed)
{
    if (!integrator_step(c, t0, t, t_next - t, t_next) || !discrete_update(c, 1))
        return 0;
    *changed = c->core.dirty;
    return 1;
}

/* The step from t (states in ev_x) to t_hi changed the discrete values (the values before, in snap_*):
 * bisect the time of the first change by re-integrating from the last point before it, then make the
 * change there: on return the instance is at *t_event (updated, outputs up to date), the event time
 * to within EVENT_RESOLUTION of the step, never before it. */
static int locate_event(Component *c, double t0, double t, double t_hi, double *t_event)
{
    const double resolution = EVENT_RESOLUTION * (t_hi - t);
    double lo = t, hi = t_hi;
    int at_lo = 0, changed, k;
    memcpy(c->ev_i, c->snap_i, sizeof(c->ev_i));
    memcpy(c->ev_b, c->snap_b, sizeof(c->ev_b));
    for (k = 0; k < N_DISCRETE_REAL; k++)
        c->ev_r[k] = c->snap_r[k];
    while (hi - lo > resolution) {
        const double mid = lo + 0.5 * (hi - lo);
        if ((!at_lo && !restart_at(c, t0, lo)) || !step_and_update(c, t0, lo, mid, &changed))
            return 0;
        if (changed) {
            hi = mid;
            at_lo = 0;
        } else {
            lo = mid;
            save_states(c);
            at_lo = 1;
        }
    }
    if ((!at_lo && !restart_at(c, t0, lo)) || !step_and_update(c, t0, lo, hi, &changed))
        return 0;
    *t_event = hi;
    return !c->core.dirty || evaluate(c);
}

/* One internal step from t to t_next (outputs and derivatives at t up to date), the when-clauses and
 * discrete equations evaluated at the located time of every change of a discrete value in between.
 * Without a change this costs the integrator step and the discrete update. */
static int internal_step(Component *c, double t0, double t, double t_next)
{
    int events, changed;
    for (events = 0; ; events++) {
        if (!step_and_update(c, t0, t, t_next, &changed))
            return 0;
        if (!changed)
            return 1;
        if (events == MAX_EVENTS_PER_STEP)
            return evaluate(c);
        memcpy(c->ev_x, c->x0, sizeof(c->ev_x));   /* the states at t, where the step started */
        if (!locate_event(c, t0, t, t_next, &t))
            return 0;
        if (t >= t_next)
            return 1;
    }
}

fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentCommunicationPoint)
{
    Component *c = (Component *)comp;
    ModelInstance *m;
    double t0, t_end;
    long n, k;
    (void)noSetFMUStatePriorToCurrentCommunicationPoint;
    if (!allowed(c, "fmi2DoStep", MODE_STEP_COMPLETE))
        return fmi2Error;
    m = &c->core.m;
    t0 = currentCommunicationPoint;
    if (!(communicationStepSize > 0) || !isfinite(communicationStepSize)) {
        log_error(c, "fmi2DoStep: the communication step size must be > 0 (got %g)", communicationStepSize);
        return fmi2Error;
    }
    if (fabs(t0 - m->time) > 1e-9 * fmax(1.0, fabs(t0))) {
        log_error(c, "fmi2DoStep: the step starts at t = %.17g s but the FMU is at t = %.17g s", t0, m->time);
        return fmi2Error;
    }
    t_end = t0 + communicationStepSize;
    n = (long)ceil(communicationStepSize / FIXED_STEP(m) - 1e-9);
    if (n < 1)
        n = 1;
    if (c->core.any_input_der) {
        int j;
        for (j = 0; j < N_INPUT_REAL; j++)
            c->input_start[j] = m->r[INPUT_REAL[j]];
    }
    if (c->core.dirty && !evaluate_step_start(c))
        return fail(c);
    for (k = 0; k < n; k++) {
        const double t = t0 + (double)k * FIXED_STEP(m);
        const double h = k == n - 1 ? t_end - t : FIXED_STEP(m);
        if (!internal_step(c, t0, t, k == n - 1 ? t_end : t + h))
            return fail(c);
    }
    return fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component comp)
{
    Component *c = (Component *)comp;
    if (c)
        log_error(c, "fmi2CancelStep: fmi2DoStep is synchronous, there is nothing to cancel");
    return fmi2Error;
}

fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Status *value)
{
    Component *c = (Component *)comp;
    (void)s;
    (void)value;
    if (c)
        log_error(c, "fmi2GetStatus: fmi2DoStep is synchronous, no status to report");
    return fmi2Discard;
}

fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Real *value)
{
    Component *c = (Component *)comp;
    if (!c || !value)
        return fmi2Error;
    if (s == fmi2LastSuccessfulTime) {
        *value = c->core.m.time;
        return fmi2OK;
    }
    return fmi2Discard;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)comp; (void)s; (void)value;
    return fmi2Discard;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Boolean *value)
{
    Component *c = (Component *)comp;
    if (!c || !value)
        return fmi2Error;
    if (s == fmi2Terminated) {
        *value = fmi2False;
        return fmi2OK;
    }
    return fmi2Discard;
}

fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind s, fmi2String *value)
{
    (void)comp; (void)s; (void)value;
    return fmi2Discard;
}
