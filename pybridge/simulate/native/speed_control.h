/* The manoeuvres' speed controller (pybridge.simulate.manoeuvres.SpeedController.update), shared by the
 * manoeuvre runner and the lane runner: a PI law on the speed error with the feed-forward `hold` once t > 0,
 * the integral clamped while the command saturates; the command's positive part is the throttle, its negative
 * part times brake_gain the brake. `targets` (one target per point k) or the constant `target`. */
#ifndef SPEED_CONTROL_H
#define SPEED_CONTROL_H
#include <math.h>
#include <stddef.h>

static double speed_control_min(double a, double b) { return a < b ? a : b; }
static double speed_control_max(double a, double b) { return a > b ? a : b; }

static void speed_command(const double *targets, double target, double kp, double ki, double hold, double h,
                          double brake_gain, double *integral, size_t k, double t, double speed, double *throttle,
                          double *brake)
{
    double error = (targets ? targets[k] : target) - speed;
    double base = kp * error + (t > 0 ? hold : 0.0);
    double trial = base + ki * (*integral + error * h);
    double command;
    if (fabs(trial) < 1.0 || trial * error < 0.0)
        *integral += error * h;
    command = speed_control_min(speed_control_max(base + ki * *integral, -1.0), 1.0);
    *throttle = speed_control_max(command, 0.0);
    *brake = brake_gain * speed_control_max(-command, 0.0);
}
#endif
