/* Lane types of the lane model (fmu_build.codegen.lanes): LANES vehicles per evaluation, one per SIMD lane.
 *
 * LANES is chosen at build time: 8 with AVX-512F, 4 with AVX2 + FMA, else 1 (scalar fallback, libm). A
 * double value of the scalar model becomes an lv (LANES doubles), an Integer or Boolean an li (LANES
 * 64-bit integers; comparisons give masks of -1/0). Branches are per-lane selects (lsel: bitwise, exact);
 * elementary functions are SLEEF's vector functions (its 3.5-ulp versions where SLEEF has them: atan, sin,
 * cos, tan 1.3x faster than the 1-ulp ones in the RTM; exp, pow, log10 1 ulp), sqrt and fabs exact. Compile with
 * -ffp-contract=off so every operation rounds as the scalar model's does.
 */
#ifndef VEHICLERTM_LANES_H
#define VEHICLERTM_LANES_H

#include <math.h>

#ifndef LANES
#if defined(__AVX512F__)
#define LANES 8
#elif defined(__AVX2__) && defined(__FMA__)
#define LANES 4
#else
#define LANES 1
#endif
#endif

#if LANES > 1
#include <immintrin.h>
#include <sleef.h>
typedef double lv __attribute__((vector_size(8 * LANES)));
typedef long long li __attribute__((vector_size(8 * LANES)));
#else
typedef double lv __attribute__((vector_size(8)));
typedef long long li __attribute__((vector_size(8)));
#endif

static inline lv lbd(double x) { lv r; for (int k = 0; k < LANES; k++) r[k] = x; return r; }
static inline li lbi(long long x) { li r; for (int k = 0; k < LANES; k++) r[k] = x; return r; }
static inline lv lsel(li mask, lv a, lv b) { return (lv)(((li)a & mask) | ((li)b & ~mask)); }
static inline li lseli(li mask, li a, li b) { return (a & mask) | (b & ~mask); }
static inline lv ltod(li x) { return __builtin_convertvector(x, lv); }
static inline li ltoi(lv x) { return __builtin_convertvector(x, li); }
static inline lv lfabs(lv x) { return (lv)((li)x & lbi(0x7fffffffffffffffLL)); }
static inline lv lfmin(lv a, lv b) { return lsel((a <= b) | (b != b), a, b); }
static inline lv lfmax(lv a, lv b) { return lsel((a >= b) | (b != b), a, b); }

