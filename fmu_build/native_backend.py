"""Native backend: a library class -> FMI 2.0 FMU compiled by gcc from C, no Python at run time.

The model's C file is generated from rumoca's flattening of the Modelica (:mod:`fmu_build.codegen`)
and implements the contract of ``native/runtime/model.h``; ``native/runtime/fmi2_wrapper.c``
implements FMI 2.0 (Model Exchange and Co-Simulation) around it. The build also generates

- ``model_variables.h``: value references, sizes and start values from rumoca's flattening
  (:func:`fmu_build.variables.render_header`), so the names cannot drift from the Modelica model;
- ``fmu_info.h``: GUID, internal step, causality per value reference, the discrete variables and the
  names used in error messages.

The variables (rumoca's flattening and its evaluated parameter values, ~12 s for the RTM) are cached
on disk, keyed by the library sources, the rumoca version and this code.
"""
from __future__ import annotations

import functools
import hashlib
import json
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from fmu_build.errors import BuildError
from fmu_build.modelica import LIBRARY_DIR, LIBRARY_NAME, ModelicaClass, load_model, package_files, package_root
from fmu_build.package import FmuVariable, model_description
from fmu_build.variables import ModelVariable, ModelVariables, _tag, model_variables, render_header

NATIVE_DIR = Path(__file__).resolve().parent / "native"
RUNTIME_DIR = NATIVE_DIR / "runtime"

# The wrapper's own parameter: the internal step of the Co-Simulation integrator (not a Modelica variable).
STEP_VARIABLE = "fixedStepSize"


def with_step_parameter(model: NativeModel, step: float) -> NativeModel:
    """A copy of ``model`` with the wrapper's step-size parameter appended as the last Real variable."""
    if any(v.base == STEP_VARIABLE for v in model.variables.variables):
        raise BuildError(f"{model.name} has a variable called {STEP_VARIABLE}, the name of the native FMU's "
                         "integrator step parameter; rename it in the Modelica model")
    next_vr = 1 + max((v.value_reference for v in model.variables.variables if v.type == "Real"), default=-1)
    step_variable = ModelVariable(
        STEP_VARIABLE, STEP_VARIABLE, (), "parameter", "Real", "s",
        "Internal fixed step of the Co-Simulation integrator (set before initialization; not used by "
        "Model Exchange)", float(step), value_reference=next_vr)
    variables = replace(model.variables, variables=[*model.variables.variables, step_variable],
                        dims={**model.variables.dims, STEP_VARIABLE: ()})
    return replace(model, variables=variables)


# Kind codes of fmu_info.h (KIND_REAL/INTEGER/BOOLEAN): what the wrapper lets the importer set.
KIND_CODES = {None: 0, "parameter": 1, "calculatedParameter": 2, "input": 3, "output": 4,
              "state": 5, "derivative": 6, "local": 7}
# The generated C is one long derivative function of shared values: -O3, and libm calls without
# errno so gcc may drop or share them; both portable (no target-specific instructions). Measured on
# the RTM: 10.6 -> 8.9 us per 1 ms step against -O2 (benchmarks/README.md, rtm_speed.py).
CFLAGS = ["-O3", "-fno-math-errno", "-fPIC", "-shared", "-std=gnu11", "-Wall", "-Wno-unused-function",
          "-Wno-unused-variable", "-Wno-unused-but-set-variable"]
_INFO_VERSION = 2   # bump when the cached NativeModel layout changes
# --native (build_fmu(native_cpu=True)): code for the build machine's CPU only (gcc enables its instruction
# set extensions, FMA and AVX2 on these machines). Not portable to other CPUs, and FMA contraction changes
# results at round-off against the portable build (the compiler's default target).
NATIVE_CPU_FLAGS = ["-march=native"]


def runtime_sources() -> list[Path]:
    files = [p for p in RUNTIME_DIR.glob("*") if p.suffix in (".c", ".h")]
    files += list((RUNTIME_DIR / "fmi2").glob("*.h"))
    return sorted(files)


CODEGEN_DIR = Path(__file__).resolve().parent / "codegen"


def c_sources() -> list[Path]:
    """Every file a native build compiles or includes, or generates its C with (build hash)."""
    return runtime_sources() + sorted(CODEGEN_DIR.glob("*.py"))


# ---- the model's variables (rumoca), cached ---------------------------------------------------

@dataclass
class NativeModel:
    """What the native build needs to know about a class, from rumoca's flattening."""

    name: str
    description: str
    variables: ModelVariables
    top_outputs: list[str] = field(default_factory=list)      # flattened top-level outputs (bases)
    discrete_reals: list[str] = field(default_factory=list)   # bases of discrete-time Reals


