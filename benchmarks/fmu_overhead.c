/* Cost of the shared FMI wrapper around a native model, measured from C (no Python in the loop).
 *
 * usage: fmu_overhead LIBRARY GUID PARAMS_FILE [STEPS [N_STATES]]
 *   PARAMS_FILE: "vr value" lines, the Real parameters written by a parameter fill.
 *
 * Prints one JSON object:
 *   eval_ns       one model evaluation (model_outputs_and_derivatives) through Model Exchange:
 *                 fmi2SetTime + fmi2GetDerivatives
 *   dostep_ns     one fmi2DoStep of 1 ms (= one RK4 step: 4 evaluations + the wrapper's bookkeeping)
 *   dostep_minus_4_evals_ns  dostep_ns - 4 * eval_ns: an estimate of what the wrapper adds per internal
 *                 step (noisy: the ME loop evaluates at a fixed state, so branch prediction and caches
 *                 favour it; a counting build shows exactly 4 evaluations per internal step)
 *   reset_fill_ns fmi2Reset + every Real parameter set + setup/enter/exit initialization
 */
#include "fmi2_harness.h"

#define LOAD(type, name) type name = (type)dlsym(lib, #name); if (!name) { fprintf(stderr, "no " #name "\n"); return 1; }

typedef fmi2Component (*Instantiate_t)(const char *, int, const char *, const char *, const fmi2CallbackFunctions *,
                                       fmi2Boolean, fmi2Boolean);
typedef fmi2Status (*Setup_t)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real);
typedef fmi2Status (*Simple_t)(fmi2Component);
typedef void (*Free_t)(fmi2Component);
typedef fmi2Status (*SetReal_t)(fmi2Component, const fmi2ValueReference *, size_t, const fmi2Real *);
typedef fmi2Status (*DoStep_t)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
typedef fmi2Status (*SetTime_t)(fmi2Component, fmi2Real);
typedef fmi2Status (*GetDer_t)(fmi2Component, fmi2Real *, size_t);
typedef fmi2Status (*NewDiscrete_t)(fmi2Component, fmi2EventInfo *);

int main(int argc, char **argv)
{
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    fmi2ValueReference vrs[100000];
    fmi2Real values[100000], der[4096];
    size_t nparams = 0, nx;
    long steps = argc > 4 ? atol(argv[4]) : 200000, k;
    double t0, t_eval, t_step, t_reset;
    void *lib;
    FILE *f;
    fmi2Component me, cs;
    if (argc < 4) {
        fprintf(stderr, "usage: %s LIBRARY GUID PARAMS_FILE [STEPS [N_STATES]]\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    f = fopen(argv[3], "r");
    while (f && nparams < 100000 && fscanf(f, "%u %lf", &vrs[nparams], &values[nparams]) == 2)
        nparams++;
    if (f)
        fclose(f);
    nx = argc > 5 ? (size_t)atol(argv[5]) : 0;
    {
        LOAD(Instantiate_t, fmi2Instantiate)
        LOAD(Setup_t, fmi2SetupExperiment)
        LOAD(Simple_t, fmi2EnterInitializationMode)
        LOAD(Simple_t, fmi2ExitInitializationMode)
        LOAD(Simple_t, fmi2Reset)
        LOAD(Simple_t, fmi2EnterContinuousTimeMode)
        LOAD(Free_t, fmi2FreeInstance)
        LOAD(SetReal_t, fmi2SetReal)
        LOAD(DoStep_t, fmi2DoStep)
        LOAD(SetTime_t, fmi2SetTime)
        LOAD(GetDer_t, fmi2GetDerivatives)
        LOAD(NewDiscrete_t, fmi2NewDiscreteStates)
        fmi2EventInfo info;

        /* model evaluation through Model Exchange */
        me = fmi2Instantiate("me", 0, argv[2], "", &cb, 0, 0);
        if (!me) return 1;
        fmi2SetupExperiment(me, 0, 0, 0, 0, 0);
        fmi2EnterInitializationMode(me);
        fmi2ExitInitializationMode(me);
        fmi2NewDiscreteStates(me, &info);
        fmi2EnterContinuousTimeMode(me);
        t0 = now();
        for (k = 0; k < steps; k++) {
            fmi2SetTime(me, 1e-6 * (double)k);
            if (fmi2GetDerivatives(me, der, nx) != 0) return 1;
        }
        t_eval = (now() - t0) / (double)steps;
        fmi2FreeInstance(me);

        /* fmi2DoStep of 1 ms */
        cs = fmi2Instantiate("cs", 1, argv[2], "", &cb, 0, 0);
        if (!cs) return 1;
        fmi2SetupExperiment(cs, 0, 0, 0, 0, 0);
        fmi2EnterInitializationMode(cs);
        fmi2ExitInitializationMode(cs);
        t0 = now();
        for (k = 0; k < steps; k++)
            if (fmi2DoStep(cs, 1e-3 * (double)k, 1e-3, 1) != 0) return 1;
        t_step = (now() - t0) / (double)steps;

        /* reset + parameter fill + initialization */
        t0 = now();
        for (k = 0; k < 2000; k++) {
            fmi2Reset(cs);
            fmi2SetReal(cs, vrs, nparams, values);
            fmi2SetupExperiment(cs, 0, 0, 0, 0, 0);
            fmi2EnterInitializationMode(cs);
            if (fmi2ExitInitializationMode(cs) != 0) return 1;
        }
        t_reset = (now() - t0) / 2000.0;
        fmi2FreeInstance(cs);
    }
    printf("{\"eval_ns\": %.1f, \"dostep_ns\": %.1f, \"dostep_minus_4_evals_ns\": %.1f, \"reset_fill_ns\": %.1f, "
           "\"parameters\": %lu, \"steps\": %ld}\n",
           1e9 * t_eval, 1e9 * t_step, 1e9 * (t_step - 4 * t_eval), 1e9 * t_reset, (unsigned long)nparams, steps);
    return 0;
}
