/* N vehicles of one native FMU through one manoeuvre, LANES at a time in lockstep (pybridge.simulate.lanes).
 *
 * Compiled from the FMU's own sources: the FMI wrapper and the scalar model (one instance per vehicle,
 * initialised, and stepping whenever a lane leaves the common path) and the lane model generated beside
 * them (fmu_build.codegen.lanes), which evaluates LANES vehicles at once. The call sequence per vehicle is
 * manoeuvre_runner.c's (inputs, PI speed driver with a feed-forward per vehicle, end conditions, outputs
 * at every point), and each lane repeats the wrapper's step operation by operation: for AB2 builds the
 * derivatives after an input jump, the history shift, the step; for RK4 builds (identification) the four
 * stages; then the finiteness check and model_discrete_update. A step in which a lane's discrete update
 * changes something (an event, located by bisection), an AB2 lane without a multistep history, or a step
 * start after an input jump in a wrapper that predicts it from its input Jacobian (input_jacobian.h) runs
 * that lane's step on its scalar instance (fmi2DoStep's own code). A lane that diverges stops with
 * fmi2DoStep's error; the others go on.
 */
#include "fmi2_wrapper.c"
#include MODEL_SOURCE
#include "lanes.h"
#include LANE_SOURCE
#include "speed_control.h"

#if FMU_INTEGRATOR != FMU_INTEGRATOR_AB2 && FMU_INTEGRATOR != FMU_INTEGRATOR_RK4
#error "the lane runner steps AB2 and RK4 builds (fmu-build --integrator ab2 or rk4)"
#endif
#define LANE_MULTISTEP (FMU_INTEGRATOR == FMU_INTEGRATOR_AB2)

enum { CALL_NONE, CALL_SETUP, CALL_ENTER, CALL_EXIT, CALL_DO_STEP, CALL_SET_INPUTS, CALL_GET_OUTPUTS,
       CALL_GET_SPEED, CALL_GET_WATCHED };

typedef struct {
    size_t n_vehicles;
    Component **vehicles;         /* n_vehicles scalar instances, parameters set (lane_new, fmi2Set*) */
    size_t count;
    const double *times;
    double start_time, stop_time;
    size_t n_inputs;
    const unsigned int *input_vrs;
    const double *inputs;         /* (count + 1) x n_inputs, shared by the vehicles */
    size_t n_outputs;
    const unsigned int *output_vrs;
    double *outputs;              /* n_vehicles x rows_capacity x n_outputs */
    size_t rows_capacity, record_every;
    int speed_control;
    unsigned int speed_vr;
    size_t throttle_column, brake_column;
    double initial_speed, target, kp, ki, brake_gain, hold, h;
    const double *targets;
    size_t n_watched;
    const unsigned int *watched_vrs;
    size_t n_conditions;
    const size_t *condition_channel;
    const int *condition_below;
    const double *condition_threshold;
    size_t check_every;
    double duration;
    /* results, one per vehicle */
    size_t *rows, *last_point;
    int *stopped, *failed_call, *status;
    size_t *scalar_steps;         /* steps run on the scalar instance (events, restarts) */
    const double *holds;          /* NULL: `hold` for every vehicle; else the PI's feed-forward per vehicle */
} LaneRun;

/* The per-lane state of the wrapper's Core besides ModelInstance (AB2 history, input jumps). */
typedef struct {
    LaneInstance m;
    lv f_prev[STATE_ARRAY], f_before_jump[STATE_ARRAY], x0[STATE_ARRAY], f_start[STATE_ARRAY], acc[STATE_ARRAY], h_prev;
    int history[LANES], jumped[LANES], dirty[LANES], live[LANES], done[LANES];
    double integral[LANES], input_row[LANES][N_INPUT_REAL > 0 ? N_INPUT_REAL + 4 : 4];
    Component *c[LANES];
    size_t vehicle[LANES];
} Group;

static li live_mask(const Group *g) { li m; for (int l = 0; l < LANES; l++) m[l] = g->live[l] && !g->done[l] ? -1 : 0; return m; }
/* The lanes an evaluation computes: those of `mask` and the parked ones (park), whose values would otherwise be
 * the zeros of the branches they skip (and NaN after a division), libmvec's slow path. */
