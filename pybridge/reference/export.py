"""Export of the reference vehicle as the MBM data set the importer reads.

Written under ``out_dir`` (SI data, the formats of ``docs/mbm_formats.md`` and ``property_files``):

- ``kc/<axle>_<test>[_<side>].csv``: K&C results (``kc_rig.run_all`` unless given).
- ``masses.csv``: one row per body of the data file and side (``<body>`` for centre bodies,
  ``<body>_left/right`` else), aggregated over the model's bodies of that part (leaf segments: one
  leaf); inertia about the aggregate centre of gravity, class/axle/side from the data file.
- ``driveline.yaml``: the data file's ``driveline`` section (not when ``data_set_omits`` names it).
- ``front/rear_damper.dpr`` (velocity + extension, force + tension), ``front/rear_bump_stop.bum`` and
  ``front/rear_rebound_stop.reb`` (deflection beyond ``CLEARANCE``, force >= 0): the data file's curves.
- ``front/rear_leaf.spr``: the leaf's force against compression at the K&C ``spring_length`` point
  (front: leaf end on the lower arm; rear: leaf seat; QuadTor front: ``front_torsion_bar.spr``, the
  bar's equivalent force at the lower ball joint), from the left wheel of the parallel-travel
  test: disp = FREE_LENGTH - spring_length, force = spring_force, FREE_LENGTH = design length +
  design force / design rate (the curve passes near the origin).
- the tyre property file (a copy) and ``mbm_summary.yaml`` (geometry, static equilibrium, mass, and
  ``suspension``: the front and rear variant of the data file and the rear tyres per wheel station).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from pybridge.mbm.driveline_data import driveline_from_dict, write_driveline
from pybridge.mbm.kc_results import KCResults, write_kc_results
from pybridge.mbm.mass_table import combined_properties, write_mass_table
from pybridge.mbm.property_files import PropertyCurve, write_property_file
from pybridge.reference.kc_rig import run_all
from pybridge.reference.model import ReferenceVehicle
from pybridge.reference.statics import static_equilibrium
from pybridge.reference.vehicle_data import VehicleData

FRAME = "ISO 8855 vehicle axes at design position, origin on the ground below the front axle centre"
STOPS = {"bump_stop": ("bumpstop", "bum"), "rebound_stop": ("reboundstop", "reb")}


def kc_file_name(results: KCResults) -> str:
    side = f"_{results.loaded_side}" if results.loaded_side else ""
    return f"kc/{results.axle}_{results.test}{side}.csv"


def mass_table(data: VehicleData, vehicle: ReferenceVehicle) -> pd.DataFrame:
    """One row per data-file body and side, aggregated over the model's bodies of that part."""
    bodies = pd.DataFrame([{
        "part": b.part, "side": b.side, "mass": b.mass, "x": b.cg[0], "y": b.cg[1], "z": b.cg[2],
        "ixx": b.inertia[0, 0], "iyy": b.inertia[1, 1], "izz": b.inertia[2, 2],
        "ixy": -b.inertia[0, 1], "ixz": -b.inertia[0, 2], "iyz": -b.inertia[1, 2]} for b in vehicle.bodies.values()])
    rows = []
    for part, spec in data.bodies.items():
        of_part = bodies[bodies["part"] == part]
        sides = ["centre"] if spec.cg[1] == 0 else ["left", "right"]
        for side in sides:
            group = of_part if side == "centre" else of_part[of_part["side"] == side]
            name = part if side == "centre" else f"{part}_{side}"
            rows.append({"body": name, "class": spec.body_class, "axle": spec.axle, "side": side,
                         **combined_properties(group)})
    table = pd.DataFrame(rows)
    table.attrs.update({"vehicle": data.name, "frame": FRAME})
    return table


def leaf_spring_curve(parallel: KCResults) -> PropertyCurve:
    """The leaf's force against compression at the spring point, from a parallel-travel test (left wheel)."""
    length = parallel.data["spring_length_left"].to_numpy()
    force = parallel.data["spring_force_left"].to_numpy()
    design = int(np.argmin(np.abs(parallel.data["wheel_travel_left"].to_numpy())))
    rate = -np.gradient(force, length)[design]
    free_length = float(length[design] + force[design] / rate)
    order = np.argsort(free_length - length)
    return PropertyCurve("spring", (free_length - length)[order], force[order], free_length=free_length)


def summary(data: VehicleData) -> dict:
    """Geometry, static equilibrium on the tyres, total mass and rack gain (SI)."""
    static = static_equilibrium(data)
    front, rear = data.hardpoint("front", "wheel_centre"), data.hardpoint("rear", "wheel_centre")
    return {
        "format": "vehiclertm-mbm-summary 1", "vehicle": data.name, "units": "SI (m, kg, N, rad)",
        "wheelbase": float(front[0] - rear[0]),
        "track": {"front": float(data["front"]["track"]), "rear": float(data["rear"]["track"])},
        "design_wheel_centre_height": {"front": float(front[2]), "rear": float(rear[2])},
        "static_corner_load": {c: float(f) for c, f in static.corner_loads.items()},
        "static_ride_height": {a: float(h) for a, h in static.ride_heights.items()},
        "static_wheel_centre_height": {c: float(h) for c, h in static.wheel_centre_heights.items()},
        "total_mass": float(static.vehicle.total_mass()),
        "rack_gain": float(data["steering"]["rack_gain"]),
        "suspension": {"front": data.front_type, "rear": data.rear_type,
                       "rear_tyres_per_wheel": data.rear_tyres_per_wheel},
    }


def export_mbm(data: VehicleData, out_dir, kc_results: list[KCResults] | None = None) -> dict[str, Path]:
    """Write the MBM data set of ``data`` to ``out_dir``; returns {relative file name: path}."""
    out = Path(out_dir)
    (out / "kc").mkdir(parents=True, exist_ok=True)
    kc_results = run_all(data) if kc_results is None else kc_results
    written = {}

    def put(name: str, path: Path) -> None:
        written[name] = Path(path)

    for results in kc_results:
        put(kc_file_name(results), write_kc_results(results, out / kc_file_name(results)))
    put("masses.csv", write_mass_table(mass_table(data, ReferenceVehicle(data, "kc")), out / "masses.csv"))
    if "driveline" not in data.omitted:
        driveline = driveline_from_dict(data["driveline"], source=str(data.source), where="driveline")
        put("driveline.yaml", write_driveline(driveline, out / "driveline.yaml"))
    for axle in ("front", "rear"):
        damper = PropertyCurve("damper", *data.curve(axle, "damper", "velocity", "force"))
        put(f"{axle}_damper.dpr", write_property_file(damper, out / f"{axle}_damper.dpr"))
        for element, (kind, ext) in STOPS.items():
            curve = PropertyCurve(kind, *data.curve(axle, element, "deflection", "force"),
                                  clearance=float(data[axle][element]["clearance"]))
            put(f"{axle}_{element}.{ext}", write_property_file(curve, out / f"{axle}_{element}.{ext}"))
        parallel = next(r for r in kc_results if r.axle == axle and r.test == "parallel_travel")
        spring = "torsion_bar" if axle == "front" and data.front_type == "quadtor" else "leaf"
        put(f"{axle}_{spring}.spr", write_property_file(leaf_spring_curve(parallel), out / f"{axle}_{spring}.spr"))
    put(data.tyre_file.name, Path(shutil.copyfile(data.tyre_file, out / data.tyre_file.name)))
    (out / "mbm_summary.yaml").write_text(yaml.safe_dump(summary(data), sort_keys=False))
    put("mbm_summary.yaml", out / "mbm_summary.yaml")
    return written
