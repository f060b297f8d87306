"""The real-time report: step-time distribution against the budget, first-call and initialization
costs, allocations and system calls inside fmi2DoStep, the machine; as a dict, text and a plot."""
from __future__ import annotations

import os
import platform
import re
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from pybridge.runinfo import cpu_name

SYSCALL_METHOD = ("ptrace: the manoeuvre runs once more in a child process stopped at every system-call entry "
                  "(PTRACE_SYSCALL, threads followed); an entry counts when the child is inside fmi2DoStep")
ALLOCATION_METHOD = ("malloc, calloc, realloc, free, posix_memalign, aligned_alloc, memalign interposed by the "
                     "harness executable, and the FMI allocateMemory/freeMemory callbacks, counted while inside "
                     "fmi2DoStep in every timed run")
OFF_CPU = 20e-6   # s: a step whose wall time exceeds its thread CPU time by more was preempted or blocked
SHARED_MACHINE = ("other processes share this machine: a wall-time outlier without thread-CPU time is a "
                  "preemption (see involuntary_context_switches), not the model")


def distribution(seconds: np.ndarray) -> dict:
    """mean, median, p99, p99.9 and max of step times, in µs."""
    x = np.asarray(seconds, dtype=float).ravel() * 1e6
    p = np.percentile(x, [50, 99, 99.9])
    return {"mean": float(x.mean()), "median": float(p[0]), "p99": float(p[1]), "p99_9": float(p[2]),
            "max": float(x.max())}


@lru_cache(maxsize=1)
def syscall_names() -> dict[int, str]:
    """System-call numbers of this machine's kernel ABI from the kernel headers ({} when absent)."""
    machine = platform.machine()
    candidates = [f"/usr/include/{machine}-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h",
                  "/usr/include/asm-generic/unistd.h"]
    for candidate in candidates:
        if Path(candidate).is_file():
            text = Path(candidate).read_text(errors="replace")
            return {int(n): name for name, n in re.findall(r"#define\s+__NR_(\w+)\s+(\d+)\s*$", text, re.M)}
    return {}


def _named_syscalls(counts: dict[str, int]) -> dict[str, int]:
    names = syscall_names()
    return {names.get(int(nr), f"syscall {nr}"): n for nr, n in counts.items()}


def summarize(plan, raw: dict, wall: np.ndarray, cpu: np.ndarray, cycle: np.ndarray, budget: float,
              load: dict) -> dict:
    """The report of a harness run (``raw``: its JSON; wall, cpu, cycle: step times [s], (runs, steps))."""
    costs = raw["run_costs"]
    in_step = raw["allocations"].get("step", {})
    syscalls = raw["syscalls"]
    syscall_count = sum(syscalls["step"].values())
    over = int(np.count_nonzero(wall > budget))
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "fmu": str(plan.fmu), "model": plan.model_name, "guid": plan.guid, "scenario": plan.scenario, "step_s": plan.step,
        "budget_s": budget, "steps_per_run": plan.steps, "runs": raw["runs"], "steps_timed": int(wall.size),
        "inputs": [name for name, _ in plan.inputs] + ([f"{name} (PI speed driver in C)" for name in
                                                         ("throttle", "brakePedal")] if plan.pi else []),
        "parameters": {name: value for name, (_, value) in plan.params.items()},
        "step_time_us": {"wall": distribution(wall), "thread_cpu": distribution(cpu),
                         "cycle_wall": distribution(cycle)},
        "budget": {"fraction_at_p99_9": distribution(wall)["p99_9"] * 1e-6 / budget,
                   "fraction_at_max": float(wall.max()) / budget, "steps_over": over,
                   "cpu_fraction_at_max": float(cpu.max()) / budget},
        "off_cpu": _off_cpu(wall, cpu, budget),
        "first_step_us": {"wall": float(wall[0, 0]) * 1e6, "thread_cpu": float(cpu[0, 0]) * 1e6},
        "instantiate_us": {"wall": costs[0]["instantiate_wall"] * 1e6, "thread_cpu": costs[0]["instantiate_cpu"] * 1e6},
        "initialization_us": {"wall": costs[0]["init_wall"] * 1e6, "thread_cpu": costs[0]["init_cpu"] * 1e6},
        "allocations_in_step": {"count": sum(in_step.values()), "by_function": in_step,
                                "first_calls": raw["allocation_records"], "method": ALLOCATION_METHOD},
        "allocations_in_set_get": raw["allocations"].get("io", {}),
        "logger_calls_in_step": raw["logger_calls"]["step"],
        "syscalls_in_step": {"count": syscall_count, "by_name": _named_syscalls(syscalls["step"]),
                             "first_step": syscalls["first_step"], "status": syscalls["status"],
                             "method": SYSCALL_METHOD},
        "syscalls_in_set_get": _named_syscalls(syscalls["io"]),
        "while_stepping": {k: sum(c[k] for c in costs) for k in
                           ("minor_faults", "major_faults", "voluntary_switches", "involuntary_switches")},
        "clock_overhead_us": {k: v * 1e6 for k, v in raw["clock_overhead"].items()},
        "pinning": raw["pinning"], "mlock": raw["mlock"],
        "machine": {"cpu": cpu_name(), "cpus": os.cpu_count(), "system": platform.platform(),
                    "load_average_1_5_15min": load, "note": SHARED_MACHINE},
        "last_outputs": dict(zip((name for name, _ in plan.outputs), raw["last_outputs"])),
    }
    report["reasons"] = _reasons(report)
    report["fits"] = not report["reasons"]
    return report