def library_digest(class_name: str = LIBRARY_NAME) -> str:
    """sha256 of every .mo file and package.order of the library and of the package of ``class_name`` (its one
    file if it is a single-file package: a change anywhere in it rebuilds)."""
    digest = hashlib.sha256()
    package = class_name.split(".")[0]
    files = [(LIBRARY_DIR, p) for p in sorted((LIBRARY_DIR / LIBRARY_NAME).rglob("*"))
             if p.is_file() and (p.suffix == ".mo" or p.name == "package.order")]
    if package != LIBRARY_NAME:   # a single-file package (P.mo) or every file of a folder package
        files += [(package_root(package), p) for p in package_files(package)]
    for root, path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _rumoca_version() -> str:
    try:
        import rumoca

        return str(rumoca.version())
    except Exception:  # pragma: no cover - rumoca is a dependency
        return "unknown"


def _analyse(class_name: str) -> NativeModel:
    """Variables (fmu_build.variables) plus what the wrapper needs from the flat model."""
    variables = model_variables(class_name)
    flat_model = load_model(class_name).to_dict("flat")
    flat = flat_model["variables"]
    known = {v.base for v in variables.variables}
    top_outputs = [n for n, v in flat.items() if _tag(v["causality"]) == "Output" and "." not in n]
    discrete_reals = [n for n, v in flat.items()
                      if _tag(v["variability"]) == "Discrete" and not v["is_discrete_type"] and n in known]
    return NativeModel(class_name, flat_model.get("model_description") or "", variables, top_outputs,
                       discrete_reals)


def _encode(model: NativeModel) -> dict:
    return {"version": _INFO_VERSION, "name": model.name, "description": model.description,
            "variables": [asdict(v) for v in model.variables.variables],
            "dims": {k: list(v) for k, v in model.variables.dims.items()},
            "top_outputs": model.top_outputs, "discrete_reals": model.discrete_reals}


def _decode(data: dict) -> NativeModel:
    variables = ModelVariables(data["name"])
    for entry in data["variables"]:
        entry = dict(entry)
        entry["index"] = tuple(entry["index"])
        variables.variables.append(ModelVariable(**entry))
    variables.dims = {k: tuple(v) for k, v in data["dims"].items()}
    return NativeModel(data["name"], data["description"], variables, data["top_outputs"], data["discrete_reals"])


