/* Part of fmi2_wrapper.c (included by it, after the instance and its evaluation functions): the
 * derivatives where a multistep step starts after held Real inputs jumped, without a model evaluation.
 *
 * A rig sets new inputs before every fmi2DoStep. The step's last evaluation gave f(x, u_old); the step
 * needs f(x, u_new), and the history (f_prev) shifted by the same jump (shift_history). Instead of a
 * second evaluation, the jump is taken from the input Jacobian: f(x, u_new) = f(x, u_old) + sum_i B_i du_i,
 * with B_i = d f / d u_i one column per Real input. A column is the secant of a measured jump: the
 * derivatives evaluated with input i moved from its old to its new value (the others as before), i.e.
 * the exact step start when only that input changed. A changed input's column is measured again when
 * it is older than INPUT_JACOBIAN_REFRESH internal steps (as IMEX2 refreshes its stiffness estimate),
 * when its jump is more than INPUT_JUMP_RATIO times the jump it was measured with (a larger, e.g. a
 * discontinuous, jump would be extrapolated; the bound also keeps the round-off of a column measured
 * with a small jump at round-off in the prediction), and after a discrete change of the model (a gear
 * shift changes the columns: discrete_update forgets them). The other changed inputs are predicted.
 *
 * The error of a predicted step start is (B_measured - B) du + O(du^2): with du = O(h) (inputs that change
 * every step) and a column at most INPUT_JACOBIAN_REFRESH steps old, O(h^2) in the derivatives and O(h^3)
 * in the step, so the methods stay second order. IMEX2's measurement of its stiff diagonal needs the exact
 * derivatives at the step point: measure_stiff_diagonal evaluates them first where they were predicted. */

/* Internal steps a column of the input Jacobian is used for before it is measured again */
#define INPUT_JACOBIAN_REFRESH 20
/* A jump more than this many times the one a column was measured with is measured */
#define INPUT_JUMP_RATIO 2.0

/* Is every changed Real input's column fresh enough for its jump? Marks the changed inputs in jac_todo
 * (1: predict, 2: measure). */
static int input_jump_predictable(Component *c)
{
    Core *core = &c->core;
    const ModelInstance *m = &core->m;
    const double max_age = INPUT_JACOBIAN_REFRESH * FIXED_STEP(m) * (1.0 + 1e-9);
    int i, all = 1;
    for (i = 0; i < N_INPUT_REAL; i++) {
        const double du = fabs(m->r[INPUT_REAL[i]] - core->u_before_jump[i]);
        int todo = 0;
        if (du != 0) {           /* NaN too: measured, so that it reaches the derivatives */
            const int fresh = core->jac_du[i] > 0 && m->time - core->jac_time[i] <= max_age
                              && du <= INPUT_JUMP_RATIO * core->jac_du[i];
            todo = fresh ? 1 : 2;
            all &= fresh;
        }
        c->jac_todo[i] = (unsigned char)todo;
    }
    return all;
}

/* Measures the columns marked 2 by input_jump_predictable: from the inputs before the jump, the marked
 * inputs are moved to their new values one after the other, an evaluation of the derivatives each; a
 * column is the change of the derivatives over its input's jump. Leaves the derivatives of the last
 * evaluation in acc (f_before_jump if none) and every input at its new value. */
static int measure_input_columns(Component *c)
{
    Core *core = &c->core;
    ModelInstance *m = &core->m;
    double *base = c->acc;
    int i, j;
    memcpy(base, core->f_before_jump, sizeof(core->f_before_jump));
    for (i = 0; i < N_INPUT_REAL; i++) {
        c->jac_u_new[i] = m->r[INPUT_REAL[i]];
        m->r[INPUT_REAL[i]] = core->u_before_jump[i];
    }
    for (i = 0; i < N_INPUT_REAL; i++) {
        const double du = c->jac_u_new[i] - core->u_before_jump[i];
        double *column = core->jac[i], not_finite = 0.0;
        if (c->jac_todo[i] != 2)
            continue;
        m->r[INPUT_REAL[i]] = c->jac_u_new[i];
        if (!evaluate_derivatives(c))
            return 0;
        for (j = 0; j < N_STATES; j++) {
            const double f = m->r[DERIVATIVE_VR[j]];
            column[j] = (f - base[j]) / du;
            not_finite += column[j] - column[j];
            base[j] = f;
        }
        core->jac_du[i] = not_finite == 0.0 ? fabs(du) : 0.0;   /* a column that is not finite is not kept */
        core->jac_time[i] = m->time;
    }
    for (i = 0; i < N_INPUT_REAL; i++)
        m->r[INPUT_REAL[i]] = c->jac_u_new[i];
    return 1;
}

/* The derivatives at the step start after held Real inputs jumped (a multistep method with a history):
 * measured columns where needed (see above), the other changed inputs' effect predicted; then the
 * history shift. */
static int input_jump_derivatives(Component *c)
{
    Core *core = &c->core;
    ModelInstance *m = &core->m;
    int i, j, predicted = 0;
    if (input_jump_predictable(c))
        memcpy(c->acc, core->f_before_jump, sizeof(core->f_before_jump));
    else if (!measure_input_columns(c))
        return 0;
    for (j = 0; j < N_STATES; j++)
        m->r[DERIVATIVE_VR[j]] = c->acc[j];
    for (i = 0; i < N_INPUT_REAL; i++) {
        if (c->jac_todo[i] == 1) {
            const double du = m->r[INPUT_REAL[i]] - core->u_before_jump[i], *column = core->jac[i];
            for (j = 0; j < N_STATES; j++)
                m->r[DERIVATIVE_VR[j]] += column[j] * du;
            predicted = 1;
        }
    }
    core->f_predicted = predicted;
    shift_history(core);
    return 1;
}

/* The derivatives at the current point evaluated where they were predicted, the history shift corrected
 * by the difference (IMEX2's measurement of its stiff diagonal needs them exact). */
static int exact_derivatives(Component *c)
{
    Core *core = &c->core;
    ModelInstance *m = &core->m;
    int j;
    if (!core->f_predicted)
        return 1;
    for (j = 0; j < N_STATES; j++)
        c->x0[j] = m->r[DERIVATIVE_VR[j]];
    if (!evaluate_derivatives(c))
        return 0;
    for (j = 0; j < N_STATES; j++)
        core->f_prev[j] += m->r[DERIVATIVE_VR[j]] - c->x0[j];
    return 1;
}
