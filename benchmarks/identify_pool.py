"""`pybridge identify`'s evaluation rate against a plain process pool over the same problem and points.

The problem is the demo's identification of the shipped van: native RTM CS FMU (RK4, the identification
step), the MBM data set `scenarios/mbm/lcv35` converted, the uncertain parameters narrowed by the demo's
Morris sensitivity (standard preset), the standard objective. Each round runs, in alternating order:

- ``identify``: NOMAD (the standard preset's engine and settings) through a fresh 2-worker executor with
  its run record, ``--evaluations`` evaluations;
- ``pool``: a fresh ``concurrent.futures.ProcessPoolExecutor(2)`` mapping the same evaluation over the
  very points that round's NOMAD run evaluated (read back from its record).

Both clocks start before the pool is made and stop after its last answer. Reported per side: evaluations/s
(wall), the main process's thread CPU, the workers' CPU (thread CPU of each evaluation), the share of
the workers' time spent evaluating, and for ``identify`` where the rest went: NOMAD's turns between
blocks (wall outside the evaluation calls, and NOMAD's own CPU), the blocks' dispatch and return, the
worker that finished its part of a block first waiting for the other (imbalance), writing the record.
The fitness of every point is compared between the sides. ``--blocks`` runs NOMAD variants (block
sizes, NOMAD parameter lines) in the same rounds. Run by hand (about 10 minutes on 2 cores):

    nice -n 5 .venv/bin/python benchmarks/identify_pool.py [--evaluations 120] [--rounds 3] [--blocks default,4]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from machine import write_record

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


class Timed:
    """The evaluation, each call's start, end (monotonic, system-wide) and thread CPU appended to a file
    per worker process."""

    def __init__(self, evaluate, folder: Path):
        self.evaluate, self.folder = evaluate, folder

    def __call__(self, values):
        start, cpu = time.monotonic(), time.thread_time()
        try:
            return self.evaluate(values)
        finally:
            with open(self.folder / f"{os.getpid()}.txt", "a") as file:
                file.write(f"{start!r} {time.monotonic()!r} {time.thread_time() - cpu!r}\n")


def _worker_times(folder: Path) -> list[tuple[float, float, float]]:
    rows = []
    for path in folder.glob("*.txt"):
        rows += [tuple(map(float, line.split())) for line in path.read_text().splitlines()]
        path.unlink()
    return rows


def _problem(out: Path):
    """The demo's identification problem (FMU, converted set narrowed by the sensitivity step)."""
    from fmu_build import build_fmu
    from pybridge.config import load_preset
    from pybridge.convert import convert_mbm
    from pybridge.identify.executor import make_executor
    from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR, VehicleProblem
    from pybridge.identify.sensitivity import sensitivity_analysis

    reference = REPO / "scenarios" / "mbm" / "lcv35"
    settings = load_preset("standard")
    fmu = build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native", fmi_type="cs",
                    integrator=IDENTIFICATION_INTEGRATOR, out_dir=out)
    params = convert_mbm(reference / "mbm", fmu=fmu)
    problem = VehicleProblem(params, reference, fmu)
    problem.choose_step()
    s = settings["sensitivity"]
    with make_executor(workers=2) as executor:
        result = sensitivity_analysis(problem.index_errors, problem.bounds, method=s["method"], n=s["samples"],
                                      seed=s["seed"], map_function=executor.map)
    tunable, ranges = result.propose(threshold=s["threshold"])
    params.uncertain = {name: (params.uncertain[name][0], *ranges[name]) for name in tunable}
    return VehicleProblem(params, reference, fmu, internal_step=problem.internal_step), settings


def _profile(rows, start: float, wall: float, workers: int, main_cpu: float, extra: dict) -> dict:
    busy = sum(end - begin for begin, end, _ in rows)
    return {"evaluations": len(rows), "wall_s": round(wall, 3), "evaluations_per_s": round(len(rows) / wall, 3),
            "main_thread_cpu_s": round(main_cpu, 3),
            "worker_cpu_per_evaluation_ms": round(1e3 * sum(c for *_, c in rows) / len(rows), 2),
            "workers_busy_fraction": round(busy / (workers * wall), 4),
            "first_evaluation_starts_s": round(min(b for b, *_ in rows) - start, 3), **extra}


