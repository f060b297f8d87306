/* Speed of a native RTM14DoF Co-Simulation FMU as a HIL rig drives it.
 *
 * Loads the FMU's shared library with dlopen, instantiates it once and runs a 20 s step steer with
 * fmi2DoStep every 1 ms (inputs set before every step, two outputs read after it), several times with
 * the same instance: fmi2Reset and a full parameter fill (every Real parameter of the model, as an
 * identification run writes its parameter set) between runs. Prints one JSON object.
 *
 * usage: rtm_speed LIBRARY GUID RESOURCE_URI VR_FILE [RUNS [STOP_TIME [STEP [STEER]]]]
 *   STEER: "step" (default) or "sine": a 0.5 Hz sine of 40 deg amplitude from t = 1 s, so the input
 *   changes at every step as a driver's or a rig's signal does.
 *   VR_FILE: "name vr" lines for steeringWheelAngle, throttle, brakePedal, initialSpeed, yawRate, ay,
 *   then "param vr value" lines: the parameter fill.
 */
#include "fmi2_harness.h"

#include <math.h>

typedef fmi2Component (*Instantiate)(const char *, int, const char *, const char *, const fmi2CallbackFunctions *,
                                     fmi2Boolean, fmi2Boolean);
typedef fmi2Status (*SetupExperiment)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real);
typedef fmi2Status (*Simple)(fmi2Component);
typedef void (*FreeInstance)(fmi2Component);
typedef fmi2Status (*SetReal)(fmi2Component, const fmi2ValueReference *, size_t, const fmi2Real *);
typedef fmi2Status (*GetReal)(fmi2Component, const fmi2ValueReference *, size_t, fmi2Real *);
typedef fmi2Status (*DoStep)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);


static void *symbol(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "rtm_speed: %s not found in the FMU library\n", name);
        exit(2);
    }
    return p;
}

