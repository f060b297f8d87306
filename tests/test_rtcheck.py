"""pybridge rt-check: the report of the native RTM is consistent, and the allocation, system-call and
budget detectors fire on stand-in FMUs (compiled here from C) whose fmi2DoStep misbehaves on purpose."""
from __future__ import annotations

import json
import shutil
import subprocess
import zipfile

import numpy as np
import pytest

from pybridge import cli
from pybridge.cli import main

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="rt-check compiles its harness with gcc")

STAND_IN = r"""
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
typedef struct { void *logger; void *(*allocate)(size_t, size_t); void (*release)(void *); void *a, *b; } Callbacks;
static const Callbacks *callbacks;
static double x;
void *volatile kept;
void *fmi2Instantiate(const char *n, int t, const char *g, const char *u, const Callbacks *c, int v, int l)
{ callbacks = c; return c->allocate(1, 64); }
int fmi2SetupExperiment(void *c, int a, double b, double d, int e, double f) { return 0; }
int fmi2EnterInitializationMode(void *c) { return 0; }
int fmi2ExitInitializationMode(void *c) { return 0; }
int fmi2Terminate(void *c) { return 0; }
void fmi2FreeInstance(void *c) { callbacks->release(c); }
int fmi2SetReal(void *c, const unsigned *vr, size_t n, const double *v) { return 0; }
int fmi2GetReal(void *c, const unsigned *vr, size_t n, double *v) { for (size_t i = 0; i < n; i++) v[i] = x; return 0; }
int fmi2DoStep(void *c, double t, double h, int new_step)
{
    x = t + h;
#if MODE == 1
    kept = malloc(64); free(kept);
#elif MODE == 2
    kept = callbacks->allocate(1, 64); callbacks->release(kept);
#elif MODE == 3
    x += (double)syscall(SYS_getpid);
#elif MODE == 4
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 2e6);
#endif
    return MODE == 5 && t > 0.0015 ? 3 /* fmi2Error */ : 0;
}
"""
MODES = {"clean": 0, "malloc": 1, "callback": 2, "syscall": 3, "slow": 4, "error": 5}
DESCRIPTION = """<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="StandIn" guid="{{stand-in}}">
  {interface}
  <ModelVariables><ScalarVariable name="x" valueReference="0" causality="output"><Real/></ScalarVariable>
  </ModelVariables>
  <ModelStructure><Outputs><Unknown index="1"/></Outputs></ModelStructure>
</fmiModelDescription>
"""


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    """``stand_in(mode, interface="CoSimulation")``: an FMU whose fmi2DoStep is one of MODES."""
    folder = tmp_path_factory.mktemp("stand-in")
    (folder / "stand_in.c").write_text(STAND_IN)

    def build(mode: str, interface: str = "CoSimulation"):
        library = folder / f"{mode}.so"
        if not library.exists():
            subprocess.run(["gcc", "-O1", "-shared", "-fPIC", f"-DMODE={MODES[mode]}", "-o", str(library),
                            str(folder / "stand_in.c")], check=True)
        fmu = folder / f"{mode}_{interface}.fmu"
        with zipfile.ZipFile(fmu, "w") as archive:
            archive.writestr("modelDescription.xml", DESCRIPTION.format(
                interface=f'<{interface} modelIdentifier="stand_in"/>'))
            archive.write(library, "binaries/linux64/stand_in.so")
        return fmu
    return build


def run_cli(tmp_path, fmu, *flags):
    """Exit code and the JSON report of ``pybridge rt-check FMU --scenario none --duration 0.05``."""
    report = tmp_path / "rt.json"
    code = main(["rt-check", str(fmu), "--scenario", "none", "--duration", "0.05", "--json", str(report), *flags])
    return code, json.loads(report.read_text()) if report.exists() else None


def skip_without_ptrace(report: dict) -> None:
    """The system-call pass needs ptrace; some sandboxes forbid it (the report then says so, never 0 calls)."""
    if report["syscalls_in_step"]["status"].startswith("ptrace not permitted"):
        pytest.skip(f"system calls cannot be traced here: {report['syscalls_in_step']['status']}")


def test_rtm_report_is_consistent_and_its_step_neither_allocates_nor_calls_the_system(rtm_fmu):
    from pybridge.cli import SHIPPED_SET
    from pybridge.rig.rtcheck import rt_check

    check = rt_check(rtm_fmu, "step_steer", 1e-3, 1.5, runs=2, references=SHIPPED_SET / "manifest.yaml")
    report = check.report
    skip_without_ptrace(report)
    assert check.wall.shape == check.cpu.shape == check.cycle.shape == (2, 1500)
    assert report["steps_timed"] == 3000 and report["steps_per_run"] == 1500
    for times in report["step_time_us"].values():
        assert 0 < times["median"] <= times["p99"] <= times["p99_9"] <= times["max"]
        assert times["mean"] <= times["max"]
    assert report["step_time_us"]["cycle_wall"]["median"] >= report["step_time_us"]["wall"]["median"]
    assert report["budget"]["steps_over"] == int(np.count_nonzero(check.wall > 1e-3))
    assert report["budget"]["fraction_at_max"] == pytest.approx(check.wall.max() / 1e-3)
    assert report["first_step_us"]["wall"] == pytest.approx(check.wall[0, 0] * 1e6)
    assert report["instantiate_us"]["wall"] > 0 and report["initialization_us"]["wall"] > 0
    # the harness really drove the step steer: 100 km/h held by the PI driver, turning left after 1 s
    outputs = report["last_outputs"]
    assert outputs["speed"] == pytest.approx(100 / 3.6, abs=1.0)   # initialSpeed defaults to 0
    assert outputs["yawRate"] > 0.05 and outputs["ay"] > 1.0
    assert report["parameters"] == {"initialSpeed": pytest.approx(100 / 3.6)}
    assert report["allocations_in_step"]["count"] == 0
    assert report["syscalls_in_step"]["status"] == "ok" and report["syscalls_in_step"]["count"] == 0
    assert report["fits"] == (report["budget"]["steps_over"] == 0)


