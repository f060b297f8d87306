"""OpenModelica backend: buildModelFMU through OMPython, with a local omc or OpenModelica in Docker.

Local: OMPython starts the omc found on PATH (or in $OPENMODELICAHOME/bin). Docker: pass
``docker_image`` (CLI ``--docker IMAGE``, or set $VEHICLERTM_OMC_DOCKER), e.g. an image of the
``openmodelica/openmodelica`` family that has omc on its PATH; OMPython runs omc inside the container
and this module mounts the library (read-only) and the build directory at the same paths.

The library's package.mo (and those of the user's packages) are loaded, the class is built as an FMI
2.0 FMU of the requested type with its source code and resources included and, for Co-Simulation, the
solver named in ``--fmiFlags`` (forward Euler or CVODE). omc's errors are reported with file and line;
an FMU omc wrote despite errors it recovered from is kept (OMPython 4 raises on them otherwise). The
FMU is left in the build directory for fmu_build.build to move into place.

Works with OMPython 3.5-3.6 (OMCSessionZMQ), 4.0 (OMCSessionZMQ with OMCProcessDocker) and 4.1+
(OMCSessionLocal / OMCSessionDocker).
"""
from __future__ import annotations

import inspect
import logging
import os
import shutil
import subprocess
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from fmu_build.diagnostics import omc_errors
from fmu_build.errors import BuildError
from fmu_build.modelica import LIBRARY_DIR, LIBRARY_NAME, ModelicaClass

DOCKER_ENV = "VEHICLERTM_OMC_DOCKER"
INTEGRATORS = ("euler", "cvode")   # the Co-Simulation solvers of OpenModelica's FMUs
DEFAULT_INTEGRATOR = "euler"
STEP_REFUSED = ("--step: OpenModelica's Co-Simulation FMU has no internal fixed step to build in (forward Euler "
                "takes one step over each communication step, CVODE chooses its own steps; OpenModelica User's "
                "Guide, FMI export): call fmi2DoStep every STEP seconds, or build with --backend native")
_NO_OMC = ("OpenModelica's omc was not found (not on PATH, no $OPENMODELICAHOME/bin/omc): install OpenModelica, "
           "use --docker IMAGE for OpenModelica in Docker, or build with --backend native")


def find_omc() -> str | None:
    """Path of the omc executable, or None."""
    found = shutil.which("omc")
    if found:
        return found
    home = os.environ.get("OPENMODELICAHOME")
    if home:
        candidate = Path(home) / "bin" / ("omc.exe" if os.name == "nt" else "omc")
        if candidate.is_file():
            return str(candidate)
    return None


def docker_image_from_env() -> str | None:
    return os.environ.get(DOCKER_ENV) or None


