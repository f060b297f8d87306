"""One writer per run folder: an exclusive advisory lock (``fcntl.flock``) held while a command writes it.

The lock is on ``RUN/.pybridge.lock``, which also records the holder (pid, command, start time) for
the message a second writer gets. The operating system drops the lock when its holder exits, however
it exits (kill -9 included), so a lock file left by a dead process is simply taken over: its stale
content is overwritten by the new holder. The lock is re-entrant within one process (``pybridge
demo`` runs the identification in the folder it already holds).
"""
from __future__ import annotations

import contextlib
import datetime
import fcntl
import functools
import inspect
import json
import os
from pathlib import Path

__all__ = ["LOCK_NAME", "RunFolderBusy", "holding_run_folder", "run_folder_lock"]

LOCK_NAME = ".pybridge.lock"
_HELD: dict[str, list] = {}  # resolved folder -> [descriptor, depth, owning pid]


class RunFolderBusy(ValueError):
    """Another live process holds the run folder; the message names its pid and start time."""


def _holder(fd: int) -> str:
    try:
        info = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        return f"{info['command']} (pid {info['pid']}, started {info['started']})"
    except (ValueError, KeyError, TypeError):
        return "another process (its pid is not recorded yet)"


@contextlib.contextmanager
def run_folder_lock(folder: str | Path, command: str):
    """Hold the run folder ``folder`` (created if needed) for ``command``; ``RunFolderBusy`` at once if
    another process holds it. A folder this call created is removed again if nothing was written in it."""
    folder = Path(folder)
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    key = str(folder.resolve())
    held = _HELD.get(key)
    if held is not None and held[2] == os.getpid():
        held[1] += 1
        try:
            yield
        finally:
            held[1] -= 1
        return
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise RunFolderBusy(f"{folder}: run folder in use by {holder}; wait for it to finish, or choose "
                            "another run folder") from None
    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    record = json.dumps({"pid": os.getpid(), "command": command, "started": started}).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, record + b"\n", 0)
    _HELD[key] = [fd, 1, os.getpid()]
    try:
        yield
    finally:
        del _HELD[key]
        if created and [p.name for p in folder.iterdir()] == [LOCK_NAME]:
            (folder / LOCK_NAME).unlink()
            folder.rmdir()
        os.close(fd)  # releases the lock


def holding_run_folder(argument: str, command: str):
    """Decorator: the function runs holding the run folder it gets as its argument ``argument``."""
    def decorate(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def holding(*args, **kwargs):
            with run_folder_lock(signature.bind(*args, **kwargs).arguments[argument], command):
                return function(*args, **kwargs)
        return holding
    return decorate