#if LANES == 8
#define LMATH1(name, sleef) static inline lv name(lv x) { return sleef(x); }
#define LMATH2(name, sleef) static inline lv name(lv x, lv y) { return sleef(x, y); }
LMATH1(latan, Sleef_atand8_u35avx512f) LMATH1(lsin, Sleef_sind8_u35avx512f) LMATH1(lcos, Sleef_cosd8_u35avx512f)
LMATH1(ltan, Sleef_tand8_u35avx512f) LMATH1(lexp, Sleef_expd8_u10avx512f) LMATH1(llog, Sleef_logd8_u35avx512f)
LMATH1(ltanh, Sleef_tanhd8_u35avx512f) LMATH1(lsinh, Sleef_sinhd8_u35avx512f) LMATH1(lcosh, Sleef_coshd8_u35avx512f)
LMATH1(lasin, Sleef_asind8_u35avx512f) LMATH1(lacos, Sleef_acosd8_u35avx512f) LMATH1(llog10, Sleef_log10d8_u10avx512f)
LMATH2(lpow, Sleef_powd8_u10avx512f) LMATH2(latan2, Sleef_atan2d8_u35avx512f)
static inline lv lsqrt(lv x) { return _mm512_sqrt_pd(x); }
static inline lv lfloor(lv x) { return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
#elif LANES == 4
#define LMATH1(name, sleef) static inline lv name(lv x) { return sleef(x); }
#define LMATH2(name, sleef) static inline lv name(lv x, lv y) { return sleef(x, y); }
LMATH1(latan, Sleef_atand4_u35avx2) LMATH1(lsin, Sleef_sind4_u35avx2) LMATH1(lcos, Sleef_cosd4_u35avx2)
LMATH1(ltan, Sleef_tand4_u35avx2) LMATH1(lexp, Sleef_expd4_u10avx2) LMATH1(llog, Sleef_logd4_u35avx2)
LMATH1(ltanh, Sleef_tanhd4_u35avx2) LMATH1(lsinh, Sleef_sinhd4_u35avx2) LMATH1(lcosh, Sleef_coshd4_u35avx2)
LMATH1(lasin, Sleef_asind4_u35avx2) LMATH1(lacos, Sleef_acosd4_u35avx2) LMATH1(llog10, Sleef_log10d4_u10avx2)
LMATH2(lpow, Sleef_powd4_u10avx2) LMATH2(latan2, Sleef_atan2d4_u35avx2)
static inline lv lsqrt(lv x) { return _mm256_sqrt_pd(x); }
static inline lv lfloor(lv x) { return _mm256_floor_pd(x); }
#else
#define LMATH1(name, f) static inline lv name(lv x) { lv r = {f(x[0])}; return r; }
#define LMATH2(name, f) static inline lv name(lv x, lv y) { lv r = {f(x[0], y[0])}; return r; }
LMATH1(latan, atan) LMATH1(lsin, sin) LMATH1(lcos, cos) LMATH1(ltan, tan) LMATH1(lexp, exp) LMATH1(llog, log)
LMATH2(lpow, pow) LMATH2(latan2, atan2) LMATH1(lsqrt, sqrt) LMATH1(lfloor, floor)
LMATH1(ltanh, tanh) LMATH1(lsinh, sinh) LMATH1(lcosh, cosh) LMATH1(lasin, asin) LMATH1(lacos, acos) LMATH1(llog10, log10)
#endif

/* whether any lane of a mask is set; base[index] of each lane (a gather from LANES-wide elements) */
#if LANES == 8
static inline int lany(li mask) { return _mm512_test_epi64_mask((__m512i)mask, (__m512i)mask) != 0; }
static inline li lane_offsets(li index) { return index * 8 + (li){0, 1, 2, 3, 4, 5, 6, 7}; }
static inline int luniform(li index) { return !lany(index != (li)_mm512_set1_epi64(index[0])); }
static inline lv lgather_d(const lv *base, li index)
{
    if (luniform(index))
        return base[index[0]];        /* every lane at the same element: one load */
    return (lv)_mm512_i64gather_pd((__m512i)lane_offsets(index), (const void *)base, 8);
}
static inline li lgather_i(const li *base, li index)
{
    if (luniform(index))
        return base[index[0]];
    return (li)_mm512_i64gather_epi64((__m512i)lane_offsets(index), (const void *)base, 8);
}
#elif LANES == 4
static inline int lany(li mask) { return !_mm256_testz_si256((__m256i)mask, (__m256i)mask); }
static inline li lane_offsets(li index) { return index * 4 + (li){0, 1, 2, 3}; }
static inline lv lgather_d(const lv *base, li index)
{
    if (!lany(index != (li)_mm256_permute4x64_epi64((__m256i)index, 0)))
        return base[index[0]];        /* every lane at the same element: one load */
    return _mm256_i64gather_pd((const double *)base, (__m256i)lane_offsets(index), 8);
}
static inline li lgather_i(const li *base, li index)
{
    if (!lany(index != (li)_mm256_permute4x64_epi64((__m256i)index, 0)))
        return base[index[0]];
    return (li)_mm256_i64gather_epi64((const long long *)base, (__m256i)lane_offsets(index), 8);
}
#else
static inline int lany(li mask) { return mask[0] != 0; }
static inline lv lgather_d(const lv *base, li index) { return base[index[0]]; }
static inline li lgather_i(const li *base, li index) { return base[index[0]]; }
#endif

/* cos(atan(u)) and sin(2 atan(u)) as the scalar model's rt_cos_atan / rt_sin_2atan */
static inline lv lcos_atan(lv u)
{
    const li small = lfabs(u) < 1e150;          /* the elementary functions only where a lane needs them */
    return lany(~small) ? lsel(small, 1 / lsqrt(1 + u * u), lcos(latan(u))) : 1 / lsqrt(1 + u * u);
}
static inline lv lsin_2atan(lv u)
{
    const li small = lfabs(u) < 1e150;
    return lany(~small) ? lsel(small, 2 * u / (1 + u * u), lsin(2 * latan(u))) : 2 * u / (1 + u * u);
}

/* a table read at a per-lane element of the lane instance */
#define lgather(base, index) lgather_d((const lv *)(base), (index))
#define lgatheri(base, index) lgather_i((const li *)(base), (index))

/* The lane instance: every variable of ModelInstance with a lane dimension (structure of arrays). */
typedef struct LaneInstance {
    double time;              /* all lanes step in lockstep */
    lv r[N_REALS];
    li i[N_INTEGERS];
    li b[N_BOOLEANS];
    ModelInstance *scalar[LANES];   /* the lanes' scalar instances: tables and per-lane calls */
} LaneInstance;

/* model_error on the scalar instance of every lane in `failing` (an assertion of a lane function) */
static inline void lane_error(LaneInstance *M, li failing, const char *message)
{
    for (int k = 0; k < LANES; k++)
        if (failing[k]) model_error(M->scalar[k], message);
}

void lane_outputs_and_derivatives(LaneInstance *m, li act);
void lane_derivatives(LaneInstance *m, li act);

#endif
