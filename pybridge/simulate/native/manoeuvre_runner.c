/* A whole fixed-step manoeuvre on one FMI 2.0 Co-Simulation instance in one call.
 *
 * The caller (pybridge.simulate.native_runner) passes the FMU's own fmi2* function pointers and component, so
 * any FMI 2.0 CS binary runs unchanged. The call sequence is the one of pybridge.simulate.fmu.FMUSession's
 * Python loop: fmi2SetupExperiment; inputs at k = 0; Enter/ExitInitializationMode; outputs at k = 0;
 * then per point k: fmi2DoStep(t[k-1], t[k] - t[k-1]), [speed for the PI], [end-condition channels],
 * fmi2SetReal of the inputs, fmi2GetReal of the outputs. The PI speed controller repeats
 * pybridge.simulate.scenarios.SpeedController.update operation by operation (compile without FMA contraction
 * or fast-math so the doubles are the same), the end conditions Scenario.end_reached.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "speed_control.h"

typedef int (*SetupExperimentFn)(void *, int, double, double, int, double);
typedef int (*InstanceFn)(void *);
typedef int (*SetRealFn)(void *, const unsigned int *, size_t, const double *);
typedef int (*GetRealFn)(void *, const unsigned int *, size_t, double *);
typedef int (*DoStepFn)(void *, double, double, int);

typedef struct {
    SetupExperimentFn setup_experiment;
    InstanceFn enter_initialization;
    InstanceFn exit_initialization;
    SetRealFn set_real;
    GetRealFn get_real;
    DoStepFn do_step;
    void *component;
} Fmi;

/* Which FMI call failed (pybridge.simulate.native_runner.FAILED_CALLS spells them as the Python loop does). */
enum { CALL_NONE, CALL_SETUP, CALL_ENTER, CALL_EXIT, CALL_DO_STEP, CALL_SET_INPUTS, CALL_GET_OUTPUTS,
       CALL_GET_SPEED, CALL_GET_WATCHED };

typedef struct {
    size_t count;                 /* communication points 0..count */
    const double *times;          /* count + 1 times */
    double start_time, stop_time; /* for fmi2SetupExperiment */
    size_t n_inputs;
    const unsigned int *input_vrs;
    const double *inputs;         /* (count + 1) x n_inputs, row k set at point k */
    double *input_row;            /* scratch, n_inputs */
    size_t n_outputs;
    const unsigned int *output_vrs;
    double *outputs;              /* rows k = 0, every, 2 every, ... (count / record_every + 1) x n_outputs */
    size_t record_every;
    /* PI speed controller (speed_control != 0) */
    int speed_control;
    unsigned int speed_vr;
    size_t throttle_column, brake_column;
    double initial_speed, target, kp, ki, brake_gain, hold, h;
    const double *targets;        /* NULL: the constant target; else count + 1 target speeds, one per point */
    /* end conditions (n_watched > 0): checked at 0 < k < count, k % check_every == 0 */
    size_t n_watched;
    const unsigned int *watched_vrs;
    size_t n_conditions;
    const size_t *condition_channel;  /* index into the watched values */
    const int *condition_below;       /* 1: value < threshold; 0: |value| > threshold */
    const double *condition_threshold;
    double *watched_values;           /* scratch, n_watched */
    size_t check_every;
    double duration;
    /* results */
    size_t rows;                  /* output rows written */
    size_t last_point;            /* k of the last point reached */
    int stopped;                  /* 1 when an end condition ended the run at last_point */
    int failed_call;              /* CALL_NONE or the call that returned a status above fmi2Warning */
    size_t failed_item;           /* the watched channel of CALL_GET_WATCHED */
    int status;
} Run;

/* Python's max(a, b) and min(a, b) for floats: the first argument unless the second is beyond it. */
static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }

/* speed_control.h's command for this run's gains */
static void speed_controller(const Run *run, double *integral, size_t k, double t, double speed, double *throttle,
                             double *brake)
{
    speed_command(run->targets, run->target, run->kp, run->ki, run->hold, run->h, run->brake_gain, integral, k, t,
                  speed, throttle, brake);
}