def _code_digest() -> str:
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in ("variables.py", "native_backend.py", "modelica.py", "modelica_parse.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


def native_model(class_name: str, cache_dir: Path | None = None) -> NativeModel:
    """The :class:`NativeModel` of a class; from the disk cache when the library and code are unchanged."""
    key = hashlib.sha256(json.dumps([class_name, library_digest(class_name), _rumoca_version(), _code_digest(),
                                     _INFO_VERSION]).encode()).hexdigest()[:32]
    path = Path(cache_dir) / "variables" / f"{class_name}-{key}.json" if cache_dir else None
    if path and path.is_file():
        try:
            return _decode(json.loads(path.read_text()))
        except (ValueError, KeyError, TypeError):
            pass   # a damaged cache entry is rebuilt
    model = _analyse(class_name)
    if path:
        import os
        import tempfile

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            with os.fdopen(handle, "w") as stream:
                stream.write(json.dumps(_encode(model)))
            os.replace(tmp, path)
        except OSError:
            pass   # an unwritable cache only costs the next build its speed
    return model


# ---- generated header ---------------------------------------------------------------------------

def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _c_array(ctype: str, name: str, values: list, size: str | None = None, per_line: int = 16) -> list[str]:
    values = list(values) or [0]
    body = []
    for k in range(0, len(values), per_line):
        body.append("    " + ", ".join(str(v) for v in values[k:k + per_line]) + ",")
    return [f"static const {ctype} {name}[{size or ''}] = {{"] + body + ["};"]


# The Co-Simulation integrators of the wrapper: --integrator name -> (FMU_INTEGRATOR code, as the model
# description says it, vendor-annotation name). The codes are fmi2_wrapper.c's FMU_INTEGRATOR_*.
INTEGRATOR_METHODS = {
    "rk4": (0, "classic Runge-Kutta 4", "RK4"),
    "heun": (1, "explicit trapezoidal rule (Heun)", "Heun"),
    "ab2": (2, "two-step Adams-Bashforth (AB2)", "AB2"),
    "imex2": (3, "AB2 with linearly implicit BDF2 for the stiff states (IMEX2)", "IMEX2"),
}


def render_info_header(model: NativeModel, *, guid: str, step: float, fmi_type: str, integrator: str = "imex2") -> str:
    """fmu_info.h: what the wrapper needs beyond model_variables.h (see fmi2_wrapper.c)."""
    variables = model.variables.variables
    by_type = {t: [v for v in variables if v.type == t] for t in ("Real", "Integer", "Boolean")}
    lines = [f"/* Generated by fmu_build (native backend) for {model.name}. Do not edit. */",
             "#ifndef FMU_INFO_H", "#define FMU_INFO_H", "",
             f"#define FMU_GUID {_c_string(guid)}",
             f"#define FMU_MODEL_NAME {_c_string(model.name)}",
             f"#define FMU_FIXED_STEP {float(step)!r}",
             f"#define FMU_INTEGRATOR {INTEGRATOR_METHODS[integrator][0]}",
             f"#define FMU_HAS_ME {int(fmi_type in ('me', 'me_cs'))}",
             f"#define FMU_HAS_CS {int(fmi_type in ('cs', 'me_cs'))}", ""]
    lines += [f"#define KIND_{k.upper() if k else 'HIDDEN'} {code}" for k, code in (
        ("hidden", 0), ("parameter", 1), ("calculated", 2), ("input", 3), ("output", 4), ("state", 5),
        ("derivative", 6), ("local", 7))]
    lines.append("")
    for type_name, suffix, count in (("Real", "REAL", "N_REALS"), ("Integer", "INTEGER", "N_INTEGERS"),
                                     ("Boolean", "BOOLEAN", "N_BOOLEANS")):
        entries = by_type[type_name]
        lines += _c_array("unsigned char", f"KIND_{suffix}", [KIND_CODES[v.kind] for v in entries] or [0], count, 40)
        lines += _c_array("char *const", f"NAME_{suffix}", [_c_string(v.name) for v in entries] or ['"?"'], count, 4)
        lines.append("")
    inputs = [v.value_reference for v in by_type["Real"] if v.kind == "input"]
    lines.append(f"#define N_INPUT_REAL {len(inputs)}")
    lines += _c_array("unsigned int", "INPUT_REAL", inputs, "", 16)
    discrete = [v.value_reference for v in variables if v.type == "Real" and v.base in set(model.discrete_reals)]
    lines.append(f"#define N_DISCRETE_REAL {len(discrete)}")
    lines += _c_array("unsigned int", "DISCRETE_REAL", discrete, "", 16)
    lines += ["", "#endif", ""]
    return "\n".join(lines)


# ---- FMU variables ------------------------------------------------------------------------------

def fmu_variables(model: NativeModel, exposed_locals: set[str]) -> list[FmuVariable]:
    """The ScalarVariables of the model description (hidden locals left out)."""
    top_outputs = set(model.top_outputs)
    discrete = set(model.discrete_reals)
    result = []
    for var in model.variables.variables:
        kind = var.kind
        continuous = "continuous" if var.type == "Real" and var.base not in discrete else "discrete"
        if kind == "parameter":
            start = var.start if var.start is not None else 0.0
            if var.type == "Boolean":
                start = bool(start)
            result.append(FmuVariable(var.name, var.value_reference, var.type, "parameter", "fixed", "exact",
                                      start, var.unit, var.description))
        elif kind == "calculatedParameter":
            result.append(FmuVariable(var.name, var.value_reference, var.type, "calculatedParameter", "fixed",
                                      "calculated", None, var.unit, var.description))
        elif kind == "input":
            start = var.start if var.start is not None else 0.0
            if var.type == "Boolean":
                start = bool(start)
            result.append(FmuVariable(var.name, var.value_reference, var.type, "input", continuous, None,
                                      start, var.unit, var.description))
        elif kind == "output":
            result.append(FmuVariable(var.name, var.value_reference, var.type, "output", continuous,
                                      "calculated", None, var.unit, var.description))
        elif kind == "state":
            causality = "output" if var.base in top_outputs else "local"
            result.append(FmuVariable(var.name, var.value_reference, var.type, causality, "continuous",
                                      "calculated", None, var.unit, var.description, is_state=True))
        elif kind == "derivative":
            result.append(FmuVariable(var.name, var.value_reference, var.type, "local", "continuous",
                                      "calculated", None, var.unit, var.description, var.derivative_of))
        elif kind == "local" and (var.name in exposed_locals or var.base in exposed_locals):
            result.append(FmuVariable(var.name, var.value_reference, var.type, "local", continuous,
                                      "calculated", None, var.unit, var.description))
    return result


# ---- compiling ---------------------------------------------------------------------------------

def compiler() -> str:
    """Path of gcc (or $CC), or BuildError saying how to get one."""
    import os

    name = os.environ.get("CC", "gcc")
    path = shutil.which(name)
    if not path:
        raise BuildError(f"C compiler '{name}' not found on PATH: the native backend needs gcc "
                         "(e.g. apt-get install gcc) or set CC to another C compiler")
    return path


def native_target() -> tuple[str, str]:
    """(the CPU that -march=native means on this machine, e.g. "znver3"; sha256 of every target option it
    implies): what a --native build is specific to (build cache key, model description).

    Read from the compiler's own expansion of -march=native (gcc's cc1 line, clang's -target-cpu and
    -target-feature); BuildError if the compiler refuses -march=native.
    """
    return _native_target(compiler())


@functools.lru_cache(maxsize=None)
def _native_target(compiler_path: str) -> tuple[str, str]:
    command = [compiler_path, *NATIVE_CPU_FLAGS, "-E", "-v", "-x", "c", "-"]
    try:
        out = subprocess.run(command, input="", capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        raise BuildError(f"--native: could not run {Path(command[0]).name} -march=native ({error})") from None
    if out.returncode != 0:
        first = next((line for line in out.stderr.splitlines() if line.strip()), "no message")
        raise BuildError(f"--native: {Path(command[0]).name} does not accept -march=native on this machine: {first}")
    tokens = " ".join(line for line in out.stderr.splitlines() if "-march=" in line or "-target-cpu" in line).split()
    options = [t for k, t in enumerate(tokens)
               if t.startswith(("-m", "--param")) or (k and tokens[k - 1] in ("-target-cpu", "-target-feature"))]
    cpu = next((t.split("=", 1)[1] for t in options if t.startswith("-march=")), None)
    cpu = cpu or next((tokens[k + 1] for k, t in enumerate(tokens[:-1]) if t == "-target-cpu"), None)
    if cpu is None:   # a compiler whose expansion is not readable: the CPU's own description instead
        cpu = platform.processor() or platform.machine() or "unknown"
        try:
            options = [line for line in Path("/proc/cpuinfo").read_text().splitlines()
                       if line.startswith(("model name", "flags"))][:2]
        except OSError:
            options = [cpu]
    return cpu, hashlib.sha256("\n".join(options).encode()).hexdigest()


def compiler_version() -> str:
    try:
        out = subprocess.run([compiler(), "-dumpfullversion", "-dumpversion"], capture_output=True, text=True,
                             timeout=60)
        return f"{Path(compiler()).name} {out.stdout.strip()}"
    except BuildError:
        raise
    except Exception:
        return Path(compiler()).name


def platform_folder() -> tuple[str, str]:
    """The FMI 2.0 binaries/ subfolder and shared-library suffix of this machine."""
    bits = "64" if sys.maxsize > 2 ** 32 else "32"
    system = platform.system()
    if system == "Linux":
        return f"linux{bits}", ".so"
    if system == "Darwin":
        return f"darwin{bits}", ".dylib"
    if system == "Windows":
        return f"win{bits}", ".dll"
    raise BuildError(f"unsupported platform {system} for native FMUs (Linux, macOS, Windows)")


_GCC_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.*)$", re.M)
_GCC_EXPANSION = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? note: in expansion of macro", re.M)


def compile_library(sources: list[Path], include_dirs: list[Path], output: Path, *,
                    original: dict[str, str] | None = None, native_cpu: bool = False,
                    libraries: tuple[str, ...] = ()) -> None:
    """gcc CFLAGS ... -lm (``native_cpu``: also NATIVE_CPU_FLAGS; ``libraries``: more -l after it); BuildError
    with the first compiler error (file:line) on failure.

    Only the fmi2* functions and MODEL_LOCALS are exported (linker version script), so two FMUs in one
    process cannot bind each other's model functions.
    """
    script = output.parent / f"{output.stem}.map"
    script.write_text("{\n  global: fmi2*; MODEL_LOCALS;\n  local: *;\n};\n")
    command = [compiler(), *CFLAGS, *(NATIVE_CPU_FLAGS if native_cpu else []), *(f"-I{d}" for d in include_dirs), "-o", str(output),
               *map(str, sources), "-lm", *(f"-l{name}" for name in libraries)]
    if platform.system() == "Linux":
        command.append(f"-Wl,--version-script={script}")
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=900)
    finally:
        script.unlink(missing_ok=True)
    if result.returncode != 0:
        message = result.stderr
        for staged, source in (original or {}).items():
            message = message.replace(staged, source)
        match = _GCC_ERROR.search(message)
        if match:
            from fmu_build.diagnostics import _relative

            where = f"{_relative(match['file'])}:{match['line']}" + (f":{match['col']}" if match["col"] else "")
            # an error inside a macro (R(stem) of model.h): point at the code that used the macro
            following = _GCC_ERROR.search(message, match.end())
            notes = list(_GCC_EXPANSION.finditer(message, match.end(), following.start() if following else len(message)))
            if notes:
                note = notes[-1]
                where = f"{_relative(note['file'])}:{note['line']}" + (f":{note['col']}" if note["col"] else "")
            raise BuildError(f"{where}: C compile error: {match['msg']}")
        first = next((line for line in message.splitlines() if line.strip()), "no message")
        raise BuildError(f"C compilation failed ({Path(command[0]).name} exit code {result.returncode}): {first}")