def test_a_clean_step_fits_and_the_harness_own_work_is_not_counted(tmp_path, stand_in):
    code, report = run_cli(tmp_path, stand_in("clean"), "--budget", "0.5", "--plot", str(tmp_path / "rt.png"))
    skip_without_ptrace(report)
    assert code == cli.EXIT_OK and report["fits"]
    assert report["steps_timed"] == 50 and report["allocations_in_step"]["count"] == 0
    assert report["syscalls_in_step"] == {**report["syscalls_in_step"], "count": 0, "status": "ok"}
    assert report["last_outputs"] == {"x": pytest.approx(0.05)}   # 50 steps of 1 ms ran
    assert (tmp_path / "rt.png").stat().st_size > 10_000


@pytest.mark.parametrize("mode, function", [("malloc", "malloc"), ("callback", "allocateMemory")])
def test_the_allocation_detector_fires_on_a_step_that_allocates(tmp_path, stand_in, mode, function):
    code, report = run_cli(tmp_path, stand_in(mode), "--budget", "0.5")
    assert code == cli.EXIT_FAILED and not report["fits"]
    allocations = report["allocations_in_step"]
    assert allocations["by_function"][function] == 50
    assert allocations["count"] == 100   # the allocation and its free, every step
    first = allocations["first_calls"][0]
    assert (first["kind"], first["bytes"], first["step"], first["caller"]) == (function, 64, 0, "fmi2DoStep")
    assert "allocation call(s) inside fmi2DoStep" in report["reasons"][0]


def test_the_syscall_detector_fires_on_a_step_that_calls_the_kernel(tmp_path, stand_in):
    code, report = run_cli(tmp_path, stand_in("syscall"), "--budget", "0.5")
    skip_without_ptrace(report)
    assert code == cli.EXIT_FAILED
    assert report["syscalls_in_step"]["by_name"] == {"getpid": 50}
    assert report["syscalls_in_step"]["first_step"] == 0
    assert report["allocations_in_step"]["count"] == 0
    assert report["reasons"] == ["50 system call(s) inside fmi2DoStep"]


def test_steps_over_the_budget_are_counted(tmp_path, stand_in):
    code, report = run_cli(tmp_path, stand_in("slow"), "--step", "0.01", "--budget", "0.001")
    assert code == cli.EXIT_FAILED
    assert report["steps_timed"] == 5 and report["budget"]["steps_over"] == 5
    assert report["step_time_us"]["wall"]["median"] >= 2000 and report["budget"]["fraction_at_max"] >= 2


@pytest.mark.parametrize("kind, expected", [
    ("text", "not an FMU (not a zip archive)"),
    ("model-exchange", "no <CoSimulation> element (a Model Exchange only FMU)"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, stand_in, capsys, kind, expected):
    fmu = tmp_path / "plain.fmu"
    if kind == "text":
        fmu.write_text("not a zip\n")
    else:
        fmu = stand_in("clean", "ModelExchange")
    assert main(["rt-check", str(fmu)]) == cli.EXIT_INPUT
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(fmu) in err[0] and expected in err[0]


def test_an_fmu_failing_in_the_harness_exits_3_naming_the_call_and_step(tmp_path, stand_in, capsys):
    fmu = stand_in("error")
    assert main(["rt-check", str(fmu), "--scenario", "none", "--duration", "0.05"]) == cli.EXIT_RUNTIME
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(fmu) in err[0] and "fmi2DoStep returned status 3 (step 2, t = 0.002 s)" in err[0]


def test_the_harness_is_compiled_once_into_its_cache_and_a_missing_compiler_is_named(tmp_path, monkeypatch, capsys,
                                                                                    stand_in):
    from pybridge.rig.rtcheck.harness import harness_executable

    monkeypatch.setenv("PYBRIDGE_RTCHECK_CACHE", str(tmp_path / "cache"))
    first = harness_executable()
    built = first.stat().st_mtime_ns
    assert harness_executable() == first and first.stat().st_mtime_ns == built
    assert [p.name for p in first.parent.iterdir()] == ["rtcheck_harness"]   # no temporary left behind
    monkeypatch.setenv("CC", "no-such-cc")
    assert main(["rt-check", str(stand_in("clean")), "--scenario", "none", "--duration", "0.01"]) == cli.EXIT_RUNTIME
    err = capsys.readouterr().err
    assert "needs a C compiler" in err and "'no-such-cc' not found" in err
