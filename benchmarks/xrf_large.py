"""A 2 GB Adams xrf result file read for 5 channels: peak memory and time of pybridge.mbm.xrf.read_xrf.

Writes a synthetic full-vehicle result file to /tmp with :class:`pybridge.mbm.xrf.XrfWriter` (streaming:
one analysis, ``--components`` channels in entities of 10 as Adams/Car's requests, 1 ms steps, values
in mm and deg, until ``--gigabytes``), then reads 5 of its channels in a fresh child process and
records the child's peak resident set size (VmHWM, reset after its imports), its thread CPU time and
wall time, and checks the values read against the formula that wrote them. The file is deleted afterwards.

    ../.venv/bin/python xrf_large.py [--gigabytes 2] [--components 400]

Result: ``results/xrf_large.json``. The bar (issue 28): peak RSS under 300 MB.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from machine import write_record  # noqa: E402
from pybridge.mbm.xrf import XrfWriter  # noqa: E402

HERE = Path(__file__).resolve().parent
CHANNELS = ["time.TIME", "request_000.c0", "request_013.c7", "request_027.c3", "request_039.c9"]
BATCH = 2000  # steps per write


def _values(t: np.ndarray, components: int) -> np.ndarray:
    """Row per time: time, then component k = sin(t + k) (SI)."""
    k = np.arange(components)
    return np.column_stack([t, np.sin(t[:, None] + k[None, :])])


def write_file(path: Path, gigabytes: float, components: int) -> tuple[int, float]:
    """Write the synthetic file; returns (steps, CPU seconds)."""
    channels = [("time", "TIME", "sec")]
    channels += [(f"request_{k // 10:03d}", f"c{k % 10}", "mm" if k % 2 else "deg") for k in range(components)]
    start, steps = time.process_time(), 0
    with XrfWriter(path, tool="xrf_large benchmark", version="1") as out:
        out.begin_analysis("synthetic_step_steer", channels, kind="dynamic")
        while out.written < gigabytes * 1e9:
            t = (steps + np.arange(BATCH)) * 1e-3
            out.steps(_values(t, components))
            steps += BATCH
        out.end_analysis()
    return steps, time.process_time() - start


READER = """
import json, sys, time
import numpy as np
from pybridge.mbm.xrf import read_xrf
def status(key):
    return next(float(l.split()[1]) / 1024 for l in open("/proc/self/status") if l.startswith(key + ":"))
open("/proc/self/clear_refs", "w").write("5")  # peak RSS from here on (ru_maxrss would keep the parent's)
imports = status("VmRSS")
channels = json.loads(sys.argv[2])
t0, c0 = time.perf_counter(), time.thread_time()
res = read_xrf(sys.argv[1], channels)
wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
a = res.analysis()
t = a.data["time.TIME"]
def expected(source):
    entity, comp = source.rsplit(".", 1)
    k = int(entity.split("_")[1]) * 10 + int(comp[1:])
    return np.sin(t + k)
worst = max(float(np.max(np.abs(a.data[s] - expected(s)))) for s in channels[1:])
print(json.dumps({"wall_s": wall, "thread_cpu_s": cpu, "steps": a.steps, "max_abs_error": worst,
                  "rss_after_imports_mb": imports, "peak_rss_mb": status("VmHWM")}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gigabytes", type=float, default=2.0)
    parser.add_argument("--components", type=int, default=400)
    parser.add_argument("--out", default=str(HERE / "results" / "xrf_large.json"))
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="xrf_large_", dir="/tmp"))
    path = folder / "synthetic.res"
    try:
        load_before = os.getloadavg()
        steps, write_cpu = write_file(path, args.gigabytes, args.components)
        size = path.stat().st_size
        print(f"wrote {size / 1e9:.2f} GB, {steps} steps x {args.components + 1} values, {write_cpu:.0f} s CPU")
        child = subprocess.run([sys.executable, "-c", READER, str(path), json.dumps(CHANNELS)],
                               capture_output=True, text=True, cwd=HERE.parent, check=True)
        read = json.loads(child.stdout)
        load_after = os.getloadavg()
    finally:
        for leftover in folder.iterdir():
            leftover.unlink()
        folder.rmdir()
    print(f"read {len(CHANNELS)} channels of {read['steps']} steps: peak RSS {read['peak_rss_mb']:.0f} MB "
          f"(after the imports {read['rss_after_imports_mb']:.0f} MB), {read['thread_cpu_s']:.1f} s thread CPU, "
          f"{read['wall_s']:.1f} s wall ({size / 1e6 / read['thread_cpu_s']:.0f} MB per CPU second); values within "
          f"{read['max_abs_error']:.1e}")
    write_record(Path(args.out), "xrf_large", file_bytes=size, components=args.components, steps=steps,
                 channels_read=CHANNELS, write_cpu_s=round(write_cpu, 1), read=read,
                 load_before=load_before, load_after=load_after,
                 bar_peak_rss_mb=300, met=read["peak_rss_mb"] < 300)


if __name__ == "__main__":
    main()