static li eval_mask(const Group *g, li mask) { return mask | ~live_mask(g); }

static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }

/* Lane l of the group <-> its scalar instance: the whole ModelInstance and the AB2 history. */
static void to_scalar(Group *g, int l)
{
    Core *core = &g->c[l]->core;
    int k;
    core->m.time = g->m.time;
    for (k = 0; k < N_REALS; k++) core->m.r[k] = g->m.r[k][l];
    for (k = 0; k < N_INTEGERS; k++) core->m.i[k] = (int)g->m.i[k][l];
    for (k = 0; k < N_BOOLEANS; k++) core->m.b[k] = (int)g->m.b[k][l];
    for (k = 0; k < N_STATES; k++) { core->f_prev[k] = g->f_prev[k][l]; core->f_before_jump[k] = g->f_before_jump[k][l]; }
    core->history = g->history[l];
    core->h_prev = g->h_prev[l];
    core->inputs_jumped = g->jumped[l];
    core->dirty = g->dirty[l];
}

static void from_scalar(Group *g, int l)
{
    const Core *core = &g->c[l]->core;
    int k;
    for (k = 0; k < N_REALS; k++) g->m.r[k][l] = core->m.r[k];
    for (k = 0; k < N_INTEGERS; k++) g->m.i[k][l] = core->m.i[k];
    for (k = 0; k < N_BOOLEANS; k++) g->m.b[k][l] = core->m.b[k];
    for (k = 0; k < N_STATES; k++) { g->f_prev[k][l] = core->f_prev[k]; g->f_before_jump[k][l] = core->f_before_jump[k]; }
    g->history[l] = core->history;
    g->h_prev[l] = core->h_prev;
    g->jumped[l] = core->inputs_jumped;
    g->dirty[l] = core->dirty;
}

/* Lane l, which no longer steps (unused, failed or done), computes on as a copy of a lane that does: every
 * lane of an evaluation then holds finite, ordinary values, and libmvec stays off its path for special inputs
 * (NaN, huge arguments), which handles each element of the whole vector in scalar code (at 8 lanes, 4 vehicles:
 * 2.19 us per vehicle and simulated ms instead of 0.64). Its results are recorded already. */
static void park(Group *g, int l)
{
    int src = -1, k;
    for (k = 0; k < LANES && src < 0; k++)
        if (k != l && g->live[k] && !g->done[k]) src = k;
    if (src < 0)
        return;
    for (k = 0; k < N_REALS; k++) g->m.r[k][l] = g->m.r[k][src];
    for (k = 0; k < N_INTEGERS; k++) g->m.i[k][l] = g->m.i[k][src];
    for (k = 0; k < N_BOOLEANS; k++) g->m.b[k][l] = g->m.b[k][src];
    for (k = 0; k < N_STATES; k++) g->f_prev[k][l] = g->f_prev[k][src];
    g->h_prev[l] = g->h_prev[src];
}

static void lane_failed(LaneRun *run, Group *g, int l, int call, int status, size_t k)
{
    size_t v = g->vehicle[l];
    run->failed_call[v] = call;
    run->status[v] = status;
    run->last_point[v] = k;
    g->live[l] = 0;
    park(g, l);
}

/* shift_history of every lane whose inputs jumped (after an evaluation at the new inputs) */
static void shift_history_lanes(Group *g)
{
    for (int l = 0; l < LANES; l++) {
        if (g->jumped[l] && g->history[l])
            for (int j = 0; j < N_STATES; j++)
                g->f_prev[j][l] += g->m.r[DERIVATIVE_VR[j]][l] - g->f_before_jump[j][l];
        g->jumped[l] = 0;
    }
}

/* The evaluation fmi2GetReal (full) or fmi2DoStep's start (derivatives only) makes on dirty lanes. */
static void refresh(Group *g, int full)
{
    int any = 0;
    for (int l = 0; l < LANES; l++) any |= g->dirty[l] && g->live[l] && !g->done[l];
    if (!any)
        return;
    if (full) lane_outputs_and_derivatives(&g->m, eval_mask(g, live_mask(g)));
    else lane_derivatives(&g->m, eval_mask(g, live_mask(g)));
    shift_history_lanes(g);
    for (int l = 0; l < LANES; l++)
        if (g->dirty[l] && full) g->dirty[l] = 0;
}

