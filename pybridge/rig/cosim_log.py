"""libcosim's own diagnostics: its log level, and its log captured while it loads a system.

libcosim writes its log to the process's standard output (file descriptor 1, lines
``[date] [thread] [level] message``) at the level set by ``cosim_log_set_output_level``, and keeps the
message of its last error (``cosim_last_error_message``). :func:`loading_log` captures descriptor 1 while
a system loads, at ``warning`` or the user's level if lower, and passes on the lines at or above the
user's level afterwards; a load failure then names libcosim's error and its last warnings.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import re
import sys
import tempfile

__all__ = ["LEVELS", "LoadLog", "last_error", "loading_log", "set_level"]

LEVELS = ("trace", "debug", "info", "warning", "error", "fatal")
_LINE_LEVEL = re.compile(r"^\[[^]]*\] \[[^]]*\] \[(\w+)\]")


def set_level(level: str) -> None:
    """libcosim's output level (one of :data:`LEVELS`)."""
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level

    log_output_level(CosimLogLevel[level.upper()])


def last_error() -> str:
    """libcosim's message of its last error ('' when it has none)."""
    from libcosimpy._internal import get_last_error_message

    with contextlib.suppress(Exception):
        return get_last_error_message().strip()
    return ""


class LoadLog:
    """What libcosim logged while loading: ``lines`` at warning level or above."""

    def __init__(self):
        self.lines: list[str] = []
        self.failed = False   # set by the caller when the load failed: the lines go into its message instead

    def cause(self) -> str:
        """libcosim's last error and its last warnings, for a one-line message."""
        parts = [last_error()] + [re.sub(r"^\[[^]]*\] \[[^]]*\] \[\w+\]\s*", "", line) for line in self.lines[-3:]]
        return "; ".join(p for p in parts if p) or "libcosim gave no reason"


def _flush_c_stdout() -> None:
    sys.stdout.flush()
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).fflush(None)


@contextlib.contextmanager
def loading_log(level: str = "error"):
    """Capture libcosim's log (descriptor 1) for the block; yields a :class:`LoadLog`; afterwards the lines
    at or above ``level`` go to standard output (unless ``failed`` was set) and libcosim logs at ``level``
    again."""
    log = LoadLog()
    wanted = LEVELS.index(level)
    set_level(LEVELS[min(wanted, LEVELS.index("warning"))])
    _flush_c_stdout()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 1)
        try:
            yield log
        finally:
            _flush_c_stdout()
            os.dup2(saved, 1)
            os.close(saved)
            set_level(level)
            capture.seek(0)
            text = capture.read().decode("utf-8", "replace")
            for line in text.splitlines():
                found = _LINE_LEVEL.match(line)
                rank = LEVELS.index(found[1]) if found and found[1] in LEVELS else LEVELS.index("info")
                if rank >= LEVELS.index("warning"):
                    log.lines.append(line)
                if rank >= wanted and not log.failed:
                    print(line, flush=True)
