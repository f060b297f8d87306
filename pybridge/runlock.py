"""One writer per run folder: an exclusive advisory lock (``fcntl.flock``) held while a command writes it.

The lock is on ``RUN/.pybridge.lock``, which also records the holder (pid, command, start time, and
the kernel's start time of that pid) for the message a second writer gets. The operating system drops
the lock when its holder exits, however it exits (kill -9 included), so a lock file left by a dead
process is simply taken over: its stale content is overwritten by the new holder. Children forked by
the holder share its lock (the same open file): pybridge's own close their copy at once
(``close_inherited_locks``, run by ``pybridge.workers``), and a lock still held after its recorded
holder has died (children of another program, or of an older version, that linger) is taken over
all the same: a new lock file replaces the old one, which the lingering processes keep to themselves.
The lock is re-entrant within one process (``pybridge demo`` runs the identification in the folder it
already holds).
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

__all__ = ["LOCK_NAME", "RunFolderBusy", "close_inherited_locks", "holding_run_folder", "run_folder_lock"]

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


def _start_ticks(pid: int) -> int | None:
    """The kernel's start time of process ``pid`` (clock ticks since boot; Linux), None if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _holder_gone(fd: int) -> bool:
    """True when the lock file names a holder that no longer runs (its pid is gone, or now belongs to a
    process started later); False when it may still run or names no holder."""
    try:
        info = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        pid = int(info["pid"])
    except (ValueError, KeyError, TypeError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    ticks = info.get("ticks")
    return ticks is not None and _start_ticks(pid) not in (None, ticks)


def _take_over(folder: Path) -> int:
    """A new, locked lock file in place of one whose holder is gone (the processes that still share the
    old one keep it to themselves); the descriptor. Serialised by a second lock, so two takers cannot
    both win."""
    guard = os.open(folder / (LOCK_NAME + ".takeover"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(guard, fcntl.LOCK_EX)
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd                   # released meanwhile (or already replaced): an ordinary lock
        except BlockingIOError:
            if not _holder_gone(fd):
                raise
            os.close(fd)
        fresh = folder / (LOCK_NAME + f".{os.getpid()}")
        fd = os.open(fresh, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.replace(fresh, folder / LOCK_NAME)
        return fd
    finally:
        os.close(guard)


def close_inherited_locks() -> None:
    """In a forked child: close the run-folder lock descriptors inherited from the parent (the parent
    keeps the lock; the child must not hold it after the parent has gone)."""
    for key, held in list(_HELD.items()):
        if held[2] != os.getpid():
            try:
                os.close(held[0])
            except OSError:
                pass
            del _HELD[key]


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
        holder, gone = _holder(fd), _holder_gone(fd)
        os.close(fd)
        fd = None
        if gone:
            try:
                fd = _take_over(folder)
            except BlockingIOError:
                pass
        if fd is None:
            raise RunFolderBusy(f"{folder}: run folder in use by {holder}; wait for it to finish, or choose "
                                "another run folder") from None
    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    record = json.dumps({"pid": os.getpid(), "command": command, "started": started,
                         "ticks": _start_ticks(os.getpid())}).encode()
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