static int compare(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define CHECK(call)                                                         \
    do {                                                                    \
        if ((call) > 1) {                                                   \
            fprintf(stderr, "rtm_speed: %s failed at line %d\n", #call, __LINE__); \
            return 1;                                                       \
        }                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: rtm_speed LIBRARY GUID RESOURCE_URI VR_FILE [RUNS [STOP_TIME [STEP]]]\n");
        return 2;
    }
    const int runs = argc > 5 ? atoi(argv[5]) : 5;
    const double stop = argc > 6 ? atof(argv[6]) : 20.0;
    const double h = argc > 7 ? atof(argv[7]) : 1e-3;
    const int sine = argc > 8 && !strcmp(argv[8], "sine");
    const long steps = (long)(stop / h + 0.5);

    /* value references and the parameter fill */
    FILE *f = fopen(argv[4], "r");
    if (!f) {
        fprintf(stderr, "rtm_speed: cannot read %s\n", argv[4]);
        return 2;
    }
    fmi2ValueReference vrSteer = 0, vrThrottle = 0, vrBrake = 0, vrSpeed = 0, vrOut[2] = {0, 0};
    size_t nFill = 0, capFill = 1024;
    fmi2ValueReference *fillVr = malloc(capFill * sizeof *fillVr);
    double *fillValue = malloc(capFill * sizeof *fillValue);
    char key[256];
    unsigned vr;
    while (fscanf(f, "%255s %u", key, &vr) == 2) {
        if (!strcmp(key, "param")) {
            double value;
            if (fscanf(f, "%lf", &value) != 1)
                break;
            if (nFill == capFill) {
                capFill *= 2;
                fillVr = realloc(fillVr, capFill * sizeof *fillVr);
                fillValue = realloc(fillValue, capFill * sizeof *fillValue);
            }
            fillVr[nFill] = vr;
            fillValue[nFill++] = value;
        } else if (!strcmp(key, "steeringWheelAngle")) vrSteer = vr;
        else if (!strcmp(key, "throttle")) vrThrottle = vr;
        else if (!strcmp(key, "brakePedal")) vrBrake = vr;
        else if (!strcmp(key, "initialSpeed")) vrSpeed = vr;
        else if (!strcmp(key, "yawRate")) vrOut[0] = vr;
        else if (!strcmp(key, "ay")) vrOut[1] = vr;
    }
    fclose(f);

    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "rtm_speed: %s\n", dlerror());
        return 2;
    }
    Instantiate instantiate = (Instantiate)symbol(lib, "fmi2Instantiate");
    SetupExperiment setup = (SetupExperiment)symbol(lib, "fmi2SetupExperiment");
    Simple enterInit = (Simple)symbol(lib, "fmi2EnterInitializationMode");
    Simple exitInit = (Simple)symbol(lib, "fmi2ExitInitializationMode");
    Simple reset = (Simple)symbol(lib, "fmi2Reset");
    Simple terminate = (Simple)symbol(lib, "fmi2Terminate");
    FreeInstance freeInstance = (FreeInstance)symbol(lib, "fmi2FreeInstance");
    SetReal setReal = (SetReal)symbol(lib, "fmi2SetReal");
    GetReal getReal = (GetReal)symbol(lib, "fmi2GetReal");
    DoStep doStep = (DoStep)symbol(lib, "fmi2DoStep");

    const fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    fmi2Component c = instantiate("bench", 1 /* fmi2CoSimulation */, argv[2], argv[3], &callbacks, 0, 0);
    if (!c) {
        fprintf(stderr, "rtm_speed: fmi2Instantiate failed\n");
        return 1;
    }
    double *stepTime = malloc(sizeof(double) * runs), *prepTime = malloc(sizeof(double) * runs);
    double *cpuTime = malloc(sizeof(double) * runs);
    double checksum = 0, maxYawRate = 0;
    for (int run = 0; run < runs; run++) {
        const double t0 = now();
        if (run)
            CHECK(reset(c));
        CHECK(setup(c, 0, 0.0, 0.0, 1, stop));
        CHECK(enterInit(c));
        CHECK(setReal(c, fillVr, nFill, fillValue));
        const fmi2ValueReference initVr[3] = {vrSpeed, vrThrottle, vrBrake};
        const double initValue[3] = {80 / 3.6, 0.12, 0.0};
        CHECK(setReal(c, initVr, 3, initValue));
        CHECK(exitInit(c));
        const double t1 = now();
        const double c1 = thread_cpu_now();
        for (long k = 0; k < steps; k++) {
            const double t = (double)k * h;
            /* ISO 7401 step steer: 40 deg at the wheel in 0.2 s from t = 1 s, throttle held (or the sine) */
            const double swa = 0.6981317007977318 * (t < 1 ? 0 : sine ? sin(3.141592653589793 * (t - 1))
                                                                 : (t > 1.2 ? 1 : (t - 1) / 0.2));
            const fmi2ValueReference inVr[2] = {vrSteer, vrThrottle};
            const double in[2] = {swa, 0.12};
            double out[2];
            CHECK(setReal(c, inVr, 2, in));
            CHECK(doStep(c, t, h, 1));
            CHECK(getReal(c, vrOut, 2, out));
            checksum += out[1];
            if (out[0] > maxYawRate)
                maxYawRate = out[0];
        }
        const double t2 = now();
        const double c2 = thread_cpu_now();
        prepTime[run] = t1 - t0;
        stepTime[run] = (t2 - t1) / (double)steps;
        cpuTime[run] = (c2 - c1) / (double)steps;
    }
    terminate(c);
    freeInstance(c);

    double sorted[64];
    const int n = runs < 64 ? runs : 64;
    memcpy(sorted, stepTime, sizeof(double) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(double), compare);
    double cpuSorted[64];
    memcpy(cpuSorted, cpuTime, sizeof(double) * (size_t)n);
    qsort(cpuSorted, (size_t)n, sizeof(double), compare);
    double prep = 0;
    for (int run = 1; run < runs; run++)
        prep += prepTime[run];
    prep = runs > 1 ? prep / (runs - 1) : prepTime[0];
    printf("{\"runs\": %d, \"steps_per_run\": %ld, \"step\": %g, \"stop_time\": %g, "
           "\"us_per_step_median\": %.4f, \"cpu_us_per_step_median\": %.4f, \"us_per_step_min\": %.4f, \"us_per_step_max\": %.4f, "
           "\"real_time_factor_median\": %.1f, \"reset_and_fill_us\": %.1f, \"first_init_us\": %.1f, "
           "\"parameters_filled\": %zu, \"max_yaw_rate\": %.6f, \"checksum\": %.9g}\n",
           runs, steps, h, stop, 1e6 * sorted[n / 2], 1e6 * cpuSorted[n / 2], 1e6 * sorted[0], 1e6 * sorted[n - 1], h / sorted[n / 2],
           1e6 * prep, 1e6 * prepTime[0], nFill, maxYawRate, checksum);
    return 0;
}
