/* Real-time check of an FMI 2.0 Co-Simulation FMU: a HIL-rig-like loop that times every fmi2DoStep
 * and watches for allocations and system calls inside it. Compiled by pybridge.rig.rtcheck.harness.
 *
 * usage: rtcheck_harness PLAN LIBRARY INPUTS OUT
 *   PLAN    text, one "key values" line each: guid G, uri U, step H, start T0, steps N, runs R, cpu K
 *           (-1: no pinning), mlock 0|1, trace 0|1 (the system-call pass), real VR VALUE (a parameter,
 *           set before initialization), input VR (a column of INPUTS), output VR (read after each
 *           step), pi VR_SPEED VR_THROTTLE VR_BRAKE INITIAL TARGET KP KI BRAKE_GAIN (a PI speed driver)
 *   INPUTS  float64, N rows of the input columns (the value held over step k)
 *   OUT     written: float64 wall, cpu and cycle time of every step, R*N of each, in that order
 * Prints one JSON object on stdout. Exit 0: ran; 2: bad plan or FMU library; 3: an FMI call failed.
 *
 * Allocations: malloc, calloc, realloc, free, posix_memalign, aligned_alloc and memalign are defined
 * here, so the FMU's library binds to them (the executable comes first in symbol lookup); they count
 * and forward to glibc's __libc_* functions. The FMI allocateMemory/freeMemory callbacks count too.
 * System calls: a second run of the manoeuvre in a child process traced with ptrace (PTRACE_SYSCALL):
 * at every system-call entry the tracer reads the child's `phase`; those in the window are counted. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void *fmi2Component;
typedef unsigned int fmi2ValueReference;
typedef int fmi2Status;
typedef struct {
    void (*logger)(void *, const char *, fmi2Status, const char *, const char *, ...);
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(void *, fmi2Status);
    void *componentEnvironment;
} fmi2CallbackFunctions;

/* ------------------------------------------------------------------ allocation watch */

enum { PHASE_OUTSIDE, PHASE_STEP, PHASE_IO, PHASES };
static const char *const PHASE_NAMES[PHASES] = {"outside", "step", "io"};
enum { K_MALLOC, K_CALLOC, K_REALLOC, K_FREE, K_MEMALIGN, K_CB_ALLOCATE, K_CB_FREE, KINDS };
static const char *const KIND_NAMES[KINDS] = {"malloc", "calloc", "realloc", "free", "memalign",
                                              "allocateMemory", "freeMemory"};
#define MAX_RECORDS 16
#define MAX_SYSCALL 1024

/* where the loop is: PHASE_STEP inside fmi2DoStep, PHASE_IO inside the cycle's fmi2SetReal/fmi2GetReal */
static volatile long phase = PHASE_OUTSIDE;
static volatile long current_step = -1;
static long alloc_count[PHASES][KINDS];
static long logger_count[PHASES];
static struct { int kind; size_t size; void *caller; long step; } records[MAX_RECORDS];
static int n_records;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static void note(int kind, size_t size, void *caller)
{
    const long p = phase;
    alloc_count[p][kind]++;
    if (p != PHASE_OUTSIDE && n_records < MAX_RECORDS) {
        records[n_records].kind = kind;
        records[n_records].size = size;
        records[n_records].caller = caller;
        records[n_records++].step = current_step;
    }
}

void *malloc(size_t n)
{
    note(K_MALLOC, n, __builtin_return_address(0));
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    note(K_CALLOC, n * size, __builtin_return_address(0));
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    note(K_REALLOC, n, __builtin_return_address(0));
    return __libc_realloc(p, n);
}

void free(void *p)
{
    if (p)
        note(K_FREE, 0, __builtin_return_address(0));
    __libc_free(p);
}

