"""Closed-loop co-simulation speed: the van (native RTM14DoF, converted shipped set) and
VehicleRTM.ADAS.AdaptiveCruise in one SSP system, 20 s at a 1 ms communication step.

1. libcosim alone: ``simulate_until(20 s)`` with no observer and no Python per step (the engine and
   the two FMUs: what a rig's master pays);
2. ``pybridge.rig.cosim.cosimulate`` (libcosim + time-series observer of all 30 outputs + chunks);
3. ``pybridge.rig.cosim.python_master`` (fmpy stepping both FMUs, Jacobi: Python per step);
4. ``cosimulate(real_time=True)`` for --real-time-stop seconds: overruns and largest lag.

Writes benchmarks/results/cosim_speed.json. Run by hand:

    .venv/bin/python benchmarks/cosim_speed.py [--real-time-stop 20]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from machine import cpu_name

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from fmu_build import build_fmu  # noqa: E402
from pybridge.convert import convert_mbm  # noqa: E402
from pybridge.rig.cosim import _unpacked, cosimulate, python_master  # noqa: E402
from pybridge.rig.export import export_fmu  # noqa: E402
from pybridge.parameters import ParameterSet  # noqa: E402
from pybridge.rig.ssp import Component, Connection, write_ssp  # noqa: E402

STOP, STEP = 20.0, 1e-3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real-time-stop", type=float, default=20.0, help="simulated seconds of the paced run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level

    log_output_level(CosimLogLevel.ERROR)
    with tempfile.TemporaryDirectory(prefix="cosim-bench-") as folder:
        folder = Path(folder)
        rtm = build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native", fmi_type="cs", out_dir=folder)
        acc = build_fmu("VehicleRTM.ADAS.AdaptiveCruise", backend="native", fmi_type="cs", out_dir=folder)
        params = convert_mbm(HERE.parent / "scenarios" / "mbm" / "lcv35" / "mbm", fmu=rtm)
        van = export_fmu(params, rtm, folder / "van.fmu")
        ssp = write_ssp(folder / "acc.ssp", [
            Component("vehicle", van, ParameterSet(model=params.model, scalars={"initialSpeed": 20.0})),
            Component("acc", acc)], [Connection("vehicle", "speed", "acc", "speed"),
                                     Connection("acc", "throttle", "vehicle", "throttle"),
                                     Connection("acc", "brakePedal", "vehicle", "brakePedal")], step=STEP)
        alone = []
        with _unpacked(ssp) as unpacked:
            for _ in range(args.repeats):
                execution = CosimExecution.from_ssp_file(str(unpacked), step_size=round(STEP * 1e9))
                start = time.perf_counter()
                execution.simulate_until(round(STOP * 1e9))
                alone.append(time.perf_counter() - start)
        observed = [cosimulate(ssp, STOP, STEP).wall_time for _ in range(args.repeats)]
        start = time.perf_counter()
        python_master(ssp, STOP, STEP, "jacobi")
        python = time.perf_counter() - start
        paced = cosimulate(ssp, args.real_time_stop, STEP, real_time=True)
    result = {
        "date": time.strftime("%Y-%m-%d"), "machine": cpu_name(), "cores": os.cpu_count(),
        "python": platform.python_version(), "load_average": os.getloadavg(),
        "system": "van (converted lcv35 set, exported) + AdaptiveCruise, 1 ms step, 20 s",
        "libcosim_alone_s": statistics.median(alone),
        "libcosim_alone_us_per_step": statistics.median(alone) / STOP * 1e3,
        "cosimulate_s": statistics.median(observed), "python_master_jacobi_s": python,
        "real_time": {"simulated_s": args.real_time_stop, "wall_s": paced.wall_time, "overruns": paced.overruns,
                      "chunks": round(args.real_time_stop / 0.1), "max_lag_ms": paced.max_lag * 1e3},
    }
    out = HERE / "results" / "cosim_speed.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