def timed_map(map_function, calls: list):
    """``map_function`` noting (start, end) of each call in ``calls``."""
    def wrapper(fn, items):
        start = time.monotonic()
        try:
            return map_function(fn, items)
        finally:
            calls.append((start, time.monotonic()))
    return wrapper


def _block_profile(calls: list, rows: list) -> dict:
    """Worker-seconds lost in the executor calls (blocks): before the first evaluation of a block starts
    (dispatch), after its last ends (return), and by the worker that finished first waiting for the last
    (imbalance: the block's end minus each worker's last end, summed)."""
    dispatch = back = imbalance = 0.0
    for start, end in calls:
        inside = [r for r in rows if start <= r[0] <= end]
        if not inside:
            continue
        dispatch += min(r[0] for r in inside) - start
        last = max(r[1] for r in inside)
        back += end - last
        ends = sorted((r[1] for r in inside), reverse=True)[:2]
        imbalance += last - ends[-1] if len(inside) > 1 else end - start
    return {"dispatch_s": round(dispatch, 3), "return_s": round(back, 3), "imbalance_s": round(imbalance, 3)}


def _identify_round(problem, settings, evaluations: int, timing: Path, folder: Path, block) -> tuple[dict, list]:
    import pybridge.identify.nomad as nomad
    from pybridge.identify.executor import make_executor
    from pybridge.identify.record import RunRecord
    from pybridge.identify.vehicle import SearchOptions

    size, *lines = (block or "default").split("+")
    extra = {} if size == "default" else {"block_size": int(size)}
    options = SearchOptions(**{**settings["pattern_search"], "max_evaluations": evaluations,
                               "extra": {**extra, "nomad_options": lines} if lines else extra})
    spent, calls = {"record_s": 0.0, "record_sync_s": 0.0, "blackbox_s": 0.0}, []
    append, sync, blackbox = RunRecord.append, RunRecord.sync, nomad._Blackbox.__call__

    def timed(key, fn):
        def wrapper(*args, **kwargs):
            t = time.monotonic()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += time.monotonic() - t
        return wrapper

    child = nomad._nomad_process

    class Connection:   # NOMAD's process writes its own CPU time to a file before its last message
        def __init__(self, conn):
            self.conn, self.recv, self.close = conn, conn.recv, conn.close

        def send(self, message):
            if message[0] != "block":
                (folder / "nomad_cpu").write_text(repr(time.process_time()))
            self.conn.send(message)

    def nomad_process(conn, *args):
        child(Connection(conn), *args)

    RunRecord.append, nomad._Blackbox.__call__ = timed("record_s", append), timed("blackbox_s", blackbox)
    RunRecord.sync = timed("record_sync_s", sync)
    nomad._nomad_process = nomad_process
    record = folder / f"record-{time.monotonic_ns()}.jsonl"
    try:
        start, cpu = time.monotonic(), time.thread_time()
        with make_executor(workers=2) as executor:
            executor.map = timed_map(executor.map, calls)
            result = options.engine(Timed(problem.evaluate, timing), problem.bounds, problem.nominal,
                                    **options.keywords(), executor=executor, record=record, progress=False)
        wall, cpu = time.monotonic() - start, time.thread_time() - cpu
    finally:
        RunRecord.append, nomad._Blackbox.__call__, nomad._nomad_process = append, blackbox, child
        RunRecord.sync = sync
    entries = [json.loads(line) for line in record.read_text().splitlines()[1:]]
    rows = _worker_times(timing)
    extra = {"blocks": result.extra["batches"], **_block_profile(calls, rows), "underfilled_blocks": result.extra["underfilled_batches"],
             "record_s": round(spent["record_s"], 3), "record_sync_during_nomad_turns_s": round(spent["record_sync_s"], 3),
             "outside_evaluation_calls_s": round(wall - spent["blackbox_s"], 3),
             "nomad_process_cpu_s": round(float((folder / "nomad_cpu").read_text()), 3), "fitness": result.fitness}
    return _profile(rows, start, wall, 2, cpu, extra), entries


