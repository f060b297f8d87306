"""The lane model (fmu_build.codegen.lanes, pybridge.simulate.lanes): N parameter sets in one call, each
lane equal to the scalar FMU run with its set to round-off, a diverging lane stopping alone.

Quick: a small user model with what the RTM's equations have (a table function called per lane,
if-expressions, atan/sin/exp, an input changing every step, a when-clause whose event the runner hands to
the lane's scalar instance), 6 sets at 4 lanes (a full group and a partial one) and the scalar fallback
build (1 lane). Slow: the RTM on every shipped full-vehicle manoeuvre (benchmarks/lfdm_compare.py records
the same check with its figure).
"""
from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fmpy")

from fmu_build import build_fmu  # noqa: E402
from fmu_build.codegen.cexpr import Unsupported  # noqa: E402
from fmu_build.codegen.lanes import LaneWriter, lane_source, parse  # noqa: E402
from fmu_helpers import write_package  # noqa: E402
from pybridge.simulate.fmu import FMUSession, FMUSessionError  # noqa: E402
from pybridge.simulate.lanes import cpu_flags  # noqa: E402

OSCILLATOR = """model Oscillator "a tyre-like force on a mass-spring, a stage counter switched by an event"
    parameter Real k = 400;
    parameter Real c = 4;
    input Real u;
    Real x(start = 0, fixed = true);
    Real v(start = 0, fixed = true);
    Integer stage(start = 1, fixed = true);
    output Real position;
    output Real velocity;
    output Real stageOut;
  equation
    der(x) = v;
    der(v) = lookup({-1, 0, 1}, {0.8, 1, 1.3}, x) * sin(1.3 * atan(10 * (u - x))) - k * x - c * v
             + (if stage > 1 then 0.5 else 0.0)
             + VehicleRTM.Tables.interp1({-4e-4, -1e-4, 0, 1e-4, 3e-4, 6e-4}, {0, 0.1, 0, -0.1, 0.05, 0}, x);
    when x > 0.0005 then
      stage = pre(stage) + 1;
    end when;
    position = x;
    velocity = v;
    stageOut = stage;
end Oscillator;
"""
LOOKUP = """function lookup "piecewise-linear y(x) at u, the end values held outside the grid"
    input Real x[:];
    input Real y[size(x, 1)];
    input Real u;
    output Real v;
  protected
    Integer i;
    Real uc;
  algorithm
    uc := min(max(u, x[1]), x[size(x, 1)]);
    i := 1;
    for j in 2:size(x, 1) - 1 loop
      if uc > x[j] then
        i := j;
      end if;
    end for;
    v := y[i] + (y[i + 1] - y[i]) * (uc - x[i]) / (x[i + 1] - x[i]);
end lookup;
"""
OUTPUTS = ["position", "velocity", "stageOut"]
def _libmvec() -> bool:
    """glibc's vector math with the functions the lane model calls (atan and others since glibc 2.35)."""
    import ctypes

    try:
        return hasattr(ctypes.CDLL("libmvec.so.1"), "_ZGVdN4v_atan")
    except OSError:
        return False


LIBMVEC = _libmvec()
AVX2 = "avx2" in cpu_flags()
AVX512 = "avx512f" in cpu_flags()


def test_four_lanes_use_the_evex_encoding_where_the_processor_has_avx512_vl_and_dq(monkeypatch):
    """The same 4-lane vectors with 32 registers where the CPU allows; AVX2 alone elsewhere."""
    from pybridge.simulate import lanes

    monkeypatch.setattr(lanes, "cpu_flags", lambda: {"avx2", "fma", "avx512f", "avx512vl", "avx512dq"})
    assert lanes._flags_key(4)[-len(lanes.EVEX_4):] == lanes.EVEX_4 and "-DLANES=4" in lanes._flags_key(4)
    assert "-mavx512vl" not in lanes._flags_key(8)
    monkeypatch.setattr(lanes, "cpu_flags", lambda: {"avx2", "fma", "avx512f"})
    assert lanes._flags_key(4) == lanes.FLAGS + ["-mavx2", "-mfma"]


def _oscillator(tmp_path_factory, integrator):
    root = tmp_path_factory.mktemp("lanes")
    package = write_package(root / "modelica", "LaneCheck", {"lookup": LOOKUP, "Oscillator": OSCILLATOR})
    return build_fmu("LaneCheck.Oscillator", backend="native", fmi_type="cs", out_dir=root, integrator=integrator,
                     modelica_path=[package], cache_dir=root / "cache")


@pytest.fixture(scope="module")
def oscillator(tmp_path_factory):
    return _oscillator(tmp_path_factory, "ab2")


@pytest.fixture(scope="module")
def oscillator_rk4(tmp_path_factory):
    """The RK4 build (identification's integrator): no multistep history, four stages per step."""
    return _oscillator(tmp_path_factory, "rk4")


