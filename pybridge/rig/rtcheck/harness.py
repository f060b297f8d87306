"""The C harness of the real-time check: compiled with the system's C compiler on first use, cached.

The executable lives in ``~/.cache/vehiclertm-rtcheck/<hash>/`` (``PYBRIDGE_RTCHECK_CACHE`` overrides
the folder), keyed by the hash of harness.c, the compiler and its flags; it is compiled to a
temporary name and renamed into place, so concurrent first uses never see half a file.
"""
from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "harness.c"
FLAGS = ("-O2", "-std=c11", "-Wall", "-rdynamic")   # -rdynamic: the FMU binds to the harness's malloc
LIBS = ("-ldl", "-lm")


def cache_dir() -> Path:
    return Path(os.environ.get("PYBRIDGE_RTCHECK_CACHE", Path.home() / ".cache" / "vehiclertm-rtcheck"))


def harness_executable() -> Path:
    """Path of the compiled harness; compiles it when the cache has no build of this source.

    RuntimeError when no C compiler is found or the compilation fails (with the compiler's message).
    """
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        raise RuntimeError(f"rt-check's harness needs Linux with glibc (ptrace, glibc's allocator); this is "
                           f"{platform.platform()}")
    compiler = shutil.which(os.environ.get("CC", "gcc"))
    if compiler is None:
        raise RuntimeError(f"rt-check needs a C compiler to build its harness ({SOURCE.name}): "
                           f"'{os.environ.get('CC', 'gcc')}' not found on PATH (install gcc, or set CC)")
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join((compiler, *FLAGS, *LIBS)).encode()).hexdigest()[:16]
    target = cache_dir() / digest / "rtcheck_harness"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".rtcheck_harness-")
    os.close(handle)
    try:
        result = subprocess.run([compiler, *FLAGS, "-o", temporary, str(SOURCE), *LIBS], capture_output=True,
                                text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{SOURCE}: the C compiler {compiler} failed: {result.stderr.strip()[:2000]}")
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return target