int posix_memalign(void **out, size_t alignment, size_t n)
{
    if (alignment % sizeof(void *) || (alignment & (alignment - 1)))
        return EINVAL;
    note(K_MEMALIGN, n, __builtin_return_address(0));
    void *p = __libc_memalign(alignment, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t n)
{
    note(K_MEMALIGN, n, __builtin_return_address(0));
    return __libc_memalign(alignment, n);
}

void *memalign(size_t alignment, size_t n)
{
    note(K_MEMALIGN, n, __builtin_return_address(0));
    return __libc_memalign(alignment, n);
}

static void *callback_allocate(size_t n, size_t size)
{
    note(K_CB_ALLOCATE, n * size, __builtin_return_address(0));
    return __libc_calloc(n, size);
}

static void callback_free(void *p)
{
    if (p)
        note(K_CB_FREE, 0, __builtin_return_address(0));
    __libc_free(p);
}

/* Logger callback: counts the calls per phase and prints everything but fmi2OK to stderr. */
static void logger(void *env, const char *name, fmi2Status status, const char *category, const char *message, ...)
{
    va_list args;
    (void)env;
    (void)category;
    logger_count[phase]++;
    if (status == 0)
        return;
    fprintf(stderr, "[%s] status %d: ", name, status);
    va_start(args, message);
    vfprintf(stderr, message, args);
    va_end(args);
    fputc('\n', stderr);
}

/* ------------------------------------------------------------------ clocks */

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median cost [s] of one reading of a clock: 1001 readings back to back. */
static double clock_overhead(double (*clock)(void))
{
    double d[1000], last = clock();
    for (int i = 0; i < 1000; i++) {
        const double t = clock();
        d[i] = t - last;
        last = t;
    }
    qsort(d, 1000, sizeof d[0], compare_doubles);
    return d[500];
}

/* ------------------------------------------------------------------ plan */

typedef struct {
    char guid[1024], uri[4096];
    double step, start;
    long steps;
    int runs, cpu, mlock, trace;
    size_t n_params, n_inputs, n_outputs;
    fmi2ValueReference param_vr[4096], input_vr[256], output_vr[256];
    double param_value[4096];
    int pi;
    fmi2ValueReference pi_speed, pi_throttle, pi_brake;
    double pi_initial, pi_target, pi_kp, pi_ki, pi_brake_gain;
} Plan;

static void bad_input(const char *what, const char *where)
{
    fprintf(stderr, "rtcheck harness: %s: %s\n", where, what);
    exit(2);
}

static void read_plan(const char *path, Plan *plan)
{
    FILE *f = fopen(path, "r");
    char key[64];
    if (!f)
        bad_input(strerror(errno), path);
    memset(plan, 0, sizeof *plan);
    plan->runs = 1;
    plan->cpu = -1;
    while (fscanf(f, "%63s", key) == 1) {
        int ok = 1;
        if (!strcmp(key, "guid")) ok = fscanf(f, "%1023s", plan->guid) == 1;
        else if (!strcmp(key, "uri")) ok = fscanf(f, "%4095s", plan->uri) == 1;
        else if (!strcmp(key, "step")) ok = fscanf(f, "%lf", &plan->step) == 1;
        else if (!strcmp(key, "start")) ok = fscanf(f, "%lf", &plan->start) == 1;
        else if (!strcmp(key, "steps")) ok = fscanf(f, "%ld", &plan->steps) == 1;
        else if (!strcmp(key, "runs")) ok = fscanf(f, "%d", &plan->runs) == 1;
        else if (!strcmp(key, "cpu")) ok = fscanf(f, "%d", &plan->cpu) == 1;
        else if (!strcmp(key, "mlock")) ok = fscanf(f, "%d", &plan->mlock) == 1;
        else if (!strcmp(key, "trace")) ok = fscanf(f, "%d", &plan->trace) == 1;
        else if (!strcmp(key, "real") && plan->n_params < 4096) {
            ok = fscanf(f, "%u %lf", &plan->param_vr[plan->n_params], &plan->param_value[plan->n_params]) == 2;
            plan->n_params++;
        } else if (!strcmp(key, "input") && plan->n_inputs < 256)
            ok = fscanf(f, "%u", &plan->input_vr[plan->n_inputs++]) == 1;
        else if (!strcmp(key, "output") && plan->n_outputs < 256)
            ok = fscanf(f, "%u", &plan->output_vr[plan->n_outputs++]) == 1;
        else if (!strcmp(key, "pi"))
            ok = (plan->pi = fscanf(f, "%u %u %u %lf %lf %lf %lf %lf", &plan->pi_speed, &plan->pi_throttle,
                                    &plan->pi_brake, &plan->pi_initial, &plan->pi_target, &plan->pi_kp,
                                    &plan->pi_ki, &plan->pi_brake_gain) == 8);
        else
            ok = 0;
        if (!ok) {
            fclose(f);
            bad_input("unknown key, a value missing or too many entries", key);
        }
    }
    fclose(f);
    if (plan->steps < 1 || plan->runs < 1 || !(plan->step > 0) || !plan->guid[0] || !plan->uri[0])
        bad_input("needs guid, uri, step > 0, steps >= 1 and runs >= 1", path);
}

static double *read_inputs(const char *path, const Plan *plan)
{
    const size_t n = (size_t)plan->steps * plan->n_inputs;
    double *inputs = __libc_calloc(n + 1, sizeof(double));
    FILE *f = fopen(path, "rb");
    if (!f)
        bad_input(strerror(errno), path);
    const size_t got = fread(inputs, sizeof(double), n + 1, f);
    fclose(f);
    if (got != n)
        bad_input("expected steps x inputs float64 values", path);
    return inputs;
}

/* ------------------------------------------------------------------ FMU */

typedef struct {
    fmi2Component (*instantiate)(const char *, int, const char *, const char *, const fmi2CallbackFunctions *,
                                 int, int);
    fmi2Status (*setup)(fmi2Component, int, double, double, int, double);
    fmi2Status (*enter_init)(fmi2Component);
    fmi2Status (*exit_init)(fmi2Component);
    fmi2Status (*terminate)(fmi2Component);
    void (*free_instance)(fmi2Component);
    fmi2Status (*set_real)(fmi2Component, const fmi2ValueReference *, size_t, const double *);
    fmi2Status (*get_real)(fmi2Component, const fmi2ValueReference *, size_t, double *);
    fmi2Status (*do_step)(fmi2Component, double, double, int);
} Fmu;

static void *symbol(void *lib, const char *library, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p)
        bad_input(name, library);
    return p;
}