/* speed_control.h's command for this run's gains and vehicle v's feed-forward */
static void speed_controller(const LaneRun *run, size_t v, double *integral, size_t k, double t, double speed,
                             double *throttle, double *brake)
{
    speed_command(run->targets, run->target, run->kp, run->ki, run->holds ? run->holds[v] : run->hold, run->h,
                  run->brake_gain, integral, k, t, speed, throttle, brake);
}

/* The inputs of point k for lane l (table row, PI pedals) and the end conditions (manoeuvre_runner's inputs_at). */
static void inputs_at(LaneRun *run, Group *g, int l, size_t k)
{
    double *row = g->input_row[l];
    double t = run->times[k];
    size_t v = g->vehicle[l];
    if (run->n_inputs)
        memcpy(row, run->inputs + k * run->n_inputs, run->n_inputs * sizeof(double));
    if (run->speed_control) {
        double speed = k ? g->m.r[run->speed_vr][l] : run->initial_speed;
        speed_controller(run, v, &g->integral[l], k, t, speed, &row[run->throttle_column], &row[run->brake_column]);
    }
    if (run->n_watched && k > 0 && k < run->count && k % run->check_every == 0) {
        size_t c;
        int end = 0;
        for (c = 0; c < run->n_conditions; c++) {
            double value = g->m.r[run->watched_vrs[run->condition_channel[c]]][l];
            if (run->condition_below[c] ? value < run->condition_threshold[c] : fabs(value) > run->condition_threshold[c])
                end = 1;
        }
        run->stopped[v] = end || t >= run->duration;
    }
}

/* fmi2SetReal of the inputs on lane l: an input set to a new value is a jump (input_jump). */
static void set_inputs_lane(LaneRun *run, Group *g, int l)
{
    for (size_t j = 0; j < run->n_inputs; j++) {
        unsigned int vr = run->input_vrs[j];
        double value = g->input_row[l][j];
        if (g->m.r[vr][l] != value) {
            if (g->history[l] && !g->jumped[l] && !g->dirty[l]) {
                for (int s = 0; s < N_STATES; s++) g->f_before_jump[s][l] = g->m.r[DERIVATIVE_VR[s]][l];
#ifdef INPUT_ARRAY
                /* a wrapper with the input Jacobian (input_jacobian.h) keeps the inputs before the jump */
                for (int i = 0; i < N_INPUT_REAL; i++) g->c[l]->core.u_before_jump[i] = g->m.r[INPUT_REAL[i]][l];
#endif
                g->jumped[l] = 1;
            } else if (!g->jumped[l]) {
                g->history[l] = 0;
            }
            g->dirty[l] = 1;
        }
        g->m.r[vr][l] = value;
    }
}

static void record(LaneRun *run, Group *g, int l)
{
    size_t v = g->vehicle[l];
    double *out = run->outputs + (v * run->rows_capacity + run->rows[v]) * run->n_outputs;
    for (size_t j = 0; j < run->n_outputs; j++) out[j] = g->m.r[run->output_vrs[j]][l];
    run->rows[v]++;
}

/* Point k's exchange for every lane: inputs, then the outputs where recorded (manoeuvre_runner's exchange). */
static void exchange_all(LaneRun *run, Group *g, size_t k)
{
    int l, any = 0;
    for (l = 0; l < LANES; l++)
        if (g->live[l] && !g->done[l]) {
            inputs_at(run, g, l, k);
            set_inputs_lane(run, g, l);
            any |= k % run->record_every == 0 || run->stopped[g->vehicle[l]];
        }
    if (any)
        refresh(g, 1);
    for (l = 0; l < LANES; l++)
        if (g->live[l] && !g->done[l]) {
            size_t v = g->vehicle[l];
            if (k % run->record_every == 0 || run->stopped[v])
                record(run, g, l);
            run->last_point[v] = k;
            g->done[l] = run->stopped[v];
            if (g->done[l])
                park(g, l);
        }
}

/* fmi2DoStep's internal step s of n from the communication point t0 (step `fixed`, ending at t_end) */
static double internal_time(double t0, double fixed, long s) { return t0 + (double)s * fixed; }
static double internal_end(double t0, double fixed, long s, long n, double t_end)
{
    return s == n - 1 ? t_end : internal_time(t0, fixed, s) + fixed;
}

