"""build_fmu: a library class -> FMI 2.0 FMU file, with a backend choice and a build cache.

The build runs in a temporary directory; the finished FMU goes into the cache and then into
``out_dir`` by an atomic rename, so an error never leaves a half-written file behind. The cache key is
the hash of the Modelica sources, the backend's code and C sources and the options: a repeated build
is a file copy.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from fmu_build.errors import BuildError
from fmu_build.modelica import LIBRARY_NAME, ModelicaClass, find_class, package_location, use_modelica_path
from fmu_build.package import FMI_TYPES, zip_directory

BACKENDS = ("auto", "openmodelica", "native")
C_BACKENDS = ("native",)
DEFAULT_STEP = 1e-3
INTEGRATORS = ("imex2", "heun", "rk4", "ab2")   # the first is the default (benchmarks/rtm_accuracy.py)
CACHE_ENV = "VEHICLERTM_FMU_CACHE"
_HERE = Path(__file__).resolve().parent


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("vehicle-rtm-bridge")
    except Exception:
        return "0.1.0"


def default_cache_dir() -> Path:
    """$VEHICLERTM_FMU_CACHE, else $XDG_CACHE_HOME/vehiclertm-fmu, else ~/.cache/vehiclertm-fmu."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "vehiclertm-fmu"


def model_identifier(class_name: str) -> str:
    """FMI modelIdentifier and FMU file stem: the class name with dots as underscores (as OpenModelica names it)."""
    return class_name.replace(".", "_")


def resolve_backend(backend: str) -> str:
    """'auto' -> 'openmodelica' when omc is found (PATH or $OPENMODELICAHOME), else 'native'."""
    if backend not in BACKENDS:
        raise BuildError(f"unknown backend '{backend}'; expected one of {', '.join(BACKENDS)}")
    if backend != "auto":
        return backend
    from fmu_build.openmodelica_backend import find_omc

    return "openmodelica" if find_omc() else "native"


