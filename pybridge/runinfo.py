"""What a run records about where it ran: CPU, cores, Python and package versions, git commit."""
from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parent.parent
PACKAGES = ("numpy", "scipy", "pandas", "fmpy", "SALib", "exudyn", "rumoca")


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo (or what platform knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_commit() -> str:
    """The checked-out commit of the repository, or 'unknown' outside a git checkout."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_DIR, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine_info() -> dict:
    """CPU, cores, OS, Python and the versions of the packages a run depends on."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {"cpu": cpu_name(), "cores": os.cpu_count(), "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "git_commit": git_commit(), "packages": versions}