def docker_image_digest(image: str) -> str:
    """The local image's content id (``docker image inspect``), so a re-pulled tag is a new build;
    ``unresolved`` when docker cannot tell (image not pulled yet: the next build keys by its digest)."""
    try:
        result = subprocess.run(["docker", "image", "inspect", "--format", "{{.Id}}", image],
                                capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "unresolved"
    return result.stdout.strip() if result.returncode == 0 and result.stdout.strip() else "unresolved"


def omc_version(docker_image: str | None = None) -> str:
    """The omc version string (for the build cache key); for Docker the image name and its digest."""
    if docker_image:
        return f"docker:{docker_image}@{docker_image_digest(docker_image)}"
    omc = find_omc()
    if not omc:
        raise BuildError(_NO_OMC)
    try:
        result = subprocess.run([omc, "--version"], capture_output=True, text=True, timeout=120)
        return result.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _ompython():
    try:
        import OMPython
    except ImportError:
        raise BuildError("the OpenModelica backend needs the OMPython package (pip install OMPython, or "
                         "pip install 'vehicle-rtm-bridge[openmodelica]'); or build with --backend native") from None
    return OMPython


class _OMPythonLog(logging.Handler):
    """Collects OMPython's log records during one call (OMPython 4 logs omc's messages, with file and
    line, instead of returning them) and keeps them off the console."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())

    def __enter__(self) -> _OMPythonLog:
        logger = logging.getLogger("OMPython")
        self._saved = logger.propagate
        logger.addHandler(self)
        logger.propagate = False
        return self

    def __exit__(self, *exc) -> None:
        logger = logging.getLogger("OMPython")
        logger.removeHandler(self)
        logger.propagate = self._saved


class _Session:
    """One omc session with the same small interface on every OMPython version."""

    def __init__(self, work: Path, docker_image: str | None, mounts: Sequence[Path] = (LIBRARY_DIR,)):
        OMPython = _ompython()
        if docker_image:
            if not shutil.which("docker"):
                raise BuildError(f"--docker {docker_image}: the docker command was not found on PATH")
            extra = [arg for folder in mounts for arg in ("-v", f"{folder}:{folder}:ro")] + ["-v", f"{work}:{work}"]
            try:
                if hasattr(OMPython, "OMCSessionDocker"):      # OMPython >= 4.1
                    self._omc = OMPython.OMCSessionDocker(docker=docker_image, dockerExtraArgs=extra)
                elif hasattr(OMPython, "OMCProcessDocker"):    # OMPython 4.0
                    process = OMPython.OMCProcessDocker(docker=docker_image, dockerExtraArgs=extra)
                    self._omc = OMPython.OMCSessionZMQ(omc_process=process)
                else:                                          # OMPython 3.x
                    self._omc = OMPython.OMCSessionZMQ(docker=docker_image, dockerExtraArgs=extra)
            except BuildError:
                raise
            except Exception as error:
                raise BuildError(f"could not start OpenModelica in Docker image {docker_image}: "
                                 f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None
        else:
            if not find_omc():
                raise BuildError(_NO_OMC)
            local_class = getattr(OMPython, "OMCSessionLocal", None)
            try:
                with _OMPythonLog():
                    self._omc = local_class() if local_class is not None else OMPython.OMCSessionZMQ()
            except Exception as error:
                raise BuildError(f"could not start omc through OMPython: "
                                 f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None
        try:
            major = int(metadata.version("OMPython").split(".")[0])
        except (metadata.PackageNotFoundError, ValueError):
            major = 4
        # OMPython >= 4 drains omc's messages itself after every call (getMessagesStringInternal); a
        # getErrorString() after it finds nothing and only logs "cannot be parsed". 3.x needs it.
        self._drains_messages = major >= 4
        parameters = inspect.signature(self._omc.sendExpression).parameters
        self._tolerant = "raise_on_error" in parameters

    def send(self, expression: str, *, recoverable: bool = False) -> tuple[object, list[str], bool]:
        """Evaluate an expression: (result, omc's error messages as 'file:line:col: message', whether the
        call failed). ``recoverable``: omc may report errors and still produce what was asked (the caller
        judges by the files), so OMPython is asked not to raise where it can (raise_on_error=False)."""
        kwargs = {"raise_on_error": False} if recoverable and self._tolerant else {}
        failure = None
        with _OMPythonLog() as log:
            try:
                result = self._omc.sendExpression(expression, **kwargs)
            except Exception as error:   # OMPython 4 raises on error-level messages unless told not to
                result, failure = None, str(error) or type(error).__name__
        errors = omc_errors("\n".join([*log.lines, failure or ""]))
        if not self._drains_messages:
            errors += self._error_string()
        if failure and not errors:
            errors = [f"omc failed on {expression.split('(')[0]}: {failure.strip().splitlines()[-1]}"]
        return result, errors, failure is not None

    def _error_string(self) -> list[str]:
        try:
            text = self._omc.sendExpression("getErrorString()")
        except Exception:
            return []
        return omc_errors(str(text).replace('\\"', '"').replace("\\n", "\n"))

    def close(self) -> None:
        with _OMPythonLog():
            try:
                self._omc.sendExpression("quit()")
            except Exception:
                pass


def _string(path: Path) -> str:
    return str(path).replace("\\", "/").replace('"', '\\"')


def fmi_flags(fmi_type: str, integrator: str | None) -> list[str]:
    """omc command-line options for the Co-Simulation solver of the FMU (``--fmiFlags``, written into the
    FMU's resources/<id>_flags.json): forward Euler (one step per fmi2DoStep) or CVODE."""
    if fmi_type == "me":
        return []
    flags = [f"--fmiFlags=s:{integrator or DEFAULT_INTEGRATOR}"]
    if integrator == "cvode":    # CVODE's libraries go into the FMU (OpenModelica User's Guide, FMI export)
        flags.append("--fmuRuntimeDepends=modelica")
    return flags


def build(cls: ModelicaClass, work: Path, *, model_identifier: str, fmi_type: str,
          docker_image: str | None = None, integrator: str | None = None,
          packages: Sequence[Path] = ()) -> tuple[Path, list[str]]:
    """Build ``cls`` with OpenModelica in ``work``: (path of the FMU there, errors omc recovered from).

    ``packages``: the files to load with ``loadFile`` (default: the VehicleRTM library's package.mo): a
    directory package's ``P/package.mo`` (omc loads its folder's files with it) or a single-file package ``P.mo``. Whether the build
    worked is judged by the FMU file: omc reports some recoverable problems as errors and still writes it.
    """
    work = Path(work).resolve()
    packages = list(packages) or [LIBRARY_DIR / LIBRARY_NAME / "package.mo"]
    folders = {p.parent.parent if p.name == "package.mo" else p.parent for p in packages}   # P/package.mo or P.mo
    session = _Session(work, docker_image, sorted(folders))
    target = work / f"{model_identifier}.fmu"
    try:
        _, errors, failed = session.send(f'cd("{_string(work)}")')
        if failed:
            raise BuildError(errors[0])
        for package in packages:
            loaded, errors, failed = session.send(f'loadFile("{_string(package)}")')
            if loaded is False or failed or errors:
                raise BuildError(errors[0] if errors else f"{package}: omc could not load the package")
        for flag in fmi_flags(fmi_type, integrator):
            accepted, errors, failed = session.send(f'setCommandLineOptions("{flag}")')
            if accepted is False or failed:
                raise BuildError(errors[0] if errors else f"omc refused the option {flag}: "
                                 "it needs a newer OpenModelica (1.19 or later)")
        result, errors, _ = session.send(
            f'buildModelFMU({cls.name}, version="2.0", fmuType="{fmi_type}", '
            f'fileNamePrefix="{model_identifier}", includeResources=true)', recoverable=True)
    finally:
        session.close()
    written = Path(str(result)) if isinstance(result, str) and result else target
    if not written.is_file():
        written = target
    if not written.is_file():
        raise BuildError(errors[0] if errors else f"{cls.path}: buildModelFMU of {cls.name} failed "
                         "(no FMU written, no error message from omc)")
    if written.resolve() != target:
        shutil.move(str(written), target)
    return target, errors