def _off_cpu(wall: np.ndarray, cpu: np.ndarray, budget: float) -> dict:
    """Steps that spent more than OFF_CPU off the processor (wall - thread CPU), and the worst wall time of
    the others: what the model itself needs when nothing else competes for its CPU."""
    off = (wall - cpu) > OFF_CPU
    on = wall[~off]
    worst = float(on.max()) if on.size else float("nan")
    return {"threshold_us": OFF_CPU * 1e6, "steps": int(np.count_nonzero(off)),
            "max_off_cpu_us": float((wall - cpu).max()) * 1e6, "wall_max_of_other_steps_us": worst * 1e6,
            "fraction_of_budget_at_that_max": worst / budget}


def _reasons(report: dict) -> list[str]:
    """Why the FMU does not fit the budget ([] when it does)."""
    reasons = []
    worst = report["step_time_us"]["wall"]["max"]
    if report["budget"]["steps_over"]:
        reasons.append(f"{report['budget']['steps_over']} step(s) over the budget (max {worst:.1f} µs)")
    if report["allocations_in_step"]["count"]:
        reasons.append(f"{report['allocations_in_step']['count']} allocation call(s) inside fmi2DoStep")
    sys = report["syscalls_in_step"]
    if sys["status"] != "ok":
        reasons.append(f"system calls not checked: {sys['status']}")
    elif sys["count"]:
        reasons.append(f"{sys['count']} system call(s) inside fmi2DoStep")
    return reasons


