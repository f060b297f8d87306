"""Setup of pybridge's worker processes: Ctrl-C is the parent's to handle.

A terminal sends SIGINT to every process of the foreground group, pool workers included; a worker
that raised KeyboardInterrupt would print its own traceback. Workers ignore SIGINT instead, and the
parent stops the pool when it is interrupted (``pybridge`` then exits 130 with one line).
"""
from __future__ import annotations

import signal


def ignore_interrupts() -> None:
    """Initializer of a worker process: ignore SIGINT (the parent process shuts the pool down)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
