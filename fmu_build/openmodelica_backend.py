"""OpenModelica backend: buildModelFMU through OMPython, with a local omc or OpenModelica in Docker.

Local: OMPython starts the omc found on PATH (or in $OPENMODELICAHOME/bin). Docker: pass
``docker_image`` (CLI ``--docker IMAGE``, or set $VEHICLERTM_OMC_DOCKER), e.g. an image of the
``openmodelica/openmodelica`` family that has omc on its PATH; OMPython runs omc inside the container
and this module mounts the library (read-only) and the build directory at the same paths.

The library's package.mo is loaded, the class is built as an FMI 2.0 FMU of the requested type with
its source code and resources included, compiler errors are reported with file and line, and the FMU
is left in the build directory for fmu_build.build to move into place.

Works with OMPython 3.5-3.6 (OMCSessionZMQ), 4.0 (OMCSessionZMQ with OMCProcessDocker) and 4.1+
(OMCSessionLocal / OMCSessionDocker).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from fmu_build.diagnostics import omc_errors
from fmu_build.errors import BuildError
from fmu_build.modelica import LIBRARY_DIR, LIBRARY_NAME, ModelicaClass

DOCKER_ENV = "VEHICLERTM_OMC_DOCKER"
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


def omc_version(docker_image: str | None = None) -> str:
    """The omc version string (for the build cache key); the image name for Docker builds."""
    if docker_image:
        return f"docker:{docker_image}"
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


class _Session:
    """One omc session with the same small interface on every OMPython version."""

    def __init__(self, work: Path, docker_image: str | None):
        OMPython = _ompython()
        if docker_image:
            if not shutil.which("docker"):
                raise BuildError(f"--docker {docker_image}: the docker command was not found on PATH")
            extra = ["-v", f"{LIBRARY_DIR}:{LIBRARY_DIR}:ro", "-v", f"{work}:{work}"]
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
                self._omc = local_class() if local_class is not None else OMPython.OMCSessionZMQ()
            except Exception as error:
                raise BuildError(f"could not start omc through OMPython: "
                                 f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None

    def send(self, expression: str):
        """Evaluate an expression; BuildError with the compiler's first error (file:line) if it fails."""
        try:
            result = self._omc.sendExpression(expression)
        except Exception as error:   # OMPython 4 raises on error-level messages
            errors = omc_errors(str(error))
            raise BuildError(errors[0] if errors else f"omc failed on {expression.split('(')[0]}: "
                             f"{str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__}") from None
        return result

    def errors(self) -> list[str]:
        try:
            text = self._omc.sendExpression("getErrorString()")
        except Exception:
            return []
        return omc_errors(str(text).replace('\\"', '"').replace("\\n", "\n"))

    def close(self) -> None:
        try:
            self._omc.sendExpression("quit()")
        except Exception:
            pass


def _string(path: Path) -> str:
    return str(path).replace("\\", "/").replace('"', '\\"')


def build(cls: ModelicaClass, work: Path, *, model_identifier: str, fmi_type: str,
          docker_image: str | None = None) -> Path:
    """Build ``cls`` with OpenModelica in ``work``; return the path of the FMU there."""
    work = Path(work).resolve()
    session = _Session(work, docker_image)
    try:
        session.send(f'cd("{_string(work)}")')
        package = LIBRARY_DIR / LIBRARY_NAME / "package.mo"
        loaded = session.send(f'loadFile("{_string(package)}")')
        errors = session.errors()
        if loaded is False or errors:
            raise BuildError(errors[0] if errors else f"{package}: omc could not load the library")
        result = session.send(
            f'buildModelFMU({cls.name}, version="2.0", fmuType="{fmi_type}", '
            f'fileNamePrefix="{model_identifier}", includeResources=true)')
        errors = session.errors()
        fmu = Path(str(result)) if result else None
        if not fmu or not fmu.is_file():
            candidate = work / f"{model_identifier}.fmu"
            fmu = candidate if candidate.is_file() else None
        if fmu is None:
            raise BuildError(errors[0] if errors else f"{cls.path}: buildModelFMU of {cls.name} failed "
                             "(no FMU written, no error message from omc)")
    finally:
        session.close()
    target = work / f"{model_identifier}.fmu"
    if fmu.resolve() != target:
        shutil.move(str(fmu), target)
    return target
