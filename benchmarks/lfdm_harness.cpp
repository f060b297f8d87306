// LFDM's 18-DoF model (github.com/uwsbel/low-fidelity-dynamic-models, MIT licence) stepped like its own
// step-by-step demo (demos/HMMWV/demo_hmmwv_hi_step_18.cpp: throttle 0.5 and steering 0.1 from t = 0.5 s,
// the half-implicit solver at 1 ms), for 20 s, without output files. Built and run by lfdm_compare.py.
// Usage: lfdm_harness VEHICLE_JSON TIRE_JSON RUNS; prints the thread CPU seconds of each run's stepping.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "dof18_halfImplicit.h"

static double thread_cpu() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s VEHICLE_JSON TIRE_JSON RUNS\n", argv[0]);
        return 2;
    }
    const int runs = std::atoi(argv[3]);
    for (int run = 0; run < runs; run++) {
        d18SolverHalfImplicit solver;
        solver.Construct(argv[1], argv[2]);
        solver.SetTimeStep(1e-3);
        d18::VehicleState veh;
        d18::TMeasyState lf, rf, lr, rr;
        solver.Initialize(veh, lf, rf, lr, rr);
        const double step = solver.GetStep(), end = 20.0;
        double t = 0.0, yaw_rate = 0.0;
        long steps = 0;
        const double start = thread_cpu();
        while (t < end - step / 10.0) {
            const bool on = t > 0.5;
            t = solver.IntegrateStep(t, on ? 0.5 : 0.0, on ? 0.1 : 0.0, 0.0);
            steps++;
        }
        const double cpu = thread_cpu() - start;
        yaw_rate = solver.m_veh_state._wz;
        std::printf("%.9f %ld %.6f\n", cpu, steps, yaw_rate);
    }
    return 0;
}
