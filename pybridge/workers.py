"""Setup of pybridge's worker processes: Ctrl-C is the parent's to handle.

A terminal sends SIGINT to every process of the foreground group, pool workers included; a worker
that raised KeyboardInterrupt would print its own traceback. Workers ignore SIGINT instead, and the
parent stops the pool when it is interrupted (``pybridge`` then exits 130 with one line).
"""
from __future__ import annotations

import signal
from concurrent.futures import ProcessPoolExecutor


def ignore_interrupts() -> None:
    """Initializer of a worker process: ignore SIGINT (the parent process shuts the pool down), then
    take it off the mask ``process_pool`` started the worker with (a Ctrl-C held there is discarded)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def process_pool(workers: int, initializer=ignore_interrupts, initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool whose workers are started (forked) with SIGINT blocked, so a Ctrl-C that comes while a
    worker starts cannot interrupt it before its ``initializer`` (which must call ignore_interrupts)
    has run; the parent gets that Ctrl-C when this returns."""
    pool = ProcessPoolExecutor(workers, initializer=initializer, initargs=initargs)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool.submit(int).result()       # the first task starts the workers (all of them under fork)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return pool