/* Lane l's internal step s (of n in the communication step from t0 to t_end) on its scalar instance from
 * the step's start (the states x0, the discrete values and the history before it), and the internal steps
 * after it: fmi2DoStep's own internal_step, events located. The caller copies the instance back into the
 * lane once the other lanes are done with the communication step. */
static int scalar_step(LaneRun *run, Group *g, int l, const int *snap_i, const int *snap_b, const double *snap_r,
                       double h_prev, double t0, double fixed, long s, long n, double t_end)
{
    const double t = internal_time(t0, fixed, s);
    Component *c = g->c[l];
    Core *core = &c->core;
    int k;
    to_scalar(g, l);
    for (k = 0; k < N_STATES; k++) { core->m.r[STATE_VR[k]] = g->x0[k][l]; core->f_prev[k] = g->f_start[k][l]; }
    memcpy(core->m.i, snap_i, sizeof(core->m.i));
    memcpy(core->m.b, snap_b, sizeof(core->m.b));
    for (k = 0; k < N_DISCRETE_REAL; k++) core->m.r[DISCRETE_REAL[k]] = snap_r[k];
    core->m.time = t;
    core->history = LANE_MULTISTEP;
    core->h_prev = h_prev;
    core->inputs_jumped = 0;
    if (!evaluate(c))
        return 0;
    for (; s < n; s++)
        if (!internal_step(c, t0, internal_time(t0, fixed, s), internal_end(t0, fixed, s, n, t_end)))
            return 0;
    run->scalar_steps[g->vehicle[l]]++;
    return 1;
}

/* Whether lane l's model_discrete_update changes anything at the end of the step (on its scalar instance,
 * given the values it reads); 0 if the model failed. discrete_update's own check less the states, which the
 * generated model_discrete_update never writes (a when-clause assigns discrete variables only, no reinit), so
 * they need no copy and no comparison; the vector finiteness sum of fast_step replaces its finiteness check. */
static int discrete_check(Group *g, int l, int *changed)
{
    Component *c = g->c[l];
    ModelInstance *s = &c->core.m;
    int k, diff = 0;
    s->time = g->m.time;
    for (k = 0; k < N_LANE_DISCRETE_R; k++) s->r[LANE_DISCRETE_R[k]] = g->m.r[LANE_DISCRETE_R[k]][l];
    for (k = 0; k < N_DISCRETE_REAL; k++) s->r[DISCRETE_REAL[k]] = g->m.r[DISCRETE_REAL[k]][l];
    for (k = 0; k < N_INTEGERS; k++) s->i[k] = (int)g->m.i[k][l];
    for (k = 0; k < N_BOOLEANS; k++) s->b[k] = (int)g->m.b[k][l];
    c->model_failed = 0;
    model_discrete_update(s);
    if (c->model_failed)
        return 0;
    for (k = 0; k < N_INTEGERS; k++) diff |= s->i[k] != (int)g->m.i[k][l];
    for (k = 0; k < N_BOOLEANS; k++) diff |= s->b[k] != (int)g->m.b[k][l];
    for (k = 0; k < N_DISCRETE_REAL; k++) diff |= s->r[DISCRETE_REAL[k]] != g->m.r[DISCRETE_REAL[k]][l];
    *changed = diff;
    return 1;
}

/* rk4_step's first three stages and its combination on the lanes of `mask` from (t, x0) over h (the
 * derivatives at the start in the instance; the other lanes keep x0); the caller evaluates the end point. */
