/* What evaluating the four tyres two at a time with vector math would give (issue 15, item 1): the
 * libm-bound part of the Magic Formula, one pure-slip curve D sin(C atan(Bx - E (Bx - atan(Bx)))) times
 * a combined-slip weight cos(C atan(...)) per tyre, for four tyres: scalar glibc calls against two pairs
 * of glibc's 2-lane SSE2 vector functions (libmvec, _ZGVbN2v_*; any x86-64, no target flags).
 *
 * build: gcc -O3 -fno-math-errno mf_simd_pairs.c -o mf_simd_pairs -lmvec -lm
 * usage: mf_simd_pairs [ROUNDS]
 * Prints per round the thread CPU time of one four-tyre evaluation each way, their ratio and the
 * largest relative difference of the results (libmvec is accurate to 4 ulp, glibc's scalar to 1).
 */
#include <emmintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__m128d _ZGVbN2v_atan(__m128d);
__m128d _ZGVbN2v_sin(__m128d);
__m128d _ZGVbN2v_cos(__m128d);

#define REPEATS 3000000

static double thread_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void tyres_scalar(const double *slip, double *force)
{
    for (int k = 0; k < 4; k++) {
        const double bx = 10.0 * slip[k], by = 8.0 * slip[k];
        const double pure = 1.3 * sin(1.6 * atan(bx - 0.3 * (bx - atan(bx))));
        const double weight = cos(1.1 * atan(by - 0.2 * (by - atan(by))));
        force[k] = pure * weight;
    }
}

static __m128d curve_argument(__m128d bx, double e)
{
    return _mm_sub_pd(bx, _mm_mul_pd(_mm_set1_pd(e), _mm_sub_pd(bx, _ZGVbN2v_atan(bx))));
}

static void tyre_pair(const double *slip, double *force)
{
    const __m128d s = _mm_loadu_pd(slip);
    const __m128d pure = _mm_mul_pd(_mm_set1_pd(1.3), _ZGVbN2v_sin(_mm_mul_pd(
        _mm_set1_pd(1.6), _ZGVbN2v_atan(curve_argument(_mm_mul_pd(_mm_set1_pd(10.0), s), 0.3)))));
    const __m128d weight = _ZGVbN2v_cos(_mm_mul_pd(
        _mm_set1_pd(1.1), _ZGVbN2v_atan(curve_argument(_mm_mul_pd(_mm_set1_pd(8.0), s), 0.2))));
    _mm_storeu_pd(force, _mm_mul_pd(pure, weight));
}

/* Four tyres REPEATS times, each evaluation feeding the next (as the integrator does); returns seconds. */
static double run(void (*four)(const double *, double *), double *checksum)
{
    double slip[4] = {0.01, 0.02, -0.015, 0.03}, force[4], sum = 0;
    const double start = thread_seconds();
    for (int i = 0; i < REPEATS; i++) {
        four(slip, force);
        sum += force[0] + force[1] + force[2] + force[3];
        slip[i & 3] = 0.02 + 1e-3 * force[i & 3];
    }
    *checksum = sum;
    return thread_seconds() - start;
}

static void scalar_four(const double *slip, double *force) { tyres_scalar(slip, force); }
static void paired_four(const double *slip, double *force) { tyre_pair(slip, force); tyre_pair(slip + 2, force + 2); }

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 5;
    const double probe[4] = {0.004, -0.08, 0.15, 0.5};
    double a[4], b[4], worst = 0, sum_a, sum_b;
    scalar_four(probe, a);
    paired_four(probe, b);
    for (int k = 0; k < 4; k++)
        worst = fmax(worst, fabs(a[k] - b[k]) / fabs(a[k]));
    for (int r = 0; r < rounds; r++) {
        const double scalar = run(scalar_four, &sum_a), paired = run(paired_four, &sum_b);
        printf("{\"round\": %d, \"scalar_ns\": %.1f, \"paired_ns\": %.1f, \"ratio\": %.3f, "
               "\"max_relative_difference\": %.2e}\n", r + 1, 1e9 * scalar / REPEATS, 1e9 * paired / REPEATS,
               scalar / paired, worst);
    }
    return 0;
}