static void load_fmu(const char *library, Fmu *fmu)
{
    void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        bad_input(dlerror(), library);
    *(void **)&fmu->instantiate = symbol(lib, library, "fmi2Instantiate");
    *(void **)&fmu->setup = symbol(lib, library, "fmi2SetupExperiment");
    *(void **)&fmu->enter_init = symbol(lib, library, "fmi2EnterInitializationMode");
    *(void **)&fmu->exit_init = symbol(lib, library, "fmi2ExitInitializationMode");
    *(void **)&fmu->terminate = symbol(lib, library, "fmi2Terminate");
    *(void **)&fmu->free_instance = symbol(lib, library, "fmi2FreeInstance");
    *(void **)&fmu->set_real = symbol(lib, library, "fmi2SetReal");
    *(void **)&fmu->get_real = symbol(lib, library, "fmi2GetReal");
    *(void **)&fmu->do_step = symbol(lib, library, "fmi2DoStep");
}

static void fmi_failed(const char *call, fmi2Status status, long step, double t)
{
    fprintf(stderr, "rtcheck harness: %s returned status %d (step %ld, t = %g s)\n", call, status, step, t);
    exit(3);
}

/* ------------------------------------------------------------------ one run of the manoeuvre */

typedef struct {
    double instantiate_wall, instantiate_cpu, init_wall, init_cpu;
    long minor_faults, major_faults, voluntary_switches, involuntary_switches;
    char mlock[160];
    double outputs[256];
} RunCosts;

/* PI speed driver of pybridge.simulate.scenarios.SpeedController (no feed-forward): throttle, brake. */
static void pi_pedals(const Plan *plan, double speed, double *integral, double *pedals)
{
    const double error = plan->pi_target - speed, h = plan->step;
    const double base = plan->pi_kp * error, trial = base + plan->pi_ki * (*integral + error * h);
    if (fabs(trial) < 1.0 || trial * error < 0.0)
        *integral += error * h;
    double command = base + plan->pi_ki * *integral;
    command = command < -1.0 ? -1.0 : command > 1.0 ? 1.0 : command;
    pedals[0] = command > 0 ? command : 0.0;
    pedals[1] = plan->pi_brake_gain * (command < 0 ? -command : 0.0);
}

