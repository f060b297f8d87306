"""The shipped van's index errors with the recorded driver inputs against those with the nominal inputs.

Converts ``scenarios/mbm/lcv35``, builds the RTM FMU as the demo does (native, RK4) and runs
``compare_parameter_sets`` twice on every manoeuvre with indices: ``inputs="nominal"`` (the scenario's
signals) and ``inputs="recorded"`` (the channels the reference traces carry, pybridge.simulate.recorded).
Prints both tables, the difference per index and the recorded - nominal input difference per manoeuvre;
writes them to ``results/recorded_inputs.yaml``.

    .venv/bin/python benchmarks/recorded_inputs.py [OUT_DIR]
"""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"


def main(out: Path) -> dict:
    from fmu_build import build_fmu
    from pybridge.convert import convert_mbm
    from pybridge.evaluate.compare import compare_parameter_sets
    from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR

    fmu = build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native", fmi_type="cs",
                    integrator=IDENTIFICATION_INTEGRATOR, out_dir=out / "fmu")
    params = convert_mbm(SHIPPED / "mbm", fmu=fmu)
    results = {mode: compare_parameter_sets({"nominal": params}, SHIPPED, fmu, out / mode, inputs=mode,
                                            workers=2, progress=False) for mode in ("nominal", "recorded")}
    table = {}
    for manoeuvre, entry in results["recorded"]["manoeuvres"].items():
        nominal = results["nominal"]["manoeuvres"][manoeuvre]["indices"]
        table[manoeuvre] = {"inputs": entry.get("inputs", {}),
                            "indices": {i: {"nominal_inputs": nominal[i]["nominal"], "recorded_inputs": v["nominal"]}
                                        for i, v in entry["indices"].items()}}
    return table


def show(table: dict) -> None:
    print(f"{'manoeuvre/index':42s} {'nominal in. %':>14s} {'recorded in. %':>15s} {'diff':>9s}")
    for manoeuvre, entry in table.items():
        for index, values in entry["indices"].items():
            a, b = values["nominal_inputs"], values["recorded_inputs"]
            diff = f"{b - a:+9.4f}" if a is not None and b is not None else "       --"
            print(f"{manoeuvre + '/' + index:42s} {a!s:>14s} {b!s:>15s} {diff}")
        for name, record in entry["inputs"].items():
            print(f"    input {name}: max |recorded - nominal| {record.get('max_difference')}, "
                  f"RMS {record.get('rms_difference')} (SI)")


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "out" / "recorded_inputs"
    table = main(out)
    show(table)
    results = REPO / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    (results / "recorded_inputs.yaml").write_text(yaml.safe_dump(table, sort_keys=False, width=120))
