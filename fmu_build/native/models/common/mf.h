/* VehicleRTM.Tires in C: the Magic Formula functions and the transient Tire model.
 *
 * One implementation for every tyre of every model. A coefficient record of the Modelica model
 * (VehicleRTM.Tires.MFCoefficients: 182 Reals and the Integer mfVersion) is flattened to
 * consecutive Real value references in declaration order, so the C code reads the record in
 * place: MF_RECORD(m, tireFL_c) is a pointer to an MFRecord overlaid on m->r at the record's
 * first Real. No copy, nothing to fill. MF_CHECK_LAYOUT(tireFL_c) turns every assumption into a
 * compile-time check against the generated value references: a renamed, added, removed or
 * reordered coefficient in the Modelica record stops the build.
 *
 * Every function mirrors the Modelica function of the same name (same formulas, same limits,
 * same eps guards); the Modelica source is the specification.
 */
#ifndef VEHICLERTM_MF_H
#define VEHICLERTM_MF_H

#include <stddef.h>

/* The Reals of MFCoefficients, in declaration order. */
#define MF_FIELDS(X, s) \
    X(s, LONGVL) X(s, VXLOW) X(s, UNLOADED_RADIUS) X(s, WIDTH) X(s, ASPECT_RATIO) X(s, RIM_RADIUS) X(s, RIM_WIDTH) X(s, INFLPRES) X(s, NOMPRES) X(s, VERTICAL_STIFFNESS) \
    X(s, VERTICAL_DAMPING) X(s, BREFF) X(s, DREFF) X(s, FREFF) X(s, FNOMIN) X(s, LONGITUDINAL_STIFFNESS) X(s, LATERAL_STIFFNESS) X(s, PCFX1) X(s, PCFX2) X(s, PCFX3) \
    X(s, PCFY1) X(s, PCFY2) X(s, PCFY3) X(s, KPUMIN) X(s, KPUMAX) X(s, ALPMIN) X(s, ALPMAX) X(s, CAMMIN) X(s, CAMMAX) X(s, FZMIN) \
    X(s, FZMAX) X(s, LFZO) X(s, LCX) X(s, LMUX) X(s, LEX) X(s, LKX) X(s, LHX) X(s, LVX) X(s, LGAX) X(s, LCY) \
    X(s, LMUY) X(s, LEY) X(s, LKY) X(s, LHY) X(s, LVY) X(s, LGAY) X(s, LTR) X(s, LRES) X(s, LGAZ) X(s, LXAL) \
    X(s, LYKA) X(s, LVYKA) X(s, LS) X(s, LSGKP) X(s, LSGAL) X(s, LGYR) X(s, LMX) X(s, LVMX) X(s, LMY) X(s, LCZ) \
    X(s, LKYC) X(s, LKZC) X(s, PCX1) X(s, PDX1) X(s, PDX2) X(s, PDX3) X(s, PEX1) X(s, PEX2) X(s, PEX3) X(s, PEX4) \
    X(s, PKX1) X(s, PKX2) X(s, PKX3) X(s, PHX1) X(s, PHX2) X(s, PVX1) X(s, PVX2) X(s, PPX1) X(s, PPX2) X(s, PPX3) \
    X(s, PPX4) X(s, RBX1) X(s, RBX2) X(s, RBX3) X(s, RCX1) X(s, REX1) X(s, REX2) X(s, RHX1) X(s, PTX1) X(s, PTX2) \
    X(s, PTX3) X(s, QSX1) X(s, QSX2) X(s, QSX3) X(s, PCY1) X(s, PDY1) X(s, PDY2) X(s, PDY3) X(s, PEY1) X(s, PEY2) \
    X(s, PEY3) X(s, PEY4) X(s, PEY5) X(s, PKY1) X(s, PKY2) X(s, PKY3) X(s, PKY4) X(s, PKY5) X(s, PKY6) X(s, PKY7) \
    X(s, PHY1) X(s, PHY2) X(s, PHY3) X(s, PVY1) X(s, PVY2) X(s, PVY3) X(s, PVY4) X(s, PPY1) X(s, PPY2) X(s, PPY3) \
    X(s, PPY4) X(s, PPY5) X(s, RBY1) X(s, RBY2) X(s, RBY3) X(s, RBY4) X(s, RCY1) X(s, REY1) X(s, REY2) X(s, RHY1) \
    X(s, RHY2) X(s, RVY1) X(s, RVY2) X(s, RVY3) X(s, RVY4) X(s, RVY5) X(s, RVY6) X(s, PTY1) X(s, PTY2) X(s, QSY1) \
    X(s, QSY2) X(s, QSY3) X(s, QSY4) X(s, QSY5) X(s, QSY6) X(s, QSY7) X(s, QSY8) X(s, QBZ1) X(s, QBZ2) X(s, QBZ3) \
    X(s, QBZ4) X(s, QBZ5) X(s, QBZ9) X(s, QBZ10) X(s, QCZ1) X(s, QDZ1) X(s, QDZ2) X(s, QDZ3) X(s, QDZ4) X(s, QDZ6) \
    X(s, QDZ7) X(s, QDZ8) X(s, QDZ9) X(s, QDZ10) X(s, QDZ11) X(s, QEZ1) X(s, QEZ2) X(s, QEZ3) X(s, QEZ4) X(s, QEZ5) \
    X(s, QHZ1) X(s, QHZ2) X(s, QHZ3) X(s, QHZ4) X(s, SSZ1) X(s, SSZ2) X(s, SSZ3) X(s, SSZ4) X(s, PPZ1) X(s, PPZ2) \
    X(s, QTZ1) X(s, MBELT)

