/* Native physics of VehicleRTM.Vehicles.RTM14DoF: the equations of RTM14DoF.mo and of the classes
 * it uses (Suspensions.MapAxle, Tires.Tire, Powertrain.Driveline, Brakes.PedalBrakes,
 * Aerodynamics.AeroDrag, Steering.RigidSteering), written out in C. The Modelica source is the
 * specification; the comments name the Modelica equation each block mirrors.
 *
 * Every parameter is read through the generated macros of model_variables.h, so a renamed or
 * resized parameter in the Modelica stops this file from compiling.
 *
 * The tyre inclination is the kinematic camber plus body roll (as in RTM14DoF.mo), so the tyre slip
 * forces depend on states and inputs only and drive the compliance without an algebraic loop.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "model_support.h"
#include "common/mf.h"
#include "common/tables.h"

/* ---- layout checks: the records this file reads in place ------------------------------------- */
MF_CHECK_LAYOUT(frontTire)
MF_CHECK_LAYOUT(rearTire)
MF_CHECK_LAYOUT(tireFL_c)
MF_CHECK_LAYOUT(tireFR_c)
MF_CHECK_LAYOUT(tireRL_c)
MF_CHECK_LAYOUT(tireRR_c)

/* Table sizes must agree with their grids (they do by the Modelica declarations). */
#define CHECK_2D_(s, t) _Static_assert(DIM_##s##_kinematics_##t##_1 == DIM_##s##_kinematics_u1_1 && \
    DIM_##s##_kinematics_##t##_2 == DIM_##s##_kinematics_u2_1, #s ".kinematics." #t ": size of the grid");