static void rk4_stages(Group *g, li mask, double t, double h)
{
    const lv half_h = lbd(0.5 * h), full_h = lbd(h), sixth_h = lbd(h / 6.0);
    int j;
    for (j = 0; j < N_STATES; j++) {
        g->x0[j] = g->m.r[STATE_VR[j]];
        g->acc[j] = g->m.r[DERIVATIVE_VR[j]];                              /* k1 */
        g->m.r[STATE_VR[j]] = g->x0[j] + half_h * g->acc[j];
    }
    g->m.time = t + 0.5 * h;
    lane_derivatives(&g->m, eval_mask(g, mask));
    for (j = 0; j < N_STATES; j++) {
        const lv k2 = g->m.r[DERIVATIVE_VR[j]];
        g->acc[j] += 2.0 * k2;
        g->m.r[STATE_VR[j]] = g->x0[j] + half_h * k2;
    }
    lane_derivatives(&g->m, eval_mask(g, mask));
    for (j = 0; j < N_STATES; j++) {
        const lv k3 = g->m.r[DERIVATIVE_VR[j]];
        g->acc[j] += 2.0 * k3;
        g->m.r[STATE_VR[j]] = g->x0[j] + full_h * k3;
    }
    g->m.time = t + h;
    lane_derivatives(&g->m, eval_mask(g, mask));
    for (j = 0; j < N_STATES; j++)
        g->m.r[STATE_VR[j]] = lsel(mask, g->x0[j] + sixth_h * (g->acc[j] + g->m.r[DERIVATIVE_VR[j]]), g->x0[j]);
}

/* The fast lanes' internal step (AB2, or RK4) from t to t_next (h), with its checks; a lane whose discrete update
 * changes something redoes it, and the rest of the communication step, on its scalar instance. */
static void fast_step(LaneRun *run, Group *g, int *fast, int *redone, size_t k, double t0, double fixed, long s, long n,
                      double t_end)
{
    static int snap_i[LANES][N_INTEGERS], snap_b[LANES][N_BOOLEANS];
    static double snap_r[LANES][N_DISCRETE_REAL > 0 ? N_DISCRETE_REAL : 1];
    const double t = internal_time(t0, fixed, s), t_next = internal_end(t0, fixed, s, n, t_end), h = t_next - t;
    const lv h_prev = g->h_prev, half_ratio = lbd(0.5 * h) / h_prev;
    int l, j;
    li mask;
    for (l = 0; l < LANES; l++) {
        mask[l] = fast[l] ? -1 : 0;
        if (!fast[l])
            continue;
        for (j = 0; j < N_INTEGERS; j++) snap_i[l][j] = (int)g->m.i[j][l];
        for (j = 0; j < N_BOOLEANS; j++) snap_b[l][j] = (int)g->m.b[j][l];
        for (j = 0; j < N_DISCRETE_REAL; j++) snap_r[l][j] = g->m.r[DISCRETE_REAL[j]][l];
    }
    if (LANE_MULTISTEP)
        for (j = 0; j < N_STATES; j++) {
            const lv x = g->m.r[STATE_VR[j]], f = g->m.r[DERIVATIVE_VR[j]];
            g->x0[j] = x;
            g->f_start[j] = g->f_prev[j];
            g->m.r[STATE_VR[j]] = lsel(mask, x + lbd(h) * ((1.0 + half_ratio) * f - half_ratio * g->f_prev[j]), x);
            g->f_prev[j] = lsel(mask, f, g->f_prev[j]);
        }
    else
        rk4_stages(g, mask, t, h);
    g->m.time = t_next;
    lane_outputs_and_derivatives(&g->m, eval_mask(g, mask));
    lv not_finite = lbd(0.0);     /* per lane: fmi2DoStep's finiteness sum, in its order */
    for (j = 0; j < N_STATES; j++) {
        const lv x = g->m.r[STATE_VR[j]], f = g->m.r[DERIVATIVE_VR[j]];
        not_finite += (x - x) + (f - f);
    }
    for (l = 0; l < LANES; l++) {
        int changed = 0;
        if (!fast[l])
            continue;
        g->history[l] = LANE_MULTISTEP;
        g->h_prev[l] = h;
        g->jumped[l] = 0;
        g->dirty[l] = 0;
        if (not_finite[l] != 0.0 || !discrete_check(g, l, &changed)) {
            lane_failed(run, g, l, CALL_DO_STEP, fmi2Error, k);
            fast[l] = 0;
        } else if (changed) {
            if (!scalar_step(run, g, l, snap_i[l], snap_b[l], snap_r[l], h_prev[l], t0, fixed, s, n, t_end))
                lane_failed(run, g, l, CALL_DO_STEP, fmi2Error, k);
            else
                redone[l] = 1;
            fast[l] = 0;
        }
    }
}