static fmi2Component start_instance(const Plan *plan, const Fmu *fmu, RunCosts *costs)
{
    static const fmi2CallbackFunctions callbacks = {logger, callback_allocate, callback_free, NULL, NULL};
    double w = wall_now(), c = cpu_now();
    fmi2Component instance = fmu->instantiate("rtcheck", 1 /* fmi2CoSimulation */, plan->guid, plan->uri,
                                              &callbacks, 0, 0);
    costs->instantiate_wall = wall_now() - w;
    costs->instantiate_cpu = cpu_now() - c;
    if (!instance) {
        fprintf(stderr, "rtcheck harness: fmi2Instantiate returned NULL\n");
        exit(3);
    }
    w = wall_now();
    c = cpu_now();
    fmi2Status s;
    const double stop = plan->start + (double)plan->steps * plan->step;
    if ((s = fmu->setup(instance, 0, 0.0, plan->start, 1, stop)) > 1)
        fmi_failed("fmi2SetupExperiment", s, -1, plan->start);
    if (plan->n_params && (s = fmu->set_real(instance, plan->param_vr, plan->n_params, plan->param_value)) > 1)
        fmi_failed("fmi2SetReal (parameters)", s, -1, plan->start);
    if ((s = fmu->enter_init(instance)) > 1)
        fmi_failed("fmi2EnterInitializationMode", s, -1, plan->start);
    if ((s = fmu->exit_init(instance)) > 1)
        fmi_failed("fmi2ExitInitializationMode", s, -1, plan->start);
    costs->init_wall = wall_now() - w;
    costs->init_cpu = cpu_now() - c;
    return instance;
}

/* Instantiate, initialize, step plan->steps times; wall, cpu, cycle: the step times [s]. */
static void run_once(const Plan *plan, const Fmu *fmu, const double *inputs, double *wall, double *cpu,
                     double *cycle, RunCosts *costs)
{
    fmi2Component instance = start_instance(plan, fmu, costs);
    strcpy(costs->mlock, "off");
    if (plan->mlock)
        snprintf(costs->mlock, sizeof costs->mlock, "%s", mlockall(MCL_CURRENT) ? strerror(errno) : "ok");
    const fmi2ValueReference pedal_vr[2] = {plan->pi_throttle, plan->pi_brake};
    double speed = plan->pi_initial, integral = 0.0, pedals[2];
    struct rusage before, after;
    getrusage(RUSAGE_THREAD, &before);
    for (long k = 0; k < plan->steps; k++) {
        const double t = plan->start + (double)k * plan->step;
        fmi2Status s1 = 0, s2 = 0, s3;
        current_step = k;
        if (plan->pi)
            pi_pedals(plan, speed, &integral, pedals);
        const double w_in = wall_now();
        phase = PHASE_IO;
        if (plan->n_inputs)
            s1 = fmu->set_real(instance, plan->input_vr, plan->n_inputs, inputs + (size_t)k * plan->n_inputs);
        if (plan->pi)
            s2 = fmu->set_real(instance, pedal_vr, 2, pedals);
        phase = PHASE_OUTSIDE;
        const double c0 = cpu_now(), w0 = wall_now();
        phase = PHASE_STEP;
        const fmi2Status s = fmu->do_step(instance, t, plan->step, 1);
        phase = PHASE_OUTSIDE;
        const double w1 = wall_now(), c1 = cpu_now();
        phase = PHASE_IO;
        s3 = plan->n_outputs ? fmu->get_real(instance, plan->output_vr, plan->n_outputs, costs->outputs) : 0;
        if (plan->pi && s3 <= 1)
            s3 = fmu->get_real(instance, &plan->pi_speed, 1, &speed);
        phase = PHASE_OUTSIDE;
        cycle[k] = wall_now() - w_in;
        wall[k] = w1 - w0;
        cpu[k] = c1 - c0;
        if (s > 1)
            fmi_failed("fmi2DoStep", s, k, t);
        if (s1 > 1 || s2 > 1 || s3 > 1)
            fmi_failed(s3 > 1 ? "fmi2GetReal" : "fmi2SetReal", s3 > 1 ? s3 : s1 > 1 ? s1 : s2, k, t);
    }
    getrusage(RUSAGE_THREAD, &after);
    current_step = -1;
    costs->minor_faults = after.ru_minflt - before.ru_minflt;
    costs->major_faults = after.ru_majflt - before.ru_majflt;
    costs->voluntary_switches = after.ru_nvcsw - before.ru_nvcsw;
    costs->involuntary_switches = after.ru_nivcsw - before.ru_nivcsw;
    fmu->terminate(instance);
    fmu->free_instance(instance);
}