#define MF_DECLARE_FIELD_(s, name) double name;
typedef struct MFRecord {
    MF_FIELDS(MF_DECLARE_FIELD_, _)
} MFRecord;
#undef MF_DECLARE_FIELD_

#define MF_N_FIELDS (sizeof(MFRecord) / sizeof(double))

/* Compile-time check that the record `stem` (e.g. tireFL_c, frontTire) lies in m->r exactly as
 * MFRecord: every field at its offset from the first one, and an Integer mfVersion. Use at file
 * scope, once per record the model reads. */
#define MF_CHECK_FIELD_(stem, name) \
    _Static_assert(VR_##stem##_##name - VR_##stem##_LONGVL == offsetof(MFRecord, name) / sizeof(double), \
                   "Magic Formula record " #stem ": field " #name " is not where MFRecord has it");
#define MF_CHECK_LAYOUT(stem) \
    _Static_assert(VI_##stem##_mfVersion >= 0, "Magic Formula record " #stem ": no Integer mfVersion"); \
    MF_FIELDS(MF_CHECK_FIELD_, stem)

/* The record in place and its version (the Integer mfVersion lives in m->i). */
#define MF_RECORD(m, stem) ((const MFRecord *)&(m)->r[VR_##stem##_LONGVL])
#define MF_VERSION(m, stem) ((m)->i[VI_##stem##_mfVersion])

/* ---- functions of VehicleRTM.Tires --------------------------------------------------------- */
double mf_pressureIncrement(const MFRecord *c, int mfVersion);
double mf_effectiveRollingRadius(double Fz, const MFRecord *c);
double mf_verticalForce(double deflection, double deflectionRate, const MFRecord *c);
void mf_pureLongitudinal(double Fz, double kappa, double gamma, const MFRecord *c, int mfVersion,
                         double *Fx0, double *Kxk, double *mux);

typedef struct MFLateral {
    double Fy0, Kya, muy, By, Cy, SHy, SVy;
} MFLateral;
void mf_pureLateral(double Fz, double alpha, double gamma, const MFRecord *c, int mfVersion, MFLateral *out);
void mf_slipStiffnesses(double Fz, double gamma, const MFRecord *c, int mfVersion, double *Kxk, double *Kya);
double mf_rollingResistance(double Fz, double Fx, double Vx, double gamma, const MFRecord *c, int mfVersion);
void mf_relaxationLengths(double Fz, double gamma, const MFRecord *c, int mfVersion,
                          double *sigmaKappa, double *sigmaAlpha);

typedef struct MFForces {
    double Fx, Fy, Mz, My, Mx;
} MFForces;
/* combinedSlip without its last line (My): Fx, Fy, Mz, Mx. My does not enter the others, so a
 * caller that knows Vx later (RTM14DoF) adds it with mf_rollingResistance(Fz, Fx, Vx, gamma). */
void mf_combinedSlipNoMy(double Fz, double kappa, double alpha, double gamma, const MFRecord *c, int mfVersion,
                         MFForces *out);
void mf_combinedSlip(double Fz, double kappa, double alpha, double gamma, double Vx, const MFRecord *c,
                     int mfVersion, MFForces *out);

/* combinedSlip in two parts, for a caller that evaluates it at several inclinations with the rest
 * fixed (RTM14DoF's compliance loop): mf_slip_prepare does what does not depend on gamma,
 * mf_slip_at_gamma the rest (Fx, Fy, Mz, Mx; My = 0). Together they are mf_combinedSlipNoMy.
 * tanAlpha: tan(alpha) when known (saves tan and cos of alpha), else NAN. */
typedef struct MFSlip {
    const MFRecord *c;
    int mfVersion, mf61, haveTan, GxaFree, GykFree;
    double FzL, kL, aL, Fz0p, dfz, dpi, as, cosaL, Gxa, Gyk;
} MFSlip;
void mf_slip_prepare(MFSlip *p, const MFRecord *c, int mfVersion, double Fz, double kappa, double alpha,
                     double tanAlpha);
void mf_slip_at_gamma(const MFSlip *p, double gamma, MFForces *out);

/* ---- VehicleRTM.Tires.Tire --------------------------------------------------------------- */
typedef struct TireInputs {
    double Fz, vx, vy, omega, gamma;
    double kappa, tanAlpha;     /* states */
} TireInputs;

typedef struct TireOutputs {
    double Fx, Fy, Mz, My, Mx, Re, alpha;
    double sigmaKappa, sigmaAlpha, damping, FxSlip, FySlip;
    double der_kappa, der_tanAlpha;
} TireOutputs;

/* The whole Tire model: outputs and state derivatives from inputs and states. */
void mf_tire(const MFRecord *c, int mfVersion, double sigmaMin, double lowSpeedDamping,
             const TireInputs *in, TireOutputs *out);

/* Tire split in the two halves RTM14DoF needs: the slip forces (depend on Fz, the slip states and
 * gamma only; the suspension compliance needs them) and the rest (needs the wheel-axis
 * velocities, which depend on the compliance). mf_tire = tire_slip_forces + tire_finish.
 * mf_tire_slip_prepare + mf_tire_slip_at_gamma = mf_tire_slip_forces, for several gammas. */
void mf_tire_slip_forces(const MFRecord *c, int mfVersion, double Fz, double kappa, double tanAlpha,
                         double gamma, TireOutputs *out);
void mf_tire_slip_prepare(const MFRecord *c, int mfVersion, double Fz, double kappa, double tanAlpha,
                          MFSlip *slip, TireOutputs *out);
void mf_tire_slip_at_gamma(const MFSlip *slip, double gamma, TireOutputs *out);
void mf_tire_finish(const MFRecord *c, int mfVersion, double sigmaMin, double lowSpeedDamping,
                    const TireInputs *in, TireOutputs *out);

#endif