static int failed(Run *run, int call, int status, size_t k) {
    run->failed_call = call;
    run->status = status;
    run->last_point = k;
    return status;
}

/* Scenario.end_reached on the watched values at time t. */
static int end_reached(const Run *run, double t) {
    size_t c;
    for (c = 0; c < run->n_conditions; c++) {
        double value = run->watched_values[run->condition_channel[c]];
        if (run->condition_below[c] ? value < run->condition_threshold[c]
                                    : fabs(value) > run->condition_threshold[c])
            return 1;
    }
    return t >= run->duration;
}

/* The inputs of point k into input_row (table row, then the PI's pedals); 0 or a failed status. */
static int inputs_at(const Fmi *fmi, Run *run, size_t k, double *integral) {
    double t = run->times[k];
    if (run->n_inputs)
        memcpy(run->input_row, run->inputs + k * run->n_inputs, run->n_inputs * sizeof(double));
    if (run->speed_control) {
        double speed = run->initial_speed;
        if (k) {
            int status = fmi->get_real(fmi->component, &run->speed_vr, 1, &speed);
            if (status > 1)
                return failed(run, CALL_GET_SPEED, status, k);
        }
        speed_controller(run, integral, k, t, speed, &run->input_row[run->throttle_column],
                         &run->input_row[run->brake_column]);
    }
    if (run->n_watched && k > 0 && k < run->count && k % run->check_every == 0) {
        size_t j;
        for (j = 0; j < run->n_watched; j++) {
            int status = fmi->get_real(fmi->component, &run->watched_vrs[j], 1, &run->watched_values[j]);
            if (status > 1) {
                run->failed_item = j;
                return failed(run, CALL_GET_WATCHED, status, k);
            }
        }
        run->stopped = end_reached(run, t);
    }
    return 0;
}

/* Set the inputs of point k and record the outputs (every record_every points); 0 or a failed status. */
static int exchange(const Fmi *fmi, Run *run, size_t k, int initialize) {
    int status;
    if (run->n_inputs && (status = fmi->set_real(fmi->component, run->input_vrs, run->n_inputs,
                                                 run->input_row)) > 1)
        return failed(run, CALL_SET_INPUTS, status, k);
    if (initialize) {
        if ((status = fmi->enter_initialization(fmi->component)) > 1)
            return failed(run, CALL_ENTER, status, k);
        if ((status = fmi->exit_initialization(fmi->component)) > 1)
            return failed(run, CALL_EXIT, status, k);
    }
    if (k % run->record_every == 0 || run->stopped) {
        status = fmi->get_real(fmi->component, run->output_vrs, run->n_outputs,
                               run->outputs + run->rows * run->n_outputs);
        if (status > 1)
            return failed(run, CALL_GET_OUTPUTS, status, k);
        run->rows++;
    }
    return 0;
}

/* Run the manoeuvre; returns 0 or the status of the failed call (run->failed_call says which). */
int run_manoeuvre(const Fmi *fmi, Run *run) {
    double integral = 0.0;
    size_t k;
    int status;
    run->rows = 0;
    run->stopped = 0;
    run->failed_call = CALL_NONE;
    run->status = 0;
    if ((status = fmi->setup_experiment(fmi->component, 0, 0.0, run->start_time, 1, run->stop_time)) > 1)
        return failed(run, CALL_SETUP, status, 0);
    for (k = 0; k <= run->count; k++) {
        if (k && (status = fmi->do_step(fmi->component, run->times[k - 1], run->times[k] - run->times[k - 1],
                                        1)) > 1)
            return failed(run, CALL_DO_STEP, status, k);
        if ((status = inputs_at(fmi, run, k, &integral)) != 0 || (status = exchange(fmi, run, k, k == 0)) != 0)
            return status;
        run->last_point = k;
        if (run->stopped)
            break;
    }
    return 0;
}