/* ------------------------------------------------------------------ system calls: a traced run */

typedef struct {
    char status[200];  /* "ok", or why the pass could not run */
    long count[PHASES][MAX_SYSCALL];
    long first_step;  /* step of the first system call inside fmi2DoStep (-1: none) */
} SyscallReport;

/* Count one system-call entry of a traced thread by the phase its process is in. */
static void count_syscall(pid_t pid, SyscallReport *report)
{
    struct __ptrace_syscall_info info;
    if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof info, &info) <= 0 || info.op != PTRACE_SYSCALL_INFO_ENTRY)
        return;
    errno = 0;
    const long p = ptrace(PTRACE_PEEKDATA, pid, (void *)&phase, NULL);
    if (errno || p <= PHASE_OUTSIDE || p >= PHASES)
        return;
    report->count[p][info.entry.nr < MAX_SYSCALL ? info.entry.nr : MAX_SYSCALL - 1]++;
    if (p == PHASE_STEP && report->first_step < 0)
        report->first_step = ptrace(PTRACE_PEEKDATA, pid, (void *)&current_step, NULL);
}

/* Run the manoeuvre once more in a child traced at every system call (its threads too). */
static void syscall_pass(const Plan *plan, const Fmu *fmu, const double *inputs, double *scratch,
                         SyscallReport *report)
{
    RunCosts costs;
    int status;
    report->first_step = -1;
    fflush(NULL);
    const pid_t child = fork();
    if (child < 0) {
        snprintf(report->status, sizeof report->status, "fork failed: %s", strerror(errno));
        return;
    }
    if (child == 0) {
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
            _exit(90);
        raise(SIGSTOP);
        run_once(plan, fmu, inputs, scratch, scratch + plan->steps, scratch + 2 * plan->steps, &costs);
        fflush(NULL);
        _exit(0);
    }
    if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) {
        snprintf(report->status, sizeof report->status, "ptrace not permitted here (PTRACE_TRACEME failed)");
        return;
    }
    ptrace(PTRACE_SETOPTIONS, child, NULL,
           (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE));
    ptrace(PTRACE_SYSCALL, child, NULL, NULL);
    int child_status = -1;
    for (;;) {
        const pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0)
            break;
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            if (pid == child)
                child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            continue;
        }
        int signal_to_pass = 0;
        const int sig = WSTOPSIG(status);
        if (sig == (SIGTRAP | 0x80))
            count_syscall(pid, report);
        else if (sig != SIGTRAP && !(sig == SIGSTOP && pid != child))
            signal_to_pass = sig;
        ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)signal_to_pass);
    }
    if (child_status == 0)
        strcpy(report->status, "ok");
    else
        snprintf(report->status, sizeof report->status, "the traced run ended with status %d", child_status);
}

/* ------------------------------------------------------------------ JSON */

static void print_counts(const char *name, const long *count, int n, const char *const *names, const char *end)
{
    int first = 1;
    printf("\"%s\": {", name);
    for (int i = 0; i < n; i++)
        if (count[i]) {
            if (names)
                printf("%s\"%s\": %ld", first ? "" : ", ", names[i], count[i]);
            else
                printf("%s\"%d\": %ld", first ? "" : ", ", i, count[i]);
            first = 0;
        }
    printf("}%s", end);
}

static void print_records(void)
{
    printf("\"allocation_records\": [");
    for (int i = 0; i < n_records; i++) {
        Dl_info where;
        const int found = dladdr(records[i].caller, &where);
        printf("%s{\"kind\": \"%s\", \"bytes\": %zu, \"step\": %ld, \"caller\": \"%s\", \"library\": \"%s\"}",
               i ? ", " : "", KIND_NAMES[records[i].kind], records[i].size, records[i].step,
               found && where.dli_sname ? where.dli_sname : "?", found && where.dli_fname ? where.dli_fname : "?");
    }
    printf("],\n");
}