#define CHECK_1D_(s, t, grid) _Static_assert(DIM_##s##_##t##_1 == DIM_##s##_##grid##_1, #s "." #t ": size of " #grid);
#define CHECK_COMPLIANCE_(s, out) \
    CHECK_1D_(s, compliance_##out##FxOwn, compliance_force) CHECK_1D_(s, compliance_##out##FyOwn, compliance_force) \
    CHECK_1D_(s, compliance_##out##MzOwn, compliance_moment) CHECK_1D_(s, compliance_##out##FxOpposite, compliance_force) \
    CHECK_1D_(s, compliance_##out##FyOpposite, compliance_force) CHECK_1D_(s, compliance_##out##MzOpposite, compliance_moment)
#define CHECK_AXLE_(s) \
    CHECK_2D_(s, tx) CHECK_2D_(s, ty) CHECK_2D_(s, toe) CHECK_2D_(s, camber) CHECK_2D_(s, caster) \
    CHECK_2D_(s, springLength) CHECK_2D_(s, damperLength) CHECK_2D_(s, bumpStopLength) \
    CHECK_2D_(s, reboundStopLength) CHECK_2D_(s, antiRollBarLength) \
    CHECK_COMPLIANCE_(s, tx) CHECK_COMPLIANCE_(s, ty) CHECK_COMPLIANCE_(s, toe) CHECK_COMPLIANCE_(s, camber) \
    CHECK_1D_(s, stiffness_parallelForce, stiffness_travel) CHECK_1D_(s, stiffness_oppositeForce, stiffness_travel) \
    CHECK_1D_(s, damper_force, damper_velocity) CHECK_1D_(s, bumpStop_force, bumpStop_deflection) \
    CHECK_1D_(s, reboundStop_force, reboundStop_deflection)
CHECK_AXLE_(frontAxle_data)
CHECK_AXLE_(rearAxle_data)
_Static_assert(DIM_driveline_engine_torque_1 == DIM_driveline_engine_speed_1 &&
               DIM_driveline_engine_torque_2 == DIM_driveline_engine_throttle_1, "engine torque map: size of the grid");
_Static_assert(DIM_driveline_upshiftSpeed_1 == DIM_driveline_gearRatios_1 - 1, "upshiftSpeed size");
_Static_assert(DIM_driveline_upshiftSpeedNoThrottle_1 == DIM_driveline_gearRatios_1 - 1, "upshiftSpeedNoThrottle size");
_Static_assert(DIM_driveline_downshiftSpeed_1 == DIM_driveline_gearRatios_1 - 1, "downshiftSpeed size");

/* ---- the axle maps of Suspensions.MapAxle, as pointers into m->r ---------------------------- */
enum { OWN_FX, OWN_FY, OWN_MZ, OPP_FX, OPP_FY, OPP_MZ, N_LOADS };   /* complianceDisplacement order */
enum { C_TX, C_TY, C_TOE, C_CAMBER, N_COMPLIANCE };

typedef struct AxleMaps {
    int solidAxle, linearExtrapolation;
    const double *u1, *u2;
    int n1, n2;
    const double *tx, *ty, *toe, *camber, *caster, *springLength, *damperLength, *bumpStopLength,
        *reboundStopLength, *antiRollBarLength;
    const double *force, *moment;
    int nForce, nMoment;
    const double *compliance[N_COMPLIANCE][N_LOADS];
    const double *stiffnessTravel, *parallelForce, *oppositeForce;
    int nStiffness;
    const double *damperVelocity, *damperForce;
    int nDamper;
    double bumpContactLength, reboundContactLength;
    const double *bumpDeflection, *bumpForce, *reboundDeflection, *reboundForce;
    int nBump, nRebound;
} AxleMaps;

#define COMPLIANCE_ROW_(s, out) \
    {RA(s##_compliance_##out##FxOwn), RA(s##_compliance_##out##FyOwn), RA(s##_compliance_##out##MzOwn), \
     RA(s##_compliance_##out##FxOpposite), RA(s##_compliance_##out##FyOpposite), RA(s##_compliance_##out##MzOpposite)}

#define AXLE_MAPS(s) { \
    B(s##_solidAxle), B(s##_kinematics_linearExtrapolation), \
    RA(s##_kinematics_u1), RA(s##_kinematics_u2), DIM_##s##_kinematics_u1_1, DIM_##s##_kinematics_u2_1, \
    RA(s##_kinematics_tx), RA(s##_kinematics_ty), RA(s##_kinematics_toe), RA(s##_kinematics_camber), \
    RA(s##_kinematics_caster), RA(s##_kinematics_springLength), RA(s##_kinematics_damperLength), \
    RA(s##_kinematics_bumpStopLength), RA(s##_kinematics_reboundStopLength), RA(s##_kinematics_antiRollBarLength), \
    RA(s##_compliance_force), RA(s##_compliance_moment), \
    DIM_##s##_compliance_force_1, DIM_##s##_compliance_moment_1, \
    {COMPLIANCE_ROW_(s, tx), COMPLIANCE_ROW_(s, ty), COMPLIANCE_ROW_(s, toe), COMPLIANCE_ROW_(s, camber)}, \
    RA(s##_stiffness_travel), RA(s##_stiffness_parallelForce), RA(s##_stiffness_oppositeForce), \
    DIM_##s##_stiffness_travel_1, \
    RA(s##_damper_velocity), RA(s##_damper_force), DIM_##s##_damper_velocity_1, \
    R(s##_bumpStop_contactLength), R(s##_reboundStop_contactLength), \
    RA(s##_bumpStop_deflection), RA(s##_bumpStop_force), RA(s##_reboundStop_deflection), RA(s##_reboundStop_force), \
    DIM_##s##_bumpStop_deflection_1, DIM_##s##_reboundStop_deflection_1}

static const double AXLE_SIDE[2] = {1, -1};    /* MapAxle.side */

/* One evaluation of a MapAxle: kinematics and force elements, then compliance and jacking. */
typedef struct AxleState {
    double travel[2], travelRate[2], rackTravel;
    double zo, c1[2], c2[2];
    Interp2Cell cell[2];
    double kinTx[2], kinTy[2], kinToe[2], kinCamber[2];
    double caster[2], springLength[2], antiRollBarLength[2];
    double dtxds[2][2], dtyds[2][2], ddamperds[2][2], dbumpds[2][2], dreboundds[2][2];
    double damperVelocity[2], damperForce[2], bumpStopForce[2], reboundStopForce[2], springForce[2];
    double antiRollForce, verticalForce[2];
    /* compliance */
    unsigned nonzero[N_COMPLIANCE];
    Interp1Point load[2][N_LOADS];
    double compliance[2][N_COMPLIANCE];
    double tx[2], ty[2], toe[2], camber[2];
    double jackingForce[2];
    double contactPathVx[2], contactPathVy[2];
} AxleState;

/* stopForce: no force before contact, the map (extrapolated) after it, never pulling. */
static inline double stop_force(const double *grid, const double *force, int n, double deflection)
{
    if (deflection > 0) {
        const double f = tables_interp1(grid, force, n, deflection, 1);
        return f > 0 ? f : 0;
    }
    return 0;
}

static void axle_kinematics(const AxleMaps *d, AxleState *a)
{
    const int solid = d->solidAxle;
    double sx, sy, dc1ds[2][2], dc2ds[2][2];
    a->zo = (a->travel[0] - a->travel[1]) / 2;
    a->antiRollForce = tables_interp1(d->stiffnessTravel, d->oppositeForce, d->nStiffness, a->zo, 1)
        - tables_interp1(d->stiffnessTravel, d->parallelForce, d->nStiffness, a->zo, 1);
    for (int i = 0; i < 2; i++) {
        a->c1[i] = solid ? (a->travel[0] + a->travel[1]) / 2 : a->travel[i];
        a->c2[i] = AXLE_SIDE[i] * (solid ? a->zo : a->rackTravel);
        for (int j = 0; j < 2; j++) {
            dc1ds[i][j] = solid ? 0.5 : (i == j ? 1 : 0);
            dc2ds[i][j] = solid ? 0.5 * AXLE_SIDE[i] * AXLE_SIDE[j] : 0;
        }
        Interp2Cell *cell = &a->cell[i];
        interp2_locate(cell, d->u1, d->n1, d->u2, d->n2, a->c1[i], a->c2[i], d->linearExtrapolation);
        a->kinTx[i] = interp2_at(cell, d->tx);
        a->kinTy[i] = interp2_at(cell, d->ty);
        a->kinToe[i] = interp2_at(cell, d->toe);
        a->kinCamber[i] = interp2_at(cell, d->camber);
        a->caster[i] = interp2_at(cell, d->caster);
        a->springLength[i] = interp2_at(cell, d->springLength);
        a->antiRollBarLength[i] = interp2_at(cell, d->antiRollBarLength);
        const double bumpLength = interp2_at(cell, d->bumpStopLength);
        const double reboundLength = interp2_at(cell, d->reboundStopLength);
        /* travelDerivative = interp2SlopeX*dc1ds + interp2SlopeY*dc2ds */
#define TRAVEL_DERIVATIVES_(table, out) \
        sx = interp2_slopeX_at(cell, d->table); \
        sy = interp2_slopeY_at(cell, d->table); \
        a->out[i][0] = sx * dc1ds[i][0] + sy * dc2ds[i][0]; \
        a->out[i][1] = sx * dc1ds[i][1] + sy * dc2ds[i][1];
        TRAVEL_DERIVATIVES_(tx, dtxds)
        TRAVEL_DERIVATIVES_(ty, dtyds)
        TRAVEL_DERIVATIVES_(damperLength, ddamperds)
        TRAVEL_DERIVATIVES_(bumpStopLength, dbumpds)
        TRAVEL_DERIVATIVES_(reboundStopLength, dreboundds)
#undef TRAVEL_DERIVATIVES_
        a->bumpStopForce[i] = stop_force(d->bumpDeflection, d->bumpForce, d->nBump, d->bumpContactLength - bumpLength);
        a->reboundStopForce[i] = stop_force(d->reboundDeflection, d->reboundForce, d->nRebound,
                                            reboundLength - d->reboundContactLength);
    }
    for (int i = 0; i < 2; i++) {
        a->damperVelocity[i] = a->ddamperds[i][0] * a->travelRate[0] + a->ddamperds[i][1] * a->travelRate[1];
        a->damperForce[i] = tables_interp1(d->damperVelocity, d->damperForce, d->nDamper, a->damperVelocity[i], 1);
        a->springForce[i] = tables_interp1(d->stiffnessTravel, d->parallelForce, d->nStiffness, a->travel[i], 1)
            + AXLE_SIDE[i] * a->antiRollForce;
    }
    for (int j = 0; j < 2; j++)
        a->verticalForce[j] = a->springForce[j]
            + a->damperForce[0] * a->ddamperds[0][j] + a->damperForce[1] * a->ddamperds[1][j]
            - a->bumpStopForce[0] * a->dbumpds[0][j] - a->bumpStopForce[1] * a->dbumpds[1][j]
            + a->reboundStopForce[0] * a->dreboundds[0][j] + a->reboundStopForce[1] * a->dreboundds[1][j];
}

/* Which compliance maps are not all zero: bit `load` of nonzero[out]. A map of zeros adds an exact
 * +0 to complianceDisplacement's sum, so leaving it out changes no bit of the result; typical data
 * fill 8 of the 24 maps. */
static inline int table_is_zero(const double *y, int n)
{
    uint64_t bits = 0;     /* all entries +-0 <=> every bit but the sign bits is 0 (NaN counts as nonzero) */
    for (int k = 0; k < n; k++) {
        uint64_t b;
        memcpy(&b, &y[k], sizeof b);
        bits |= b << 1;
    }
    return bits == 0;
}

static void axle_nonzero_maps(const AxleMaps *d, AxleState *a)
{
    for (int out = 0; out < N_COMPLIANCE; out++) {
        unsigned mask = 0;
        for (int load = 0; load < N_LOADS; load++) {
            const int n = load == OWN_MZ || load == OPP_MZ ? d->nMoment : d->nForce;
            if (!table_is_zero(d->compliance[out][load], n))
                mask |= 1u << load;
        }
        a->nonzero[out] = mask;
    }
}

/* Locate the compliance loads of both wheels (those in `mask`): own = {Fx[i], side*Fy[i], side*Mz[i]},
 * opposite = {Fx[3-i], side*Fy[3-i], side*Mz[3-i]} (left-wheel frame). */
static void axle_locate_loads(const AxleMaps *d, AxleState *a, const double Fx[2], const double Fy[2],
                              const double Mz[2], unsigned mask)
{
    for (int i = 0; i < 2; i++) {
        const double s = AXLE_SIDE[i];
        const int o = 1 - i;
        const double load[N_LOADS] = {Fx[i], s * Fy[i], s * Mz[i], Fx[o], s * Fy[o], s * Mz[o]};
        for (int k = 0; k < N_LOADS; k++) {
            if (!(mask >> k & 1u))
                continue;
            if (k == OWN_MZ || k == OPP_MZ)
                interp1_locate(&a->load[i][k], d->moment, d->nMoment, load[k], 1);
            else
                interp1_locate(&a->load[i][k], d->force, d->nForce, load[k], 1);
        }
    }
}

/* complianceDisplacement of one output of wheel i at the located loads: the six maps summed in
 * their Modelica order, the maps of zeros left out. */
static inline double compliance_displacement(const AxleMaps *d, const AxleState *a, int i, int out)
{
    const double *const *t = d->compliance[out];
    const Interp1Point *p = a->load[i];
    const unsigned mask = a->nonzero[out];
    double sum = 0;
    for (int k = 0; k < N_LOADS; k++)
        if (mask >> k & 1u)
            sum += interp1_at(&p[k], t[k]);
    return sum;
}

static inline void axle_camber(const AxleMaps *d, AxleState *a)
{
    for (int i = 0; i < 2; i++) {
        a->compliance[i][C_CAMBER] = compliance_displacement(d, a, i, C_CAMBER);
        a->camber[i] = a->kinCamber[i] + a->compliance[i][C_CAMBER];
    }
}

static inline void axle_other_compliance(const AxleMaps *d, AxleState *a)
{
    for (int i = 0; i < 2; i++) {
        a->compliance[i][C_TX] = compliance_displacement(d, a, i, C_TX);
        a->compliance[i][C_TY] = compliance_displacement(d, a, i, C_TY);
        a->compliance[i][C_TOE] = compliance_displacement(d, a, i, C_TOE);
        a->tx[i] = a->kinTx[i] + a->compliance[i][C_TX];
        a->ty[i] = AXLE_SIDE[i] * (a->kinTy[i] + a->compliance[i][C_TY]);
        a->toe[i] = AXLE_SIDE[i] * (a->kinToe[i] + a->compliance[i][C_TOE]);
    }
}

/* MapAxle.contactPathVx/Vy: the contact point's velocity along its kinematic path (vehicle axes). */
static inline void axle_contact_path_velocity(AxleState *a)
{
    for (int i = 0; i < 2; i++) {
        a->contactPathVx[i] = a->dtxds[i][0] * a->travelRate[0] + a->dtxds[i][1] * a->travelRate[1];
        a->contactPathVy[i] = AXLE_SIDE[i] * (a->dtyds[i][0] * a->travelRate[0] + a->dtyds[i][1] * a->travelRate[1]);
    }
}

static inline void axle_jacking(AxleState *a, const double contactFx[2], const double contactFy[2])
{
    for (int j = 0; j < 2; j++)
        a->jackingForce[j] = contactFx[0] * a->dtxds[0][j] + contactFx[1] * a->dtxds[1][j]
            + contactFy[0] * AXLE_SIDE[0] * a->dtyds[0][j] + contactFy[1] * AXLE_SIDE[1] * a->dtyds[1][j];
}

/* Flattened locals of one MapAxle instance. */
#define STORE_AXLE_(s, a, contactFx, contactFy, wFx, wFy, wMz) do { \
    for (int k_ = 0; k_ < 2; k_++) { \
        RA(s##_travel)[k_] = (a).travel[k_]; \
        RA(s##_travelRate)[k_] = (a).travelRate[k_]; \
        RA(s##_wheelFx)[k_] = (wFx)[k_]; \
        RA(s##_wheelFy)[k_] = (wFy)[k_]; \
        RA(s##_wheelMz)[k_] = (wMz)[k_]; \
        RA(s##_contactFx)[k_] = (contactFx)[k_]; \
        RA(s##_contactFy)[k_] = (contactFy)[k_]; \
        RA(s##_verticalForce)[k_] = (a).verticalForce[k_]; \
        RA(s##_jackingForce)[k_] = (a).jackingForce[k_]; \
        RA(s##_damperForce)[k_] = (a).damperForce[k_]; \
        RA(s##_bumpStopForce)[k_] = (a).bumpStopForce[k_]; \
        RA(s##_reboundStopForce)[k_] = (a).reboundStopForce[k_]; \
        RA(s##_tx)[k_] = (a).tx[k_]; \
        RA(s##_ty)[k_] = (a).ty[k_]; \
        RA(s##_toe)[k_] = (a).toe[k_]; \
        RA(s##_camber)[k_] = (a).camber[k_]; \
        RA(s##_caster)[k_] = (a).caster[k_]; \
        RA(s##_springLength)[k_] = (a).springLength[k_]; \
        RA(s##_antiRollBarLength)[k_] = (a).antiRollBarLength[k_]; \
        RA(s##_contactPathVx)[k_] = (a).contactPathVx[k_]; \
        RA(s##_contactPathVy)[k_] = (a).contactPathVy[k_]; \
    } \
    R(s##_rackTravel) = (a).rackTravel; \
    R(s##_antiRollForce) = (a).antiRollForce; \
} while (0)

/* ---- Powertrain ----------------------------------------------------------------------------- */
/* gearEntry: values[min(max(k, 1), n)] */
static inline double gear_entry(const double *values, int n, int k)
{
    const int idx = k < 1 ? 1 : (k > n ? n : k);
    return values[idx - 1];
}

static inline double clampd(double u, double lo, double hi)
{
    const double m = u > lo ? u : lo;
    return m < hi ? m : hi;
}
static inline double maxd(double a, double b) { return a > b ? a : b; }
static inline double mind(double a, double b) { return a < b ? a : b; }

#define N_GEARS DIM_driveline_gearRatios_1   /* gear slots; driveline.nGears of them in use */


/* MapAxle.designDtxds/designDtyds (designPathDerivatives): the path derivatives at zero travel and
 * zero rack travel. */
static void axle_design_derivatives(const AxleMaps *d, double *dtxds, double *dtyds)
{
    AxleState a;
    memset(&a, 0, sizeof a);
    axle_kinematics(d, &a);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            dtxds[2 * i + j] = a.dtxds[i][j];
            dtyds[2 * i + j] = AXLE_SIDE[i] * a.dtyds[i][j];
        }
}

/* RTM14DoF: unsprung lever arms and the entries of the body's mass matrices. */
static void body_mass_matrices(ModelInstance *m)
{
    const AxleMaps front = AXLE_MAPS(frontAxle_data), rear = AXLE_MAPS(rearAxle_data);
    double *fdx = RA(frontAxle_designDtxds), *fdy = RA(frontAxle_designDtyds);
    double *rdx = RA(rearAxle_designDtxds), *rdy = RA(rearAxle_designDtyds);
    axle_design_derivatives(&front, fdx, fdy);
    axle_design_derivatives(&rear, rdx, rdy);
    const double *cx = RA(cornerX), *cy = RA(cornerY), *um = RA(unsprungMass), *dwh = RA(designWheelHeight);
    const double h = R(chassis_cogHeight);
    double *rl = RA(unsprungRollLever), *pl = RA(unsprungPitchLever);
    for (int i = 0; i < 4; i++) {
        const int k = i % 2, w0 = i < 2 ? 0 : 2;
        const double *dx = i < 2 ? fdx : rdx, *dy = i < 2 ? fdy : rdy;
        rl[i] = h - dwh[i] - (dy[2 * k] * cy[w0] + dy[2 * k + 1] * cy[w0 + 1]);
        pl[i] = h - dwh[i] - (dx[2 * k] * cx[w0] + dx[2 * k + 1] * cx[w0 + 1]);
    }
    double sh = 0, sx = 0, jxx = 0, jxz = 0, sq = 0, jyy = 0;
    for (int i = 0; i < 4; i++) {
        sh += um[i] * rl[i];
        sx += um[i] * cx[i];
        jxx += um[i] * rl[i] * rl[i];
        jxz += um[i] * rl[i] * cx[i];
        sq += um[i] * pl[i];
        jyy += um[i] * pl[i] * pl[i];
    }
    R(unsprungRollMoment) = sh;
    R(unsprungXMoment) = sx;
    R(unsprungPitchMoment) = sq;
    R(rollInertia) = R(chassis_Ixx) + jxx;
    R(rollYawProduct) = -R(chassis_Ixz) + jxz;
    R(pitchInertia) = R(chassis_Iyy) + jyy;
}

/* ---- calculated parameters ------------------------------------------------------------------ */
void model_calculated_parameters(ModelInstance *m)
{
    /* The bindings of the sub-components to the vehicle's data (steering.ratio = chassis.steeringRatio,
     * frontAxle.data = frontAxleData, tireFL.c = frontTire, driveline.engine = engine, ...) are
     * parameter aliases: the wrapper applies them before this function. */
    /* Lumped masses (Eq. 5-7) */
    R(frontUnsprungMass) = R(chassis_frontWheel) + R(chassis_frontBrakeDisk) + R(chassis_frontSpindle)
        + R(chassis_frontUpright) + R(chassis_frontLinkSplit) * R(chassis_frontLinks);
    R(rearUnsprungMass) = R(chassis_rearWheel) + R(chassis_rearBrakeDisk) + R(chassis_rearSpindle)
        + R(chassis_drivelineSplit) * R(chassis_rearDriveline) / 2 + R(chassis_rearFixed)
        + R(chassis_rearLinkSplit) * R(chassis_rearLinks);
    R(sprungMass) = R(chassis_sprungBodies) + 2 * (1 - R(chassis_frontLinkSplit)) * R(chassis_frontLinks)
        + 2 * (1 - R(chassis_rearLinkSplit)) * R(chassis_rearLinks)
        + (1 - R(chassis_drivelineSplit)) * R(chassis_rearDriveline);
    double *um = RA(unsprungMass);
    um[0] = um[1] = R(frontUnsprungMass);
    um[2] = um[3] = R(rearUnsprungMass);
    R(totalMass) = R(sprungMass) + (((um[0] + um[1]) + um[2]) + um[3]);
    /* Geometry */
    const double a = R(chassis_cogToFrontAxle), wb = R(chassis_wheelbase);
    double *cx = RA(cornerX), *cy = RA(cornerY);
    cx[0] = cx[1] = a;
    cx[2] = cx[3] = a - wb;
    cy[0] = R(frontAxleData_track) / 2;
    cy[1] = -R(frontAxleData_track) / 2;
    cy[2] = R(rearAxleData_track) / 2;
    cy[3] = -R(rearAxleData_track) / 2;
    double *tps = RA(tiresPerStation);
    tps[0] = tps[1] = 1;
    tps[2] = tps[3] = I(chassis_rearTiresPerWheel);
    const double g = R(g), ms = R(sprungMass);
    double *sl = RA(staticLoad);
    sl[0] = sl[1] = ms * g * (wb - a) / (2 * wb) + R(frontUnsprungMass) * g;
    sl[2] = sl[3] = ms * g * a / (2 * wb) + R(rearUnsprungMass) * g;
    double *ur = RA(unloadedRadius);
    ur[0] = ur[1] = R(frontTire_UNLOADED_RADIUS);
    ur[2] = ur[3] = R(rearTire_UNLOADED_RADIUS);
    for (int i = 0; i < 4; i++)
        RA(designWheelHeight)[i] = ur[i]
            - sl[i] / (tps[i] * (i < 2 ? R(frontTire_VERTICAL_STIFFNESS) * R(frontTire_LCZ)
                                      : R(rearTire_VERTICAL_STIFFNESS) * R(rearTire_LCZ)));
    double *side = RA(side);
    side[0] = 1;
    side[1] = -1;
    side[2] = 1;
    side[3] = -1;
    const double tf = R(frontAxleData_track) / 2, tr = R(rearAxleData_track) / 2;
    R(yawInertia) = R(chassis_Izz)
        + 2 * R(frontUnsprungMass) * (a * a + tf * tf)
        + 2 * R(rearUnsprungMass) * ((wb - a) * (wb - a) + tr * tr);
    body_mass_matrices(m);
}

/* ---- the driveline's shift conditions (when-clause of Driveline.mo) ------------------------- */
static void driveline_conditions(ModelInstance *m, int preGear, double preLastShiftTime, int *up, int *down)
{
    const double *ratios = RA(driveline_gearRatios), *upNT = RA(driveline_upshiftSpeedNoThrottle);
    const double *upFT = RA(driveline_upshiftSpeed), *dn = RA(driveline_downshiftSpeed);
    const double thr = R(driveline_throttleLimited);
    R(driveline_engineSpeedInGear) = R(driveline_outputSpeed) * gear_entry(ratios, N_GEARS, preGear);
    R(driveline_upshiftThreshold) = gear_entry(upNT, N_GEARS - 1, preGear)
        + thr * (gear_entry(upFT, N_GEARS - 1, preGear) - gear_entry(upNT, N_GEARS - 1, preGear));
    R(driveline_downshiftThreshold) = gear_entry(dn, N_GEARS - 1, preGear - 1);
    const int allowed = m->time >= preLastShiftTime + R(driveline_minGearTime);
    B(driveline_shiftAllowed) = allowed;
    *up = allowed && preGear < I(driveline_nGears)
        && R(driveline_engineSpeedInGear) > R(driveline_upshiftThreshold);
    *down = allowed && preGear > 1 && R(driveline_engineSpeedInGear) < R(driveline_downshiftThreshold);
}

void model_initial_states(ModelInstance *m)
{
    R(X) = 0;
    R(Y) = 0;
    R(yaw) = 0;
    R(vx) = R(initialSpeed);
    R(vy) = 0;
    R(bodyHeight) = R(chassis_cogHeight);
    R(bodyVerticalVelocity) = 0;
    R(rollRate) = 0;
    R(pitchRate) = 0;
    R(yawRate) = 0;
    R(roll) = 0;
    R(pitch) = 0;
    for (int i = 0; i < 4; i++) {
        RA(wheelHeight)[i] = RA(designWheelHeight)[i];
        RA(wheelVerticalVelocity)[i] = 0;
    }
    const double v0 = R(initialSpeed), *sl = RA(staticLoad);
    const MFRecord *ft = MF_RECORD(m, frontTire), *rt = MF_RECORD(m, rearTire);
    RA(omega)[0] = v0 / mf_effectiveRollingRadius(sl[0], ft);
    RA(omega)[1] = v0 / mf_effectiveRollingRadius(sl[1], ft);
    RA(omega)[2] = v0 / mf_effectiveRollingRadius(sl[2] / I(chassis_rearTiresPerWheel), rt);
    RA(omega)[3] = v0 / mf_effectiveRollingRadius(sl[3] / I(chassis_rearTiresPerWheel), rt);
    R(tireFL_kappa) = R(tireFL_tanAlpha) = 0;
    R(tireFR_kappa) = R(tireFR_tanAlpha) = 0;
    R(tireRL_kappa) = R(tireRL_tanAlpha) = 0;
    R(tireRR_kappa) = R(tireRR_tanAlpha) = 0;
    /* Slip forces of the previous evaluation start the compliance iteration: none yet. */
    R(tireFL_FxSlip) = R(tireFL_FySlip) = R(tireFL_Mz) = 0;
    R(tireFR_FxSlip) = R(tireFR_FySlip) = R(tireFR_Mz) = 0;
    R(tireRL_FxSlip) = R(tireRL_FySlip) = R(tireRL_Mz) = 0;
    R(tireRR_FxSlip) = R(tireRR_FySlip) = R(tireRR_Mz) = 0;

    /* Driveline initial equations: gear = selectGear(outputSpeed, gearRatios,
     * upshiftSpeedNoThrottle + throttleLimited*(upshiftSpeed - upshiftSpeedNoThrottle));
     * lastShiftTime = time - minGearTime. */
    const double outputSpeed = R(driveline_finalDriveRatio) * (RA(omega)[2] + RA(omega)[3]) / 2;
    const double thr = clampd(R(throttle), 0, 1);
    const double *ratios = RA(driveline_gearRatios), *upNT = RA(driveline_upshiftSpeedNoThrottle);
    const double *upFT = RA(driveline_upshiftSpeed);
    const int nGears = I(driveline_nGears);
    int gear = nGears;
    for (int k = N_GEARS - 1; k >= 1; k--)
        if (k < nGears && outputSpeed * ratios[k - 1] < upNT[k - 1] + thr * (upFT[k - 1] - upNT[k - 1]))
            gear = k;
    I(driveline_gear) = gear;
    R(driveline_lastShiftTime) = m->time - R(driveline_minGearTime);
    /* the initial assertions of Driveline.mo */
    if (!(nGears >= 1 && nGears <= N_GEARS))
        model_error(m, "Driveline: nGears must be between 1 and size(gearRatios, 1), the number of gear slots");
    for (int k = 1; k <= N_GEARS - 1 && k < nGears; k++)
        if (!(RA(driveline_downshiftSpeed)[k - 1] * ratios[k - 1] / ratios[k] < mind(upNT[k - 1], upFT[k - 1])))
            model_error(m, "Driveline: no shift hysteresis between gear %d and %d: "
                        "downshiftSpeed[k]*gearRatios[k]/gearRatios[k+1] must be below both upshift speeds of gear k",
                        k, k + 1);
    if (!(R(driveline_efficiency) > 0 && R(driveline_efficiency) <= 1))
        model_error(m, "Driveline: efficiency must be in (0, 1]");
    /* pre() of the when-condition at the start: its value at the initial time. */
    R(driveline_outputSpeed) = outputSpeed;
    R(driveline_throttleLimited) = thr;
    int up, down;
    driveline_conditions(m, gear, R(driveline_lastShiftTime), &up, &down);
    B(driveline_upshift) = up;
    B(driveline_downshift) = down;
}

/* ---- outputs and derivatives ---------------------------------------------------------------- */
#define TIRE_STORE_(t, k) do { \
    R(t##_Fz) = tin[k].Fz; R(t##_vx) = tin[k].vx; R(t##_vy) = tin[k].vy; R(t##_omega) = tin[k].omega; \
    R(t##_gamma) = tin[k].gamma; R(t##_Fx) = tout[k].Fx; R(t##_Fy) = tout[k].Fy; R(t##_Mz) = tout[k].Mz; \
    R(t##_My) = tout[k].My; R(t##_Mx) = tout[k].Mx; R(t##_Re) = tout[k].Re; R(t##_alpha) = tout[k].alpha; \
    R(t##_sigmaKappa) = tout[k].sigmaKappa; R(t##_sigmaAlpha) = tout[k].sigmaAlpha; \
    R(t##_damping) = tout[k].damping; R(t##_FxSlip) = tout[k].FxSlip; R(t##_FySlip) = tout[k].FySlip; \
    DER(t##_kappa) = tout[k].der_kappa; DER(t##_tanAlpha) = tout[k].der_tanAlpha; \
} while (0)

void model_outputs_and_derivatives(ModelInstance *m)
{
    const AxleMaps front = AXLE_MAPS(frontAxle_data), rear = AXLE_MAPS(rearAxle_data);
    const AxleMaps *maps[2] = {&front, &rear};
    const MFRecord *tc[4] = {MF_RECORD(m, tireFL_c), MF_RECORD(m, tireFR_c), MF_RECORD(m, tireRL_c),
                             MF_RECORD(m, tireRR_c)};
    const int tv[4] = {MF_VERSION(m, tireFL_c), MF_VERSION(m, tireFR_c), MF_VERSION(m, tireRL_c),
                       MF_VERSION(m, tireRR_c)};
    const double sigmaMin[4] = {R(tireFL_sigmaMin), R(tireFR_sigmaMin), R(tireRL_sigmaMin), R(tireRR_sigmaMin)};
    const double lowSpeedDamping[4] = {R(tireFL_lowSpeedDamping), R(tireFR_lowSpeedDamping),
                                       R(tireRL_lowSpeedDamping), R(tireRR_lowSpeedDamping)};
    const double *kappa[4] = {&R(tireFL_kappa), &R(tireFR_kappa), &R(tireRL_kappa), &R(tireRR_kappa)};
    const double *tanAlpha[4] = {&R(tireFL_tanAlpha), &R(tireFR_tanAlpha), &R(tireRL_tanAlpha), &R(tireRR_tanAlpha)};

    const double *cornerX = RA(cornerX), *cornerY = RA(cornerY), *tps = RA(tiresPerStation);
    const double *side = RA(side), *um = RA(unsprungMass), *dwh = RA(designWheelHeight);
    const double *ur = RA(unloadedRadius), *road = RA(roadHeight);
    const double wh[4] = {RA(wheelHeight)[0], RA(wheelHeight)[1], RA(wheelHeight)[2], RA(wheelHeight)[3]};
    const double wvv[4] = {RA(wheelVerticalVelocity)[0], RA(wheelVerticalVelocity)[1],
                           RA(wheelVerticalVelocity)[2], RA(wheelVerticalVelocity)[3]};
    const double omega[4] = {RA(omega)[0], RA(omega)[1], RA(omega)[2], RA(omega)[3]};
    const double g = R(g), ms = R(sprungMass);
    const double vx = R(vx), vy = R(vy), yaw = R(yaw), yawRate = R(yawRate);
    const double roll = R(roll), pitch = R(pitch), rollRate = R(rollRate), pitchRate = R(pitchRate);
    const double bodyHeight = R(bodyHeight), bodyVz = R(bodyVerticalVelocity), cogHeight = R(chassis_cogHeight);

    /* Kinematics of the sprung mass */
    DER(X) = vx * cos(yaw) - vy * sin(yaw);
    DER(Y) = vx * sin(yaw) + vy * cos(yaw);
    DER(yaw) = yawRate;
    DER(bodyHeight) = bodyVz;
    DER(roll) = rollRate;
    DER(pitch) = pitchRate;
    for (int i = 0; i < 4; i++)
        DERA(wheelHeight)[i] = wvv[i];

    /* Wheel travel, travel rate, tyre deflection */
    double travel[4], travelRate[4], deflection[4];
    for (int i = 0; i < 4; i++) {
        travel[i] = wh[i] - dwh[i] - (bodyHeight - cogHeight - cornerX[i] * pitch + cornerY[i] * roll);
        travelRate[i] = wvv[i] - (bodyVz - cornerX[i] * pitchRate + cornerY[i] * rollRate);
        deflection[i] = ur[i] - (wh[i] - road[i]);
        RA(wheelTravel)[i] = travel[i];
        RA(travelRate)[i] = travelRate[i];
        RA(tireDeflection)[i] = deflection[i];
    }

    /* Steering */
    const double swa = R(steeringWheelAngle);
    const double rackTravel = R(steering_ratio) * swa;
    R(steering_steeringWheelAngle) = swa;
    R(steering_rackTravel) = rackTravel;

    /* Tyre vertical forces */
    const MFRecord *ft = MF_RECORD(m, frontTire), *rt = MF_RECORD(m, rearTire);
    double Fz[4];
    TireInputs tin[4];
    TireOutputs tout[4];
    for (int i = 0; i < 4; i++) {
        Fz[i] = tps[i] * mf_verticalForce(deflection[i], -wvv[i], i < 2 ? ft : rt);
        RA(Fz)[i] = Fz[i];
        tin[i].Fz = Fz[i] / tps[i];
        tin[i].omega = omega[i];
        tin[i].kappa = *kappa[i];
        tin[i].tanAlpha = *tanAlpha[i];
    }

    /* Axles: kinematics, force elements; compliance loop with the tyre slip forces */
    AxleState ax_[2];
    for (int k = 0; k < 2; k++) {
        AxleState *a = &ax_[k];
        const AxleMaps *d = maps[k];
        const int w0 = 2 * k;
        a->travel[0] = travel[w0];
        a->travel[1] = travel[w0 + 1];
        a->travelRate[0] = travelRate[w0];
        a->travelRate[1] = travelRate[w0 + 1];
        a->rackTravel = k == 0 ? rackTravel : 0;
        axle_kinematics(d, a);

        /* Tyre slip forces at the kinematic camber (MapAxle.kinematicCamber), then compliance. */
        double wFx[2], wFy[2], wMz[2];
        axle_nonzero_maps(d, a);
        const unsigned loads = a->nonzero[C_CAMBER] | a->nonzero[C_TX] | a->nonzero[C_TY] | a->nonzero[C_TOE];
        for (int i = 0; i < 2; i++) {
            const int w = w0 + i;
            MFSlip slip;
            mf_tire_slip_prepare(tc[w], tv[w], tin[w].Fz, tin[w].kappa, tin[w].tanAlpha, &slip, &tout[w]);
            tin[w].gamma = -side[w] * a->kinCamber[i] + roll;
            mf_tire_slip_at_gamma(&slip, tin[w].gamma, &tout[w]);
            wFx[i] = tps[w] * tout[w].FxSlip;
            wFy[i] = tps[w] * tout[w].FySlip;
            wMz[i] = tps[w] * tout[w].Mz;
        }
        axle_locate_loads(d, a, wFx, wFy, wMz, loads);
        axle_camber(d, a);
        axle_other_compliance(d, a);
        axle_contact_path_velocity(a);
    }

    /* Wheel positions, steer angles, contact velocities, tyres */
    double wheelX[4], wheelY[4], steer[4], camber[4], FxV[4], FyV[4], wheelFx[4], wheelFy[4], wheelMz[4];
    for (int i = 0; i < 4; i++) {
        const AxleState *a = &ax_[i / 2];
        const int j = i % 2;
        wheelX[i] = cornerX[i] + a->tx[j];
        wheelY[i] = cornerY[i] + a->ty[j];
        steer[i] = a->toe[j];
        camber[i] = a->camber[j];
        /* body velocity + angular velocity x contact position + motion along the kinematic path */
        const double depth = bodyHeight - road[i];
        const double cvx = vx - yawRate * wheelY[i] - pitchRate * depth + a->contactPathVx[j];
        const double cvy = vy + yawRate * wheelX[i] + rollRate * depth + a->contactPathVy[j];
        RA(contactDepth)[i] = depth;
        const double cs = cos(steer[i]), sn = sin(steer[i]);
        tin[i].vx = cs * cvx + sn * cvy;
        tin[i].vy = -sn * cvx + cs * cvy;
        mf_tire_finish(tc[i], tv[i], sigmaMin[i], lowSpeedDamping[i], &tin[i], &tout[i]);
        wheelFx[i] = tps[i] * tout[i].Fx;
        wheelFy[i] = tps[i] * tout[i].Fy;
        wheelMz[i] = tps[i] * tout[i].Mz;
        FxV[i] = cs * wheelFx[i] - sn * wheelFy[i];
        FyV[i] = sn * wheelFx[i] + cs * wheelFy[i];
        RA(contactVx)[i] = cvx;
        RA(contactVy)[i] = cvy;
        RA(wheelX)[i] = wheelX[i];
        RA(wheelY)[i] = wheelY[i];
        RA(wheelSteerAngle)[i] = steer[i];
        RA(camber)[i] = camber[i];
        RA(inclination)[i] = tin[i].gamma;
        RA(wheelFx)[i] = wheelFx[i];
        RA(wheelFy)[i] = wheelFy[i];
        RA(wheelMz)[i] = wheelMz[i];
        RA(Fx)[i] = FxV[i];
        RA(Fy)[i] = FyV[i];
    }
    TIRE_STORE_(tireFL, 0);
    TIRE_STORE_(tireFR, 1);
    TIRE_STORE_(tireRL, 2);
    TIRE_STORE_(tireRR, 3);

    /* Jacking forces, body forces */
    double suspensionForce[4], jackingForce[4], bodyForce[4];
    for (int k = 0; k < 2; k++) {
        AxleState *a = &ax_[k];
        const int w0 = 2 * k;
        axle_jacking(a, &FxV[w0], &FyV[w0]);
        const double sFx[2] = {tps[w0] * tout[w0].FxSlip, tps[w0 + 1] * tout[w0 + 1].FxSlip};
        const double sFy[2] = {tps[w0] * tout[w0].FySlip, tps[w0 + 1] * tout[w0 + 1].FySlip};
        if (k == 0)
            STORE_AXLE_(frontAxle, *a, &FxV[w0], &FyV[w0], sFx, sFy, &wheelMz[w0]);
        else
            STORE_AXLE_(rearAxle, *a, &FxV[w0], &FyV[w0], sFx, sFy, &wheelMz[w0]);
        for (int j = 0; j < 2; j++) {
            suspensionForce[w0 + j] = a->verticalForce[j];
            jackingForce[w0 + j] = a->jackingForce[j];
        }
    }
    for (int i = 0; i < 4; i++) {
        bodyForce[i] = suspensionForce[i] - jackingForce[i];
        RA(suspensionForce)[i] = suspensionForce[i];
        RA(jackingForce)[i] = jackingForce[i];
        RA(bodyForce)[i] = bodyForce[i];
    }

    /* Driveline (Driveline.mo, continuous part; gear = pre(gear) between events) */
    const int gear = I(driveline_gear);
    const double *ratios = RA(driveline_gearRatios);
    const double throttleLimited = clampd(R(throttle), 0, 1);
    const double gearRatio = gear_entry(ratios, N_GEARS, gear);
    const double finalDrive = R(driveline_finalDriveRatio);
    const double outputSpeed = finalDrive * (omega[2] + omega[3]) / 2;
    const double clutchSpeed = gearRatio * outputSpeed;
    const double engineSpeed = maxd(R(driveline_idleSpeed), clutchSpeed);
    const double e = clampd(clutchSpeed / R(driveline_launchSpeed), 0, 1);
    const double clutchEngagement = e * e * (3 - 2 * e);
    const double engineTorque = R(driveline_torqueGain)
        * tables_interp2(RA(driveline_engine_speed), DIM_driveline_engine_speed_1,
                         RA(driveline_engine_throttle), DIM_driveline_engine_throttle_1,
                         RA(driveline_engine_torque), engineSpeed, throttleLimited, 0);
    const double clutchTorque = maxd(engineTorque, 0) + clutchEngagement * mind(engineTorque, 0);
    const double eff = R(driveline_efficiency);
    const double axleTorque = gearRatio * finalDrive * (eff * maxd(clutchTorque, 0) + mind(clutchTorque, 0) / eff);
    const double gf = gearRatio * finalDrive;
    const double reflectedInertia = clutchEngagement * R(driveline_engineInertia) * (gf * gf) / 2;
    R(driveline_throttle) = R(throttle);
    R(driveline_wheelSpeedRL) = omega[2];
    R(driveline_wheelSpeedRR) = omega[3];
    R(driveline_throttleLimited) = throttleLimited;
    R(driveline_gearRatio) = gearRatio;
    R(driveline_outputSpeed) = outputSpeed;
    R(driveline_clutchSpeed) = clutchSpeed;
    R(driveline_engineSpeed) = engineSpeed;
    R(driveline_clutchEngagement) = clutchEngagement;
    R(driveline_engineTorque) = engineTorque;
    R(driveline_clutchTorque) = clutchTorque;
    R(driveline_axleTorque) = axleTorque;
    R(driveline_driveTorqueRL) = axleTorque / 2;
    R(driveline_driveTorqueRR) = axleTorque / 2;
    R(driveline_reflectedInertia) = reflectedInertia;
    R(driveline_gearNumber) = gear;
    {
        /* shift thresholds of the engaged gear (locals; the when-clause itself runs in
         * model_discrete_update) */
        const double *upNT = RA(driveline_upshiftSpeedNoThrottle), *upFT = RA(driveline_upshiftSpeed);
        R(driveline_engineSpeedInGear) = outputSpeed * gear_entry(ratios, N_GEARS, gear);
        R(driveline_upshiftThreshold) = gear_entry(upNT, N_GEARS - 1, gear)
            + throttleLimited * (gear_entry(upFT, N_GEARS - 1, gear) - gear_entry(upNT, N_GEARS - 1, gear));
        R(driveline_downshiftThreshold) = gear_entry(RA(driveline_downshiftSpeed), N_GEARS - 1, gear - 1);
    }

    /* Brakes */
    const double pedal = R(brakePedal);
    const double pedalLimited = clampd(pedal, 0, 1);
    double *bt = RA(brakes_brakeTorque);
    R(brakes_pedal) = pedal;
    bt[0] = R(brakes_torqueGainFront) * pedalLimited / 2;
    bt[1] = R(brakes_torqueGainFront) * pedalLimited / 2;
    bt[2] = R(brakes_torqueGainRear) * pedalLimited / 2;
    bt[3] = R(brakes_torqueGainRear) * pedalLimited / 2;

    /* Aerodynamics */
    const double aeroForce = 0.5 * R(aero_airDensity) * R(aero_dragArea) * vx * fabs(vx);
    R(aero_vx) = vx;
    R(aero_force) = aeroForce;

    /* Wheel spin */
    const double drive[4] = {0, 0, axleTorque / 2, axleTorque / 2};
    const double spinInertia[4] = {R(chassis_frontWheelInertia), R(chassis_frontWheelInertia),
                                   R(chassis_rearWheelInertia) + reflectedInertia,
                                   R(chassis_rearWheelInertia) + reflectedInertia};
    for (int i = 0; i < 4; i++) {
        /* wheelBrakeTorque = T*tanh(omega/brakeSpeedRegularisation); exactly 0 when T = 0 */
        const double wheelTorque = drive[i] - (bt[i] == 0 ? 0 : bt[i] * tanh(omega[i] / R(brakeSpeedRegularisation)));
        RA(wheelTorque)[i] = wheelTorque;
        RA(spinInertia)[i] = spinInertia[i];
        /* Fx acts at the contact point: its lever is the loaded radius */
        DERA(omega)[i] = (wheelTorque - wheelFx[i] * (ur[i] - deflection[i]) + tps[i] * tout[i].My) / spinInertia[i];
    }

    /* Horizontal motion: the whole vehicle's momentum */
    const double totalMass = R(totalMass);
    const double sumFx = FxV[0] + FxV[1] + FxV[2] + FxV[3] - aeroForce, sumFy = FyV[0] + FyV[1] + FyV[2] + FyV[3];
    R(ax) = sumFx / totalMass;
    R(ay) = sumFy / totalMass;

    /* Vertical motion */
    double sumBody = 0;
    for (int i = 0; i < 4; i++) {
        DERA(wheelVerticalVelocity)[i] = (Fz[i] + jackingForce[i] - suspensionForce[i] - um[i] * g) / um[i];
        sumBody += bodyForce[i];
    }
    const double azSprung = (sumBody - ms * g) / ms;
    DER(bodyVerticalVelocity) = azSprung;

    /* Generalized forces of the body rotations about the sprung centre of gravity */
    double rollMoment = 0, pitchMoment = 0, yawMoment = 0;
    for (int i = 0; i < 4; i++) {
        const double depth = bodyHeight - road[i];
        rollMoment += cornerY[i] * bodyForce[i] + depth * FyV[i];
        pitchMoment += -cornerX[i] * bodyForce[i] - depth * FxV[i];
        yawMoment += wheelX[i] * FyV[i] - wheelY[i] * FxV[i] + wheelMz[i];
    }
    rollMoment += ms * g * cogHeight * sin(roll);
    pitchMoment += aeroForce * (R(aero_height) - bodyHeight) + ms * g * cogHeight * sin(pitch);
    R(rollMoment) = rollMoment;
    R(pitchMoment) = pitchMoment;
    R(yawMoment) = yawMoment;

    /* Equations of motion with the mass matrices (solveSymmetric3 and the 2x2 of RTM14DoF.mo) */
    const double m_ = R(totalMass), sh = R(unsprungRollMoment), sx = R(unsprungXMoment), jxx = R(rollInertia);
    const double jxz = R(rollYawProduct), jzz = R(yawInertia), sq = R(unsprungPitchMoment), jyy = R(pitchInertia);
    const double c11 = jxx * jzz - jxz * jxz, c12 = sx * jxz - sh * jzz, c13 = sh * jxz - sx * jxx;
    const double c22 = m_ * jzz - sx * sx, c23 = sh * sx - m_ * jxz, c33 = m_ * jxx - sh * sh;
    const double det3 = m_ * c11 + sh * c12 + sx * c13;
    if (!(det3 > 0)) {
        model_error(m, "solveSymmetric3: the matrix is not positive definite (check masses and inertias)");
        return;
    }
    const double aySprung = (c11 * sumFy + c12 * rollMoment + c13 * yawMoment) / det3;
    const double dRollRate = (c12 * sumFy + c22 * rollMoment + c23 * yawMoment) / det3;
    const double dYawRate = (c13 * sumFy + c23 * rollMoment + c33 * yawMoment) / det3;
    const double det2 = m_ * jyy - sq * sq;
    const double axSprung = (jyy * sumFx + sq * pitchMoment) / det2;
    const double dPitchRate = (sq * sumFx + m_ * pitchMoment) / det2;
    R(aySprung) = aySprung;
    R(axSprung) = axSprung;
    DER(vx) = axSprung + yawRate * vy;
    DER(vy) = aySprung - yawRate * vx;
    DER(rollRate) = dRollRate;
    DER(yawRate) = dYawRate;
    DER(pitchRate) = dPitchRate;

    /* Body-fixed accelerometer: acceleration of the point, then the specific force on body axes */
    const double *pa = RA(accelerometerPosition);
    const double p = rollRate, q = pitchRate, r = yawRate;
    const double axP = axSprung + dPitchRate * pa[2] - dYawRate * pa[1]
        + q * (p * pa[1] - q * pa[0]) - r * (r * pa[0] - p * pa[2]);
    const double ayP = aySprung + dYawRate * pa[0] - dRollRate * pa[2]
        + r * (q * pa[2] - r * pa[1]) - p * (p * pa[1] - q * pa[0]);
    const double azP = azSprung + dRollRate * pa[1] - dPitchRate * pa[0]
        + p * (r * pa[0] - p * pa[2]) - q * (q * pa[2] - r * pa[1]);
    R(axSensorYawFrame) = axP;
    R(aySensorYawFrame) = ayP;
    R(azSensorYawFrame) = azP;
    R(axSensor) = axP * cos(pitch) - (azP + g) * sin(pitch);
    R(aySensor) = axP * sin(pitch) * sin(roll) + ayP * cos(roll) + (azP + g) * cos(pitch) * sin(roll);

    /* Outputs */
    R(speed) = sqrt(vx * vx + vy * vy);
    const double *pv = RA(velocitySensorPosition);
    R(sideslipSprung) = atan2(vy, maxd(fabs(vx), 0.1));
    R(sideslip) = atan2(vy + (sh * rollRate + sx * yawRate) / totalMass,
                        maxd(fabs(vx - sq * pitchRate / totalMass), 0.1));
    R(sideslipSensor) = atan2(vy + yawRate * pv[0] - rollRate * pv[2],
                              maxd(fabs(vx - yawRate * pv[1] + pitchRate * pv[2]), 0.1));
    R(rollRelativeToRoad) = roll - ((road[0] - road[1]) / R(frontAxleData_track)
                                    + (road[2] - road[3]) / R(rearAxleData_track)) / 2;
    R(pitchRelativeToRoad) = pitch - ((road[2] + road[3]) - (road[0] + road[1])) / (2 * R(chassis_wheelbase));
    R(lateralLoadTransfer) = ((Fz[1] + Fz[3]) - (Fz[0] + Fz[2])) / 2;
    for (int i = 0; i < 4; i++)
        RA(wheelSpeed)[i] = omega[i];
}

/* ---- when-clause of Driveline.mo ------------------------------------------------------------ */
void model_discrete_update(ModelInstance *m)
{
    const int preGear = I(driveline_gear);
    const double preLastShiftTime = R(driveline_lastShiftTime);
    const int preCondition = B(driveline_upshift) || B(driveline_downshift);
    int up, down;
    driveline_conditions(m, preGear, preLastShiftTime, &up, &down);
    B(driveline_upshift) = up;
    B(driveline_downshift) = down;
    if ((up || down) && !preCondition) {
        I(driveline_gear) = up ? preGear + 1 : preGear - 1;
        R(driveline_lastShiftTime) = m->time;
        /* event iteration: the conditions again with the new pre(gear), pre(lastShiftTime) */
        driveline_conditions(m, I(driveline_gear), R(driveline_lastShiftTime), &up, &down);
        B(driveline_upshift) = up;
        B(driveline_downshift) = down;
    }
}

const char *const MODEL_LOCALS[] = {
    "steering.steeringWheelAngle", "steering.rackTravel",
#define AXLE_LOCALS_(s) \
    s ".travel[1]", s ".travel[2]", s ".travelRate[1]", s ".travelRate[2]", s ".rackTravel", \
    s ".wheelFx[1]", s ".wheelFx[2]", s ".wheelFy[1]", s ".wheelFy[2]", s ".wheelMz[1]", s ".wheelMz[2]", \
    s ".contactFx[1]", s ".contactFx[2]", s ".contactFy[1]", s ".contactFy[2]", \
    s ".verticalForce[1]", s ".verticalForce[2]", s ".jackingForce[1]", s ".jackingForce[2]", s ".antiRollForce", \
    s ".damperForce[1]", s ".damperForce[2]", s ".bumpStopForce[1]", s ".bumpStopForce[2]", \
    s ".reboundStopForce[1]", s ".reboundStopForce[2]", s ".tx[1]", s ".tx[2]", s ".ty[1]", s ".ty[2]", \
    s ".toe[1]", s ".toe[2]", s ".camber[1]", s ".camber[2]", s ".caster[1]", s ".caster[2]", \
    s ".springLength[1]", s ".springLength[2]", s ".antiRollBarLength[1]", s ".antiRollBarLength[2]", \
    s ".contactPathVx[1]", s ".contactPathVx[2]", s ".contactPathVy[1]", s ".contactPathVy[2]"
    AXLE_LOCALS_("frontAxle"), AXLE_LOCALS_("rearAxle"),
#define TIRE_LOCALS_(t) \
    t ".Fz", t ".vx", t ".vy", t ".omega", t ".gamma", t ".Fx", t ".Fy", t ".Mz", t ".My", t ".Mx", t ".Re", \
    t ".alpha", t ".sigmaKappa", t ".sigmaAlpha", t ".damping", t ".FxSlip", t ".FySlip"
    TIRE_LOCALS_("tireFL"), TIRE_LOCALS_("tireFR"), TIRE_LOCALS_("tireRL"), TIRE_LOCALS_("tireRR"),
    "driveline.throttle", "driveline.wheelSpeedRL", "driveline.wheelSpeedRR", "driveline.driveTorqueRL",
    "driveline.driveTorqueRR", "driveline.engineSpeed", "driveline.gearNumber", "driveline.engineTorque",
    "driveline.reflectedInertia", "driveline.gear", "driveline.lastShiftTime", "driveline.throttleLimited",
    "driveline.gearRatio", "driveline.outputSpeed", "driveline.clutchSpeed", "driveline.clutchEngagement",
    "driveline.clutchTorque", "driveline.axleTorque", "driveline.engineSpeedInGear", "driveline.upshiftThreshold",
    "driveline.downshiftThreshold", "driveline.shiftAllowed", "driveline.upshift", "driveline.downshift",
    "brakes.pedal", "brakes.brakeTorque[1]", "brakes.brakeTorque[2]", "brakes.brakeTorque[3]", "brakes.brakeTorque[4]",
    "aero.vx", "aero.force",
#define FOUR_(n) n "[1]", n "[2]", n "[3]", n "[4]"
    FOUR_("travelRate"), FOUR_("tireDeflection"), FOUR_("contactVx"), FOUR_("contactVy"), FOUR_("wheelX"),
    FOUR_("wheelY"), FOUR_("camber"), FOUR_("inclination"), FOUR_("wheelFx"), FOUR_("wheelFy"), FOUR_("wheelMz"),
    FOUR_("Fx"), FOUR_("Fy"), FOUR_("suspensionForce"), FOUR_("jackingForce"), FOUR_("bodyForce"),
    FOUR_("wheelTorque"), "rollMoment", "pitchMoment", "yawMoment", FOUR_("spinInertia"), FOUR_("contactDepth"),
    "axSensorYawFrame", "aySensorYawFrame", "azSensorYawFrame",
    NULL};
