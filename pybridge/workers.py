"""Setup of pybridge's worker processes: Ctrl-C is the parent's to handle, and no worker outlives it.

A terminal sends SIGINT to every process of the foreground group, pool workers included; a worker
that raised KeyboardInterrupt would print its own traceback. Workers ignore SIGINT instead, and the
parent stops the pool when it is interrupted (``pybridge`` then exits 130 with one line).

A forked worker also inherits the parent's open files, the run folder's lock among them
(``pybridge.runlock``): every worker closes its copy of that descriptor first, and asks Linux to kill
it when its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``; elsewhere a thread watches the parent's
pid), so a parent killed with SIGKILL leaves neither processes nor a held lock behind.

In the parent, Python raises a Ctrl-C's KeyboardInterrupt wherever the main thread is, a garbage
collector's weakref callback or a ``__del__`` among them, and those swallow it ("Exception ignored
in ..."): the run would go on. ``interrupts_kept`` records every Ctrl-C, and ``raise_if_interrupted``
(called between evaluations and steps) raises it again there.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

__all__ = ["die_with_parent", "ignore_interrupts", "interrupts_kept", "process_pool", "raise_if_interrupted",
           "worker_start"]

_interrupted = False    # a Ctrl-C came while interrupts_kept was in force

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def ignore_interrupts() -> None:
    """Initializer of a worker process: ignore SIGINT (the parent process shuts the pool down), then
    take it off the mask ``process_pool`` started the worker with (a Ctrl-C held there is discarded)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _record_interrupt(signum, frame) -> None:
    global _interrupted
    _interrupted = True
    raise KeyboardInterrupt


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C came under ``interrupts_kept`` (also one that was swallowed)."""
    if _interrupted:
        raise KeyboardInterrupt


@contextmanager
def interrupts_kept() -> Iterator[None]:
    """A command's run: every Ctrl-C is recorded for ``raise_if_interrupted``, and a KeyboardInterrupt that
    a callback swallowed prints no "Exception ignored" traceback; after a Ctrl-C, worker processes started
    under it and still alive are terminated. Leaves an ignored SIGINT (a background job) as it is;
    restores the handler and hook on the way out."""
    global _interrupted
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler \
            or threading.current_thread() is not threading.main_thread():
        yield
        return
    hook = sys.unraisablehook

    def quiet_interrupts(unraisable) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            hook(unraisable)

    _interrupted = False
    children = set(multiprocessing.active_children())
    signal.signal(signal.SIGINT, _record_interrupt)
    sys.unraisablehook = quiet_interrupts
    try:
        yield
    finally:
        if _interrupted:    # a second Ctrl-C can cut a pool's shutdown short: no worker may hang the exit
            for child in set(multiprocessing.active_children()) - children:
                child.terminate()
                child.join(5.0)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = hook
        _interrupted = False


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


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT blocked in this thread (a process forked here starts with it blocked) and, in the main thread,
    a Ctrl-C that another thread of the process takes (numexpr's, BLAS's) held too: Python would otherwise
    raise it in the main thread all the same. A held Ctrl-C goes to the handler in force when the block ends."""
    main = threading.current_thread() is threading.main_thread()
    came: list = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum)) if main else None
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        if main:
            signal.signal(signal.SIGINT, previous)
            if came and callable(previous):
                previous(signal.SIGINT, None)   # records the Ctrl-C (interrupts_kept) and raises it


def process_pool(workers: int, initializer=ignore_interrupts, initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool whose workers are started (forked) with SIGINT blocked, so a Ctrl-C that comes while a
    worker starts cannot interrupt it before its ``initializer`` (which must call ignore_interrupts)
    has run. A Ctrl-C during the start is the caller's once the pool is complete: the pool is shut down
    and the Ctrl-C raised (a pool cut short would leave workers that hang the interpreter's exit).
    Workers run :func:`worker_start` first."""
    pool = ProcessPoolExecutor(workers, initializer=worker_start, initargs=(os.getpid(), initializer, initargs))
    try:
        with _interrupts_held():
            pool.submit(int).result()   # the first task starts the workers (all of them under fork)
    except BaseException:               # a Ctrl-C held during the start among them
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    return pool