/* The communication step to point k for every lane of the group: fmi2DoStep's internal steps. */
static void step_all(LaneRun *run, Group *g, size_t k)
{
    const double t0 = run->times[k - 1], t_end = run->times[k], h = t_end - t0;
    const double fixed = g->c[0]->core.m.r[VR_fixedStepSize];
    long n = (long)ceil(h / fixed - 1e-9), s;
    int fast[LANES], slow[LANES], redone[LANES] = {0}, l, any_fast = 0;
    if (n < 1)
        n = 1;
    for (l = 0; l < LANES; l++) {
        int active = g->live[l] && !g->done[l];
        fast[l] = active && (g->history[l] || !LANE_MULTISTEP) && !g->c[l]->core.any_input_der &&
                  g->c[l]->core.m.r[VR_fixedStepSize] == fixed;
#ifdef INPUT_ARRAY
        /* the step start after an input jump comes from the wrapper's input Jacobian: the scalar instance's */
        fast[l] = fast[l] && !(g->dirty[l] && g->jumped[l]);
#endif
        slow[l] = active && !fast[l];
        if (slow[l])
            to_scalar(g, l);
        any_fast |= fast[l];
    }
    if (any_fast) {
        refresh(g, 0);
        for (s = 0; s < n; s++)
            fast_step(run, g, fast, redone, k, t0, fixed, s, n, t_end);
    }
    g->m.time = t_end;
    for (l = 0; l < LANES; l++) {
        int status;
        if (redone[l])
            from_scalar(g, l);
        if (!slow[l])
            continue;
        status = fmi2DoStep(g->c[l], t0, h, fmi2True);
        if (status > fmi2Warning) {
            lane_failed(run, g, l, CALL_DO_STEP, status, k);
            continue;
        }
        from_scalar(g, l);
        run->scalar_steps[g->vehicle[l]]++;
    }
}

/* One group of up to LANES vehicles (lanes past n_lanes repeat the first vehicle, inactive). */
static void run_group(LaneRun *run, size_t first, int n_lanes)
{
    static Group group;
    Group *g = &group;
    int l;
    size_t k;
    memset(g, 0, sizeof(*g));
    for (l = 0; l < LANES; l++) {
        size_t v = first + (size_t)(l < n_lanes ? l : 0);
        Component *c = run->vehicles[v];
        int status;
        g->vehicle[l] = v;
        g->c[l] = c;
        g->m.scalar[l] = &c->core.m;
        g->live[l] = l < n_lanes;
        if (!g->live[l])
            continue;
        run->rows[v] = run->last_point[v] = run->scalar_steps[v] = 0;
        run->stopped[v] = run->failed_call[v] = run->status[v] = 0;
        if ((status = fmi2SetupExperiment(c, 0, 0.0, run->start_time, 1, run->stop_time)) > fmi2Warning) {
            lane_failed(run, g, l, CALL_SETUP, status, 0);
            continue;
        }
        from_scalar(g, l);
        g->m.time = c->core.m.time;
        inputs_at(run, g, l, 0);
        if (run->n_inputs && (status = fmi2SetReal(c, run->input_vrs, run->n_inputs, g->input_row[l])) > fmi2Warning) {
            lane_failed(run, g, l, CALL_SET_INPUTS, status, 0);
            continue;
        }
        if ((status = fmi2EnterInitializationMode(c)) > fmi2Warning || (status = fmi2ExitInitializationMode(c)) > fmi2Warning) {
            lane_failed(run, g, l, CALL_EXIT, status, 0);
            continue;
        }
        from_scalar(g, l);
        record(run, g, l);
    }
    for (l = 0; l < LANES; l++)
        if (!g->live[l])
            park(g, l);            /* the unused lanes, and those whose start failed */
    g->m.time = run->times[0];
    for (k = 1; k <= run->count; k++) {
        int any = 0;
        for (l = 0; l < LANES; l++) any |= g->live[l] && !g->done[l];
        if (!any)
            break;
        step_all(run, g, k);
        exchange_all(run, g, k);
    }
}

/* Every vehicle of the run, LANES at a time; returns LANES. */
int lane_run(LaneRun *run)
{
    size_t first;
    for (first = 0; first < run->n_vehicles; first += LANES) {
        size_t left = run->n_vehicles - first;
        run_group(run, first, left < LANES ? (int)left : LANES);
    }
    return LANES;
}

int lane_count(void) { return LANES; }
