/* What the two C benchmark harnesses share: the FMI 2.0 types they call through dlsym, a logger
 * for the callback functions, and a monotonic clock. Loaded at run time, so no FMI headers needed. */
#ifndef BENCHMARK_FMI2_HARNESS_H
#define BENCHMARK_FMI2_HARNESS_H

#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *fmi2Component;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Boolean;
typedef int fmi2Status;
typedef struct {
    void (*logger)(void *, const char *, fmi2Status, const char *, const char *, ...);
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(void *, fmi2Status);
    void *componentEnvironment;
} fmi2CallbackFunctions;
typedef struct {
    fmi2Boolean newDiscreteStatesNeeded, terminateSimulation, nominalsOfContinuousStatesChanged,
        valuesOfContinuousStatesChanged, nextEventTimeDefined;
    fmi2Real nextEventTime;
} fmi2EventInfo;

/* Logger for fmi2CallbackFunctions: prints everything but fmi2OK to stderr. */
static void logger(void *env, const char *name, fmi2Status status, const char *category, const char *message, ...)
{
    va_list args;
    (void)env;
    (void)category;
    if (status == 0)
        return;
    fprintf(stderr, "[%s] status %d: ", name, status);
    va_start(args, message);
    vfprintf(stderr, message, args);
    va_end(args);
    fputc('\n', stderr);
}

/* Monotonic wall clock [s]. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of the calling thread [s]: what the model costs, whatever else runs on the machine. */
static double thread_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
