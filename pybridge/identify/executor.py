"""Where evaluations run: inline, in local processes, or on a Dask cluster.

Every executor has ``map(fn, items) -> list`` (results in the order of ``items``; an item that raised
gives its exception object instead of a result) and ``close()``; it is also a context manager.
"""
from __future__ import annotations

import os
from concurrent.futures.process import BrokenProcessPool

from pybridge.workers import process_pool, raise_if_interrupted

__all__ = ["make_executor"]


def _call(fn, item):
    raise_if_interrupted()
    try:
        return fn(item)
    except Exception as error:  # one failed item must not stop the others
        return error


def _outcome(future):
    raise_if_interrupted()
    try:
        return future.result()
    except Exception as error:
        return error


class _Executor:
    workers = 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        pass


class InlineExecutor(_Executor):
    """Runs each item in the calling process, one after the other."""

    def map(self, fn, items) -> list:
        return [_call(fn, item) for item in items]


class ProcessExecutor(_Executor):
    """A pool of local processes. A worker that dies (e.g. a crashing FMU) breaks the pool: the items
    it took down are retried one at a time in a fresh pool, so only the item at fault gets the error."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = process_pool(workers)

    def _renew(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = process_pool(self.workers)

    def map(self, fn, items) -> list:
        items = list(items)
        results = [_outcome(f) for f in [self._pool.submit(fn, item) for item in items]]
        broken = [i for i, r in enumerate(results) if isinstance(r, BrokenProcessPool)]
        for i in broken:
            self._renew()
            results[i] = _outcome(self._pool.submit(fn, items[i]))
        if broken and isinstance(results[broken[-1]], BrokenProcessPool):
            self._renew()
        return results

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor(_Executor):
    """Items run on a Dask distributed cluster (scheduler address or a ``LocalCluster``)."""

    def __init__(self, address):
        try:
            from distributed import Client
        except ImportError as error:
            raise ImportError("make_executor(address=...) needs Dask distributed; install it with "
                              "`pip install dask distributed`") from error
        self._client = Client(address)
        self.workers = max(1, sum(self._client.nthreads().values()))

    def map(self, fn, items) -> list:
        return [_outcome(f) for f in self._client.map(fn, list(items), pure=False)]

    def close(self) -> None:
        self._client.close()


def make_executor(workers: int | None = None, address=None) -> _Executor:
    """An executor: Dask when ``address`` is given, else ``workers`` local processes (``None`` = all
    cores; ``1`` runs inline in this process)."""
    if address is not None:
        return DaskExecutor(address)
    if workers is None:
        workers = os.cpu_count() or 1
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    return InlineExecutor() if workers == 1 else ProcessExecutor(workers)


def _chunks(items: list, workers: int, lanes: int) -> list[list]:
    """``items`` in consecutive chunks: ``workers`` about equal ones while they hold at most ``lanes`` each,
    else chunks of ``lanes`` (the pool hands them out as workers free up)."""
    count = max(workers, -(-len(items) // lanes))
    size, extra = divmod(len(items), count)
    bounds = [k * size + min(k, extra) for k in range(count + 1)]
    return [items[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def map_batched(executor: _Executor, fn, items: list) -> list:
    """``executor.map(fn, items)``; for an ``fn`` with ``batch`` and ``lanes`` > 1 (a LaneObjective) the items go
    to the workers in chunks (``_chunks``), each evaluated by one ``fn.batch`` call. A chunk whose call
    failed as a whole (a worker that died) is evaluated again item by item."""
    if getattr(fn, "lanes", 1) < 2 or len(items) < 2:
        return executor.map(fn, items)
    chunks = _chunks(items, executor.workers, fn.lanes)
    results = []
    for chunk, outcome in zip(chunks, executor.map(fn.batch, chunks)):
        results += executor.map(fn, chunk) if isinstance(outcome, BaseException) else outcome
    return results