def format_report(report: dict) -> str:
    """The report as text for the terminal."""
    budget_us = report["budget_s"] * 1e6
    lines = [f"rt-check {Path(report['fmu']).name} ({report['model']}): scenario {report['scenario']}, "
             f"{report['runs']} run(s) x {report['steps_per_run']} steps of {report['step_s'] * 1e3:g} ms, "
             f"budget {budget_us:g} µs per step",
             f"{'time per step [µs]':34s}{'mean':>9s}{'median':>9s}{'p99':>9s}{'p99.9':>9s}{'max':>9s}"]
    for key, label in (("wall", "fmi2DoStep, wall (monotonic)"), ("thread_cpu", "fmi2DoStep, thread CPU"),
                       ("cycle_wall", "set inputs + step + get outputs")):
        d = report["step_time_us"][key]
        lines.append(f"  {label:32s}" + "".join(f"{d[k]:9.2f}" for k in ("mean", "median", "p99", "p99_9", "max")))
    b = report["budget"]
    lines.append(f"budget: p99.9 uses {100 * b['fraction_at_p99_9']:.2f} %, max {100 * b['fraction_at_max']:.2f} % "
                 f"of {budget_us:g} µs; {b['steps_over']} of {report['steps_timed']} steps over it; thread CPU max "
                 f"uses {100 * b['cpu_fraction_at_max']:.2f} %")
    off = report["off_cpu"]
    lines.append(f"{off['steps']} step(s) spent more than {off['threshold_us']:g} µs off the CPU (preempted or "
                 f"blocked; up to {off['max_off_cpu_us']:.0f} µs); the other steps' max: "
                 f"{off['wall_max_of_other_steps_us']:.1f} µs wall ({100 * off['fraction_of_budget_at_that_max']:.2f} %)")
    lines.append(f"first fmi2DoStep {report['first_step_us']['wall']:.1f} µs wall; fmi2Instantiate "
                 f"{report['instantiate_us']['wall']:.1f} µs; initialization (setup, parameters, enter/exit) "
                 f"{report['initialization_us']['wall']:.1f} µs")
    alloc = report["allocations_in_step"]
    lines.append("allocations inside fmi2DoStep: " + (
        "none" if not alloc["count"] else f"{alloc['count']} (" + ", ".join(
            f"{n} {k}" for k, n in alloc["by_function"].items()) + "); first: " + ", ".join(
            f"{r['kind']}({r['bytes']}) from {r['caller']} at step {r['step']}" for r in alloc["first_calls"][:3])))
    sys = report["syscalls_in_step"]
    lines.append("system calls inside fmi2DoStep: " + (
        f"not checked ({sys['status']})" if sys["status"] != "ok" else "none" if not sys["count"] else
        f"{sys['count']} (" + ", ".join(f"{n} {k}" for k, n in sys["by_name"].items())
        + f"), the first at step {sys['first_step']}") + " [traced with ptrace]")
    w = report["while_stepping"]
    lines.append(f"while stepping: {w['minor_faults']} minor / {w['major_faults']} major page faults, "
                 f"{w['involuntary_switches']} involuntary context switches; pinning {report['pinning']}, "
                 f"mlock {report['mlock']}; a clock reading costs {report['clock_overhead_us']['wall']:.2f} µs (wall), "
                 f"{report['clock_overhead_us']['cpu']:.2f} µs (thread CPU, inside its step times)")
    m = report["machine"]
    lines.append(f"machine: {m['cpu']}, {m['cpus']} CPUs, load average {m['load_average_1_5_15min']['before'][0]:.2f} "
                 f"before, {m['load_average_1_5_15min']['after'][0]:.2f} after; {m['note']}")
    lines.append("verdict: " + ("FITS" if report["fits"] else "DOES NOT FIT: " + "; ".join(report["reasons"]))
                 + f" (a {budget_us:g} µs task on this machine)")
    return "\n".join(lines)


def plot_report(report: dict, wall: np.ndarray, cpu: np.ndarray, path: str | Path) -> Path:
    """PNG: histogram of the step times and the fraction of steps slower than a time, with the budget."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    budget_us = report["budget_s"] * 1e6
    figure, (histogram, tail) = plt.subplots(1, 2, figsize=(11, 4.2))
    for values, label in ((wall, "wall"), (cpu, "thread CPU")):
        x = np.sort(np.asarray(values).ravel() * 1e6)
        bins = np.geomspace(max(x[0], 1e-3), max(x[-1], budget_us) * 1.05, 80)
        histogram.hist(x, bins=bins, histtype="step", label=label)
        tail.loglog(x, 1.0 - np.arange(x.size) / x.size, label=label)
    for axes in (histogram, tail):
        axes.axvline(budget_us, color="k", linestyle="--", label=f"budget {budget_us:g} µs")
        axes.set_xscale("log")
        axes.set_xlabel("fmi2DoStep time [µs]")
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize=8)
    histogram.set_yscale("log")
    histogram.set_ylabel("steps")
    tail.set_ylabel("fraction of steps slower than x")
    figure.suptitle(f"{report['model']}: {report['steps_timed']} steps of {report['step_s'] * 1e3:g} ms "
                    f"({report['scenario']}); " + ("fits" if report["fits"] else "does not fit"), fontsize=10)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