def _sets(fmu, n, stiff=4e7):
    with FMUSession(fmu) as session:
        base = session.defaults()
    sets = []
    for k in range(n):
        p = copy.deepcopy(base)
        p.scalars["k"] = 400.0 * (1 + 0.1 * k)
        p.scalars["c"] = 4.0 * (1 - 0.05 * k)
        sets.append(p)
    sets[2].scalars["k"] = stiff      # AB2 at 1 ms is unstable there (RK4 at 4e9): this lane diverges
    return sets


def _scalar(fmu, params, times, table, every):
    with FMUSession(fmu) as session:
        session.apply(params)
        try:
            return session.run_points(times, ["u"], table, OUTPUTS, record_every=every)[0], None
        except FMUSessionError as error:
            return None, str(error)


@pytest.mark.parametrize("integrator, lanes, step, every", [("ab2", 4, 1e-3, 1), ("ab2", 1, 1e-3, 1),
                                                             ("ab2", 4, 5e-3, 1), ("ab2", 4, 1e-3, 5),
                                                             ("rk4", 4, 1e-3, 1), ("rk4", 4, 5e-3, 5),
                                                             ("ab2", 8, 1e-3, 1), ("rk4", 8, 1e-3, 1)])
def test_lanes_equal_the_scalar_fmu_lane_by_lane(request, integrator, lanes, step, every):
    """Communication step 1 ms = the internal step, and 5 ms = 5 internal steps per fmi2DoStep; outputs
    recorded at every point, or at every 5th (fmi2DoStep then starts after the input jump itself); AB2 and
    RK4 builds (identification's integrator)."""
    from pybridge.simulate.lanes import LaneSession

    oscillator = request.getfixturevalue("oscillator" if integrator == "ab2" else "oscillator_rk4")
    if lanes > 1 and not (LIBMVEC and AVX2):
        pytest.skip("4 lanes need AVX2 and glibc's libmvec (glibc 2.35 or later)")
    if lanes == 8 and not AVX512:
        pytest.skip("8 lanes need AVX-512F")
    times = np.arange(0, round(0.6 / step) + 1) * step
    table = (0.02 * np.sin(9 * times) + 0.01 * (times > 0.1)).reshape(-1, 1)   # a new input every step
    sets = _sets(oscillator, 6, 4e7 if integrator == "ab2" else 4e9)
    with LaneSession(oscillator, lanes=lanes) as session:
        assert session.lanes == lanes
        results = session.run(sets, times, ["u"], table, OUTPUTS, record_every=every)
    for k, (params, result) in enumerate(zip(sets, results)):
        rows, failure = _scalar(oscillator, params, times, table, every)
        if k == 2:
            assert failure and "fmi2DoStep" in failure and result.failed and "fmi2DoStep" in result.failed
            assert result.failed in failure, (result.failed, failure)      # the same step
            continue
        assert failure is None and result.failed is None
        assert result.rows.shape == rows.shape == ((len(times) - 1) // every + 1, 3)
        scale = np.max(np.abs(rows), axis=0)
        assert np.max(np.abs(result.rows - rows) / scale) <= 1e-12, k
        # the first step (no multistep history yet) and the event steps ran on the scalar instance, no others
        # (every 5th point recorded: a wrapper that predicts the step start after an input jump from its
        # input Jacobian runs those steps on the scalar instance too)
        assert rows[-1, 2] >= 2 and result.scalar_steps >= 2
        assert every > 1 or result.scalar_steps <= 1 + 2 * rows[-1, 2]
    positions = np.array([r.rows[-1, 1] for k, r in enumerate(results) if k != 2])
    assert len(set(positions.round(12))) == 5          # the sets differ, and so do their lanes


def test_model_functions_have_lane_versions(oscillator):
    """The user's lookup and the project's Tables.interp1 (its bisection as a count) run vectorised in the
    lane model, not lane by lane on the scalar instances (the equality test above runs them)."""
    import zipfile

    with zipfile.ZipFile(oscillator) as fmu:
        lanes = next(fmu.read(n).decode() for n in fmu.namelist() if n.endswith("_lanes.c"))
    assert "M->scalar[l]" not in lanes
    assert re.search(r"lf_f_lookup\w*\(M, act,", lanes)
    segment = re.search(r"static inline li (lf_f_VehicleRTM_Tables_segment\w*)\(.*?\n\}", lanes, re.S)
    assert segment and "l_x[l_m - 1]" in segment[0] and f"{segment[1]}(M, " in lanes     # the count, called


@pytest.mark.skipif(shutil.which("readelf") is None, reason="binutils' readelf")
def test_the_runner_calls_the_scalar_model_in_its_library_without_the_plt(oscillator, tmp_path):
    """model_discrete_update runs every step on every lane: a direct call (-fno-semantic-interposition), not
    through the PLT an exported function of a shared library gets otherwise."""
    import zipfile

    with zipfile.ZipFile(oscillator) as fmu:
        fmu.extractall(tmp_path)
    from pybridge.simulate.lanes import lane_library

    library = lane_library(tmp_path / "sources", Path(oscillator).stem, 1)
    relocations = subprocess.run(["readelf", "-rW", library._name], capture_output=True, text=True, check=True)
    assert "model_discrete_update" not in relocations.stdout


def test_elementary_calls_are_made_once_while_their_arguments_hold():
    functions = {}
    writer = LaneWriter(functions, {})
    lines = []
    for line in ["const double v1 = sin(m->r[3]);", "const double v2 = sin(m->r[3]) + atan(v1);",
                 "m->r[4] = sin(m->r[3]) * atan(v1);", "m->r[3] = v2;", "const double v3 = sin(m->r[3]);",
                 "if (v3 > 0) {", "m->r[5] = atan(v1);", "m->r[6] = cos(v3);", "}", "m->r[7] = cos(v3);"]:
        lines += writer.statement(line)
    code = "\n".join(lines)
    # sin before and after m->r[3] is assigned, atan(v1) once, cos(v3) again after its block closed
    assert code.count("lsin(") == 2 and code.count("latan(") == 1 and code.count("lcos(") == 2, code


def test_if_expression_arms_call_elementary_functions_only_for_the_lanes_that_take_them():
    """As the scalar C's ?: evaluates one arm: the low-speed damping's cos is not computed at speed."""
    writer = LaneWriter({}, {})
    code = "\n".join(writer.statement("m->r[5] = (m->r[2] < m->r[1] ? 0.5 * (1 + cos(m->r[2] / m->r[1])) : 0);")
                      + writer.statement("m->r[6] = (m->r[3] > 0 ? atan(m->r[4]) : atan(m->r[4]) + 1);"))
    guard = "if (lany(act & (M->r[2] < M->r[1]))) {"
    assert guard in code and code.index(guard) < code.index("lcos(") < code.index("M->r[5] =")
    assert code.count("latan(") == 2 and code.count("if (lany(") == 3, code     # each arm its own call


def test_a_table_read_at_an_index_the_same_on_every_lane_is_one_load():
    """A map's cell is most often the same for every vehicle: one load then, the hardware gather otherwise,
    without lgather's own test of the same (the equality test above runs both)."""
    writer = LaneWriter({}, {})
    code = "\n".join(writer.statement("const int v1 = ((int)floor(m->r[2]));")
                      + writer.statement("m->r[5] = (&m->r[10])[(((v1 + 1)) - 1)] * m->r[3];"))
    assert "(!lany(~act | ldiffers(v1)) ? (&M->r[10])[((v1[0] + 1) - 1)] : lgather_hw(&M->r[10], " in code, code


def test_lane_writer_refuses_what_it_cannot_read():
    with pytest.raises(Unsupported, match="cannot read C"):
        parse("m->r[3] @ 2")
    with pytest.raises(Unsupported, match="model_outputs_and_derivatives"):
        lane_source("void model_outputs_and_derivatives(ModelInstance *m)\n{\n    continuous_equations(m, 1);\n"
                    "    if (m->r[0] < 0) model_error(m, \"x\");\n}\n", None)


def test_fmu_without_lane_model_is_refused(oscillator, tmp_path):
    import shutil
    import zipfile

    from pybridge.simulate.lanes import LaneSession
    from pybridge.simulate.native_runner import NativeRunnerError

    stripped = tmp_path / "stripped.fmu"
    with zipfile.ZipFile(oscillator) as source, zipfile.ZipFile(stripped, "w") as target:
        for item in source.infolist():
            if not item.filename.endswith("_lanes.c"):
                target.writestr(item, source.read(item))
    with pytest.raises(NativeRunnerError, match="has no lane model"):
        LaneSession(stripped)
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_lane_library_that_does_not_load_is_refused_naming_the_fmu(oscillator, tmp_path):
    """An FMU whose lane C an older fmu_build wrote (SLEEF's function names, no longer linked): one error
    naming the FMU, not a ctypes OSError."""
    import zipfile

    from pybridge.simulate.lanes import LaneSession
    from pybridge.simulate.native_runner import NativeRunnerError

    if not (LIBMVEC and AVX2):
        pytest.skip("4 lanes need AVX2 and glibc's libmvec (glibc 2.35 or later)")
    old = tmp_path / "old.fmu"
    with zipfile.ZipFile(oscillator) as source, zipfile.ZipFile(old, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.endswith("lanes.h"):
                data = data.replace(b"#if LANES == 8\nLMATH_ALL(e, 8)", b"#if LANES == 8\nLMATH_ALL(e, 8)\n"
                                    b"lv Sleef_atand8_u35avx512f(lv);\n#define _ZGVeN8v_atan Sleef_atand8_u35avx512f")
                data = data.replace(b"#elif LANES == 4\nLMATH_ALL(d, 4)", b"#elif LANES == 4\n"
                                    b"lv Sleef_atand4_u35avx2(lv);\n#define _ZGVdN4v_atan Sleef_atand4_u35avx2\n"
                                    b"LMATH_ALL(d, 4)")
                assert b"Sleef_atand4" in data
            target.writestr(item, data)
    with pytest.raises(NativeRunnerError, match=rf"^{re.escape(str(old))}: the lane library does not load .*Sleef_atan"):
        LaneSession(old, lanes=4)
