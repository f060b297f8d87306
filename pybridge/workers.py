"""Setup of pybridge's worker processes: Ctrl-C is the parent's to handle, and no worker outlives it.

A terminal sends SIGINT to every process of the foreground group, pool workers included; a worker
that raised KeyboardInterrupt would print its own traceback. Workers ignore SIGINT instead, and the
parent stops the pool when it is interrupted (``pybridge`` then exits 130 with one line).

A forked worker also inherits the parent's open files, the run folder's lock among them
(``pybridge.runlock``): every worker closes its copy of that descriptor first, and asks Linux to kill
it when its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``; elsewhere a thread watches the parent's
pid), so a parent killed with SIGKILL leaves neither processes nor a held lock behind.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["die_with_parent", "ignore_interrupts", "process_pool", "worker_start"]

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def ignore_interrupts() -> None:
    """Initializer of a worker process: ignore SIGINT (the parent process shuts the pool down), then
    take it off the mask ``process_pool`` started the worker with (a Ctrl-C held there is discarded)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """End this (child) process when the process ``parent`` ends: SIGKILL from the kernel on Linux, a
    watching thread elsewhere; at once if the parent is already gone."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    else:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def worker_start(parent: int, initializer=None, initargs: tuple = ()) -> None:
    """What every forked child of pybridge runs first: die with ``parent``, close the inherited run-folder
    locks, then ``initializer(*initargs)``."""
    from pybridge.runlock import close_inherited_locks

    die_with_parent(parent)
    close_inherited_locks()
    if initializer is not None:
        initializer(*initargs)


def process_pool(workers: int, initializer=ignore_interrupts, initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool whose workers are started (forked) with SIGINT blocked, so a Ctrl-C that comes while a
    worker starts cannot interrupt it before its ``initializer`` (which must call ignore_interrupts)
    has run; the parent gets that Ctrl-C when this returns. Workers run :func:`worker_start` first."""
    pool = ProcessPoolExecutor(workers, initializer=worker_start, initargs=(os.getpid(), initializer, initargs))
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool.submit(int).result()       # the first task starts the workers (all of them under fork)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return pool
