/* Lane types of the lane model (fmu_build.codegen.lanes): LANES vehicles per evaluation, one per SIMD lane.
 *
 * LANES is chosen at build time: 8 with AVX-512F, 4 with AVX2 + FMA, else 1 (scalar fallback, libm). A
 * double value of the scalar model becomes an lv (LANES doubles), an Integer or Boolean an li (LANES
 * 64-bit integers; comparisons give masks of -1/0). Branches are per-lane selects (lsel: bitwise, exact);
 * elementary functions are glibc's vector math library libmvec (part of libc6 since glibc 2.35, at most 4 ulp;
 * in the RTM at 4 lanes 1.08x faster than SLEEF's 3.5-ulp functions, and no further package), sqrt and fabs
 * exact. Compile with -ffp-contract=off so every operation rounds as the scalar model's does.
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

#if LANES > 1
/* libmvec's names (the x86 vector function ABI): _ZGV, e = AVX-512 or d = AVX2, N (unmasked), lanes, v per argument */
#define LMVEC(isa, n, f) _ZGV##isa##N##n##v_##f
#define LMVEC2(isa, n, f) _ZGV##isa##N##n##vv_##f
#define LMATH1(name, f) lv f(lv); static inline lv name(lv x) { return f(x); }
#define LMATH2(name, f) lv f(lv, lv); static inline lv name(lv x, lv y) { return f(x, y); }
#define LMATH_ALL(isa, n) \
    LMATH1(latan, LMVEC(isa, n, atan)) LMATH1(lsin, LMVEC(isa, n, sin)) LMATH1(lcos, LMVEC(isa, n, cos)) \
    LMATH1(ltan, LMVEC(isa, n, tan)) LMATH1(lexp, LMVEC(isa, n, exp)) LMATH1(llog, LMVEC(isa, n, log)) \
    LMATH1(ltanh, LMVEC(isa, n, tanh)) LMATH1(lsinh, LMVEC(isa, n, sinh)) LMATH1(lcosh, LMVEC(isa, n, cosh)) \
    LMATH1(lasin, LMVEC(isa, n, asin)) LMATH1(lacos, LMVEC(isa, n, acos)) LMATH1(llog10, LMVEC(isa, n, log10)) \
    LMATH2(lpow, LMVEC2(isa, n, pow)) LMATH2(latan2, LMVEC2(isa, n, atan2))
#endif

#if LANES == 8
LMATH_ALL(e, 8)
static inline lv lsqrt(lv x) { return _mm512_sqrt_pd(x); }
static inline lv lfloor(lv x) { return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
#elif LANES == 4
LMATH_ALL(d, 4)
static inline lv lsqrt(lv x) { return _mm256_sqrt_pd(x); }
static inline lv lfloor(lv x) { return _mm256_floor_pd(x); }
#else
#define LMATH1(name, f) static inline lv name(lv x) { lv r = {f(x[0])}; return r; }
#define LMATH2(name, f) static inline lv name(lv x, lv y) { lv r = {f(x[0], y[0])}; return r; }
LMATH1(latan, atan) LMATH1(lsin, sin) LMATH1(lcos, cos) LMATH1(ltan, tan) LMATH1(lexp, exp) LMATH1(llog, log)
LMATH2(lpow, pow) LMATH2(latan2, atan2) LMATH1(lsqrt, sqrt) LMATH1(lfloor, floor)
LMATH1(ltanh, tanh) LMATH1(lsinh, sinh) LMATH1(lcosh, cosh) LMATH1(lasin, asin) LMATH1(lacos, acos) LMATH1(llog10, log10)
#endif

/* whether any lane of a mask is set; per lane, whether its index differs from lane 0's; base[index] of each
   lane by the hardware gather (from LANES-wide elements) */
#if LANES == 8
static inline int lany(li mask) { return _mm512_test_epi64_mask((__m512i)mask, (__m512i)mask) != 0; }
static inline li lane_offsets(li index) { return index * 8 + (li){0, 1, 2, 3, 4, 5, 6, 7}; }
static inline li ldiffers(li index) { return index != (li)_mm512_set1_epi64(index[0]); }
static inline lv lgather_hw_d(const lv *base, li index)
{
    return (lv)_mm512_i64gather_pd((__m512i)lane_offsets(index), (const void *)base, 8);
}
static inline li lgather_hw_i(const li *base, li index)
{
    return (li)_mm512_i64gather_epi64((__m512i)lane_offsets(index), (const void *)base, 8);
}
#elif LANES == 4
static inline int lany(li mask) { return !_mm256_testz_si256((__m256i)mask, (__m256i)mask); }
static inline li lane_offsets(li index) { return index * 4 + (li){0, 1, 2, 3}; }
static inline li ldiffers(li index) { return index != (li)_mm256_permute4x64_epi64((__m256i)index, 0); }
static inline lv lgather_hw_d(const lv *base, li index)
{
    return _mm256_i64gather_pd((const double *)base, (__m256i)lane_offsets(index), 8);
}
static inline li lgather_hw_i(const li *base, li index)
{
    return (li)_mm256_i64gather_epi64((const long long *)base, (__m256i)lane_offsets(index), 8);
}
#else
static inline int lany(li mask) { return mask[0] != 0; }
static inline li ldiffers(li index) { return index != index; }
static inline lv lgather_hw_d(const lv *base, li index) { return base[index[0]]; }
static inline li lgather_hw_i(const li *base, li index) { return base[index[0]]; }
#endif

/* base[index] of each lane: one load where every lane is at the same element, else the hardware gather */
static inline lv lgather_d(const lv *base, li index)
{
    return lany(ldiffers(index)) ? lgather_hw_d(base, index) : base[index[0]];
}
static inline li lgather_i(const li *base, li index)
{
    return lany(ldiffers(index)) ? lgather_hw_i(base, index) : base[index[0]];
}

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
#define lgather_hw(base, index) lgather_hw_d((const lv *)(base), (index))
#define lgatheri_hw(base, index) lgather_hw_i((const li *)(base), (index))

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