# ---- the build ----------------------------------------------------------------------------------

def _write_lane_model(code, target: Path) -> None:
    """The lane model's C beside the sources (not compiled into the FMU: pybridge.simulate.lanes builds it
    with glibc's libmvec); a model whose C the lane writer cannot read gets none."""
    from fmu_build.codegen.cexpr import Unsupported
    from fmu_build.codegen.lanes import lane_source

    try:
        target.write_text(lane_source(code.source, code.variables))
    except Unsupported:
        pass


def build(cls: ModelicaClass, staging: Path, *, model_identifier: str, guid: str, fmi_type: str, step: float,
          generation_tool: str, cache_dir: Path | None = None, integrator: str = "imex2",
          native_cpu: bool = False) -> None:
    """Write the unpacked FMU of ``cls`` into the empty directory ``staging`` (``native_cpu``: compiled for this
    machine's CPU, NATIVE_CPU_FLAGS, which its description and vendor annotation say)."""
    compiler()
    try:
        model = native_model(cls.name, cache_dir)
        from fmu_build.codegen import generate_model

        code = generate_model(cls.name, model.variables)
        model = replace(model, variables=code.variables)   # every binding is applied by the generated code
        model = with_step_parameter(model, step)
    except BuildError:
        raise
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:   # rumoca's CompileError / SimulationError, and its Rust panics (pyo3's
        from fmu_build.diagnostics import rumoca_error    # PanicException is no Exception)

        raise rumoca_error(error, cls) from None
    sources_dir = staging / "sources"
    sources_dir.mkdir(parents=True)
    original = {}
    staged = []
    for path in runtime_sources():
        target = sources_dir / path.name
        shutil.copyfile(path, target)
        original[str(target)] = str(path)
        if path.suffix == ".c":
            staged.append(target)
    model_file = sources_dir / f"{model_identifier}.c"
    model_file.write_text(code.source)
    staged.append(model_file)
    _write_lane_model(code, sources_dir / f"{model_identifier}_lanes.c")
    (sources_dir / "model_variables.h").write_text(render_header(model.variables))
    (sources_dir / "fmu_info.h").write_text(render_info_header(model, guid=guid, step=step, fmi_type=fmi_type,
                                                                       integrator=integrator))

    folder, suffix = platform_folder()
    binary_dir = staging / "binaries" / folder
    binary_dir.mkdir(parents=True)
    library = binary_dir / f"{model_identifier}{suffix}"
    compile_library(staged, [sources_dir], library, original=original, native_cpu=native_cpu)

    variables = fmu_variables(model, set(code.locals))
    experiment = cls.experiment
    method = INTEGRATOR_METHODS[integrator][1]
    description = (f"{model.description} (native FMU, C generated from the Modelica; Co-Simulation: {method} at a fixed "
                   f"internal step of {step:g} s, discrete changes located inside the step; Model Exchange: no event "
                   f"indicators, when-clauses evaluated at completed integrator steps)")
    cpu_annotation = {"cpu": "portable"}
    if native_cpu:
        cpu_annotation = {"cpu": "native", "march": native_target()[0]}
        description += (f" Compiled for the build machine's CPU (gcc -march=native = {cpu_annotation['march']}): "
                        "it runs only on CPUs with the same instruction set extensions, and its results differ from "
                        "the portable build's at round-off (FMA contraction).")
    source_files = sorted(p.relative_to(sources_dir).as_posix() for p in staged)
    xml = model_description(
        model_name=cls.name, model_identifier=model_identifier, guid=guid, fmi_type=fmi_type,
        variables=variables, description=description, generation_tool=generation_tool,
        default_experiment=experiment, source_files=source_files,
        vendor_annotations={"backend": "native", "fixedStepSize": repr(float(step)),
                            "integrator": INTEGRATOR_METHODS[integrator][2],
                            "eventIndicators": "0", "coSimulationEvents": "located", **cpu_annotation})
    (staging / "modelDescription.xml").write_bytes(xml)