static void print_report(const Plan *plan, const RunCosts *costs, const SyscallReport *sys, const char *pinning,
                         double wall_overhead, double cpu_overhead)
{
    printf("{\"steps\": %ld, \"runs\": %d, \"step\": %.17g, \"pinning\": \"%s\", \"mlock\": \"%s\",\n",
           plan->steps, plan->runs, plan->step, pinning, costs[0].mlock);
    printf("\"clock_overhead\": {\"wall\": %.9g, \"cpu\": %.9g},\n\"run_costs\": [", wall_overhead, cpu_overhead);
    for (int r = 0; r < plan->runs; r++)
        printf("%s{\"instantiate_wall\": %.9g, \"instantiate_cpu\": %.9g, \"init_wall\": %.9g, \"init_cpu\": %.9g, "
               "\"minor_faults\": %ld, \"major_faults\": %ld, \"voluntary_switches\": %ld, "
               "\"involuntary_switches\": %ld}", r ? ", " : "", costs[r].instantiate_wall, costs[r].instantiate_cpu,
               costs[r].init_wall, costs[r].init_cpu, costs[r].minor_faults, costs[r].major_faults,
               costs[r].voluntary_switches, costs[r].involuntary_switches);
    printf("],\n\"allocations\": {");
    for (int p = 0; p < PHASES; p++)
        print_counts(PHASE_NAMES[p], alloc_count[p], KINDS, KIND_NAMES, p + 1 < PHASES ? ", " : "},\n");
    print_records();
    printf("\"logger_calls\": {\"step\": %ld, \"io\": %ld},\n", logger_count[PHASE_STEP], logger_count[PHASE_IO]);
    printf("\"syscalls\": {\"status\": \"%s\", \"first_step\": %ld, ", sys->status, sys->first_step);
    print_counts("step", sys->count[PHASE_STEP], MAX_SYSCALL, NULL, ", ");
    print_counts("io", sys->count[PHASE_IO], MAX_SYSCALL, NULL, "},\n");
    printf("\"last_outputs\": [");
    for (size_t i = 0; i < plan->n_outputs; i++)
        printf("%s%.17g", i ? ", " : "", costs[plan->runs - 1].outputs[i]);
    printf("]}\n");
}

/* ------------------------------------------------------------------ main */

static void pin(int cpu, char *text, size_t size)
{
    if (cpu < 0) {
        snprintf(text, size, "off");
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set))
        snprintf(text, size, "cpu %d: %s", cpu, strerror(errno));
    else
        snprintf(text, size, "cpu %d", cpu);
}

int main(int argc, char **argv)
{
    static Plan plan;
    static SyscallReport sys;
    char pinning[160];
    if (argc != 5) {
        fprintf(stderr, "usage: rtcheck_harness PLAN LIBRARY INPUTS OUT\n");
        return 2;
    }
    read_plan(argv[1], &plan);
    const double *inputs = read_inputs(argv[3], &plan);
    Fmu fmu;
    load_fmu(argv[2], &fmu);
    const size_t n = (size_t)plan.runs * (size_t)plan.steps;
    double *times = __libc_calloc(3 * n, sizeof(double)), *scratch = __libc_calloc(3 * (size_t)plan.steps, sizeof(double));
    RunCosts *costs = __libc_calloc((size_t)plan.runs, sizeof(RunCosts));
    FILE *out = fopen(argv[4], "wb");
    if (!times || !scratch || !costs)
        bad_input("out of memory for the step times", argv[4]);
    if (!out)
        bad_input(strerror(errno), argv[4]);
    memset(times, 0, 3 * n * sizeof(double));   /* touched now, not in the loop */
    pin(plan.cpu, pinning, sizeof pinning);
    const double wall_overhead = clock_overhead(wall_now), cpu_overhead = clock_overhead(cpu_now);
    for (int r = 0; r < plan.runs; r++) {
        const size_t k = (size_t)r * (size_t)plan.steps;
        run_once(&plan, &fmu, inputs, times + k, times + n + k, times + 2 * n + k, &costs[r]);
    }
    strcpy(sys.status, "not run");
    if (plan.trace)
        syscall_pass(&plan, &fmu, inputs, scratch, &sys);
    if (fwrite(times, sizeof(double), 3 * n, out) != 3 * n || fclose(out))
        bad_input("cannot write the step times", argv[4]);
    print_report(&plan, costs, &sys, pinning, wall_overhead, cpu_overhead);
    return 0;
}