def _digest(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_key(cls: ModelicaClass, backend: str, fmi_type: str, step: float | None, docker_image: str | None = None,
              integrator: str | None = "rk4", native_cpu: bool = False) -> str:
    """sha256 of everything that determines the FMU: Modelica sources, backend code, C sources, options (with
    ``native_cpu``, the CPU and every target option -march=native means on this machine)."""
    from fmu_build import native_backend

    parts = {"class": cls.name, "backend": backend, "fmi_type": fmi_type, "library": native_backend.library_digest(cls.name),
             "python": _digest([_HERE / n for n in ("build.py", "package.py", "variables.py", "modelica.py",
                                                    "modelica_parse.py", "native_backend.py", "openmodelica_backend.py")]),
             "step": repr(None if step is None else float(step)), "integrator": integrator}
    if backend in C_BACKENDS:
        parts["c"] = _digest(native_backend.c_sources())
        parts["compiler"] = native_backend.compiler_version()
        parts["rumoca"] = native_backend._rumoca_version()
        parts["cpu"] = ["native", *native_backend.native_target()] if native_cpu else "portable"
    else:
        from fmu_build.openmodelica_backend import omc_version

        parts["omc"] = omc_version(docker_image)
        parts["docker"] = docker_image or ""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


@dataclass
class BuildInfo:
    """How the last build_fmu call went (for the CLI's report)."""

    path: Path
    backend: str
    cached: bool
    seconds: float
    notes: list[str] = field(default_factory=list)    # what the CLI reports besides the path


last_build: BuildInfo | None = None


def copy_atomically(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` atomically (temporary file in the target's folder, then rename)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(handle)
    try:
        shutil.copyfile(source, tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _options(chosen: str, fmi_type: str, step, integrator: str | None) -> tuple[float | None, str | None]:
    """(step, integrator) for the chosen backend, checked; BuildError naming what a backend cannot do."""
    if chosen in C_BACKENDS:
        integrator = integrator or INTEGRATORS[0]
        if integrator not in INTEGRATORS:
            raise BuildError(f"--integrator {integrator}: the native backend integrates with "
                             f"{' or '.join(INTEGRATORS)} (euler and cvode are OpenModelica's)")
        step = DEFAULT_STEP if step is None else step
        try:
            step = float(step)
        except (TypeError, ValueError):
            raise BuildError(f"--step must be a number of seconds, got {step!r}") from None
        if not (0 < step <= 1.0):
            raise BuildError(f"--step must be > 0 and <= 1 s, got {step!r}")
        return step, integrator
    from fmu_build import openmodelica_backend as om

    if step is not None:
        raise BuildError(om.STEP_REFUSED)
    if fmi_type == "me":
        if integrator is not None:
            raise BuildError(f"--integrator {integrator}: a Model Exchange FMU has no integrator (the importer "
                             "integrates it); use --fmi-type cs or me_cs")
        return None, None
    integrator = integrator or om.DEFAULT_INTEGRATOR
    if integrator not in om.INTEGRATORS:
        raise BuildError(f"--integrator {integrator}: OpenModelica's Co-Simulation FMUs integrate with "
                         f"{' or '.join(om.INTEGRATORS)} (--fmiFlags s:euler | s:cvode); heun, rk4 and ab2 are the "
                         "native backend's (--backend native)")
    return None, integrator


def _packages(cls: ModelicaClass) -> list[Path]:
    """The files OpenModelica loads for ``cls``: the project library's package.mo and the class's own
    package (its P/package.mo, or its single file P.mo)."""
    top = cls.name.split(".")[0]
    return [package_location(p) for p in dict.fromkeys([LIBRARY_NAME, top])]


def _choose_backend(backend: str, fmi_type: str, step, integrator, docker_image, native_cpu: bool):
    """The backend ``build_fmu`` uses, with its Docker image, step and integrator; refuses what does not go
    together and fails early where the native backend's compiler is missing or refuses -march=native."""
    if fmi_type not in FMI_TYPES:
        raise BuildError(f"unknown FMI type '{fmi_type}'; expected one of {', '.join(FMI_TYPES)}")
    if docker_image and backend in C_BACKENDS:
        raise BuildError(f"--docker applies to the OpenModelica backend; it cannot be used with --backend {backend}")
    if docker_image is None and backend not in C_BACKENDS:
        from fmu_build.openmodelica_backend import docker_image_from_env

        docker_image = docker_image_from_env()
    chosen = "openmodelica" if docker_image and backend == "auto" else resolve_backend(backend)
    step, integrator = _options(chosen, fmi_type, step, integrator)
    if native_cpu and chosen not in C_BACKENDS:
        raise BuildError("--native compiles the native backend's C for this machine's CPU; OpenModelica builds "
                         "its own binaries (use --backend native)")
    if chosen in C_BACKENDS:
        from fmu_build import native_backend

        native_backend.compiler()           # fail early: no gcc
        if native_cpu:
            native_backend.native_target()  # fail early: the compiler refuses -march=native
    return chosen, docker_image, step, integrator


def build_fmu(model: str, *, backend: str = "auto", fmi_type: str = "me_cs", step: float | None = None,
              out_dir: str | os.PathLike = ".", cache: bool = True, cache_dir: str | os.PathLike | None = None,
              docker_image: str | None = None, integrator: str | None = None,
              modelica_path: list[str | os.PathLike] | None = None, native_cpu: bool = False) -> Path:
    """Build an FMI 2.0 FMU of the library class ``model`` and return its path in ``out_dir``.

    - ``backend``: "native" (C generated from the Modelica, compiled by gcc; see native_backend), "openmodelica" (OMPython with a local
      omc, or OpenModelica in Docker with ``docker_image``, default $VEHICLERTM_OMC_DOCKER), or "auto":
      OpenModelica when omc is found (or a Docker image is given), else native.
    - ``fmi_type``: "cs", "me" or "me_cs" (both in one binary).
    - ``step``: internal fixed step of the native Co-Simulation integrator in seconds (default 1 ms): the
      default of the FMU parameter ``fixedStepSize``, which an importer may set before initialization.
      Refused for OpenModelica, whose Co-Simulation FMUs have no internal step (see STEP_REFUSED).
    - ``integrator``: Co-Simulation integrator. Native: "imex2" (default: two-step Adams-Bashforth with
      the stiff states, found and measured at run time, integrated by linearly implicit BDF2; ~1 model
      evaluation per step, within the accuracy bar of benchmarks/rtm_accuracy.py at 1 ms and stable for a
      braked wheel at standstill), "heun" (explicit trapezoidal rule, 2 evaluations per step), "rk4"
      (classic Runge-Kutta, 4 evaluations per step) or "ab2" (plain two-step Adams-Bashforth, 1 evaluation
      per step, half Heun's stability range): see fmu_build/native/README.md.
      OpenModelica: "euler" (default; one forward-Euler step per communication step) or "cvode".
    - ``native_cpu``: native backend only (``--native``): compile for this machine's CPU (gcc -march=native:
      FMA, AVX2, ... where it has them) instead of the compiler's portable default. The FMU then runs only on
      CPUs with the same instruction set extensions and its results differ from the portable build's at
      round-off (FMA contraction); its description and ``VendorAnnotations`` (``cpu="native"``, ``march``)
      say so, and the build cache keeps it apart from the portable build.
    - ``modelica_path``: directories searched for the class's package before $MODELICAPATH and the
      project library (``--modelica-path``).
    - ``cache``: reuse a previous build with the same sources and options (``cache_dir``, default
      :func:`default_cache_dir`).

    Raises :class:`BuildError` (one line: what, where, what to do); ``out_dir`` is then left untouched.
    """
    global last_build
    start = time.perf_counter()
    try:
        use_modelica_path(modelica_path)
        cls = find_class(model)
    except ValueError as error:
        raise BuildError(str(error)) from None
    chosen, docker_image, step, integrator = _choose_backend(backend, fmi_type, step, integrator, docker_image,
                                                             native_cpu)
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise BuildError(f"output directory {out_dir} exists and is not a directory")
    identifier = model_identifier(cls.name)
    target = out_dir / f"{identifier}.fmu"
    cache_root = Path(cache_dir) if cache_dir else default_cache_dir()

    key = build_key(cls, chosen, fmi_type, step, docker_image, integrator, native_cpu)
    cached = cache_root / "fmus" / key[:40] / f"{identifier}.fmu"
    if cache and cached.is_file():
        copy_atomically(cached, target)
        last_build = BuildInfo(target, chosen, True, time.perf_counter() - start)
        return target

    guid = "{" + str(uuid.UUID(key[:32])) + "}"
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="fmu-build-") as work:
        work = Path(work)
        if chosen in C_BACKENDS:
            from fmu_build import native_backend

            staging = work / "fmu"
            staging.mkdir()
            cpu_note = f", -march=native: {native_backend.native_target()[0]}" if native_cpu else ""
            tool = f"fmu_build {_version()} ({chosen} backend, {native_backend.compiler_version()}{cpu_note})"
            native_backend.build(cls, staging, model_identifier=identifier, guid=guid, fmi_type=fmi_type,
                                 step=step, integrator=integrator, generation_tool=tool,
                                 cache_dir=cache_root if cache else None, native_cpu=native_cpu)
            built = zip_directory(staging, work / f"{identifier}.fmu")
        else:
            from fmu_build import openmodelica_backend

            built, recovered = openmodelica_backend.build(cls, work, model_identifier=identifier, fmi_type=fmi_type,
                                                          docker_image=docker_image, integrator=integrator,
                                                          packages=_packages(cls))
            notes = [f"omc reported {len(recovered)} error(s) and still wrote the FMU; the first: {recovered[0]}"
                     ] if recovered else []
        if cache:
            try:
                copy_atomically(built, cached)
            except OSError:
                pass   # an unwritable cache only costs the next build its speed
        copy_atomically(built, target)
    last_build = BuildInfo(target, chosen, False, time.perf_counter() - start, notes)
    return target