def _pool_round(problem, points: list[dict], timing: Path) -> tuple[dict, list]:
    start, cpu = time.monotonic(), time.thread_time()
    with ProcessPoolExecutor(2) as pool:
        results = list(pool.map(Timed(problem.evaluate, timing), points))
    wall, cpu = time.monotonic() - start, time.thread_time() - cpu
    return _profile(_worker_times(timing), start, wall, 2, cpu, {}), [r.value for r in results]


def _round(problem, settings, evaluations, timing, folder, block, number, points) -> dict:
    """One round of one block size: identify and pool in the order of the round (the pool first in odd
    rounds, on the points the last round of this block size evaluated); ``points`` is updated."""
    load = os.getloadavg()[0]
    if number % 2:
        pool, values = _pool_round(problem, points[block], timing)
        identify, entries = _identify_round(problem, settings, evaluations, timing, folder, block)
    else:
        identify, entries = _identify_round(problem, settings, evaluations, timing, folder, block)
        pool, values = _pool_round(problem, [e["x"] for e in entries], timing)
    same = block not in points or points[block] == [e["x"] for e in entries]
    points[block] = [e["x"] for e in entries]
    worst = max(abs(a - b) / max(abs(b), 1e-300) for a, b in zip([e["fitness"] for e in entries], values)
                if a is not None and b is not None)
    return {"block_size": "default" if block is None else block, "round": number,
            "order": "pool first" if number % 2 else "identify first", "load_1min": load,
            "identify": identify, "pool": pool,
            "rate_ratio": round(identify["evaluations_per_s"] / pool["evaluations_per_s"], 4),
            "same_points_as_last_round": same, "worst_relative_fitness_difference": worst}


def _median(values: list[float]) -> float:
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def _summary(rounds: list[dict]) -> dict:
    """Medians over the rounds of one block size: the rate ratio, and the ratio of the workers' busy
    fractions (what the load of other processes changes least)."""
    return {"median_rate_ratio": round(_median([r["rate_ratio"] for r in rounds]), 4),
            "rate_ratios": [r["rate_ratio"] for r in rounds],
            "median_busy_fraction_ratio": round(_median([r["identify"]["workers_busy_fraction"]
                                                         / r["pool"]["workers_busy_fraction"] for r in rounds]), 4),
            "blocks": rounds[0]["identify"]["blocks"], "fitness": rounds[0]["identify"]["fitness"],
            "nomad_cpu_per_evaluation_ms": round(_median([1e3 * r["identify"]["nomad_process_cpu_s"]
                                                          / r["identify"]["evaluations"] for r in rounds]), 2),
            "worst_relative_fitness_difference": max(r["worst_relative_fitness_difference"] for r in rounds),
            "load_1min": [r["load_1min"] for r in rounds]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluations", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--blocks", default="default",
                        help="NOMAD variants to run, comma-separated: a block size ('default': pybridge's choice), "
                             "optionally followed by +NOMAD parameter lines, e.g. '2+QUAD_MODEL_MAX_EVAL 500'")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "identify_pool.json")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="identify_pool-"))
    timing = folder / "timing"
    timing.mkdir()
    problem, settings = _problem(REPO / "out" / "identify_pool")
    blocks = [None if b == "default" else b for b in args.blocks.split(",")]
    rounds, points = [], {}
    for number in range(args.rounds):
        for block in blocks:
            rounds.append(_round(problem, settings, args.evaluations, timing, folder, block, number, points))
            print(json.dumps(rounds[-1]), flush=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    write_record(args.out, "identify_pool", commit=commit, workers=2, method=settings["pattern_search"]["method"],
                 parameters=sorted(problem.bounds), evaluations_per_round=args.evaluations,
                 summary={str(b or "default"): _summary([r for r in rounds if r["block_size"] == (b or "default")])
                          for b in blocks},
                 rounds=rounds, load_end=os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
