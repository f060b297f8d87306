"""`pybridge demo`: the main job end to end on an MBM data set, into one run folder.

build the RTM FMU (the RTM14DoF class of the data set's variant, pybridge.convert_variant) -> convert
the MBM data -> compare the nominal RTM with the MBM on every shipped manoeuvre -> sensitivity
analysis -> identification (NOMAD by default) -> validation on the cross-validation manoeuvres ->
report. The run folder holds what each step made::

    RUN/<model>.fmu          the RTM Co-Simulation FMU used (native build unless --fmu)
    RUN/params_converted/    the direct conversion (LCV paper Eq. 1-7), uncertain parameters ±20 %
    RUN/nominal/             nominal RTM vs MBM on every manoeuvre (comparison.yaml, traces/)
    RUN/sensitivity.yaml     sensitivity measures, the tunable set and ranges (+ sensitivity.png)
    RUN/params_nominal/, params_optimized/, record.jsonl, result.yaml   the identification
    RUN/comparison.yaml      nominal and optimized vs MBM, objective and validation manoeuvres
    RUN/corners/             SLEKQ corners FL, RL and their four-post check (pybridge.corner_demo)
    RUN/report/report.html   the report (+ its figures as PNG)
    RUN/run.yaml             settings, machine, versions, the wall time of every step and the skipped
                             manoeuvres with why; ``skipped_steps``: steps (or parts of one) the data set
                             has no data for, with why (pybridge.demo_steps)

The objective and validation lists are intersected with what the data set's manifest offers and the
converted set can run (``pybridge.coverage``): a data set with lateral manoeuvres only runs the
demo on those. Only a manoeuvre the user asked for by name (``named``: a validation list of the
config file) is an error when missing.
"""
from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import yaml
from tqdm import tqdm

from pybridge.fileio import read_yaml, write_text_atomically
from pybridge.evaluate.objective import DEFAULT_FILE, Objective
from pybridge.runlock import holding_run_folder
from pybridge.workers import raise_if_interrupted

STEPS = ("build the RTM FMU", "convert the MBM data", "compare nominal RTM and MBM", "sensitivity analysis",
         "identification", "validation", "SLEKQ corners and four-post check", "report")


class DemoError(ValueError):
    """A demo that cannot run on its inputs; the message names the file or setting."""


def progress_map(executor, description: str, enabled: bool) -> Callable:
    """A ``map(fn, items)`` through ``executor`` in chunks of two per worker (and lane of an ``fn`` with lanes,
    pybridge.identify.lane_batch), with a progress bar."""
    from pybridge.identify.executor import map_batched

    def map_function(fn, items):
        items = list(items)
        chunk = 2 * max(1, getattr(executor, "workers", 1)) * getattr(fn, "lanes", 1)
        results = []
        with tqdm(total=len(items), desc=description, unit="eval", disable=not enabled) as bar:
            for start in range(0, len(items), chunk):
                results.extend(map_batched(executor, fn, items[start:start + chunk]))
                bar.update(len(items[start:start + chunk]))
        return results
    return map_function


def _within_tp(comparison: dict, set_name: str, role: str) -> tuple[int, int]:
    """(indices within TP, indices) of ``set_name`` over the manoeuvres with ``role`` (objective: the
    weighted indices only)."""
    tp = comparison["tolerance_percent"]
    values = [index[set_name] for m in comparison["manoeuvres"].values() if m["role"] == role
              for index in m["indices"].values()
              if index.get(set_name) is not None and (index["weight"] > 0 or role == "validation")]
    return sum(v <= tp for v in values), len(values)


def _milliseconds(step: float | None) -> str:
    return "of the FMU" if step is None else f"{1e3 * step:g} ms"


class _Run:
    """The run folder's metadata (run.yaml), rewritten after every step so a crash keeps what ran."""

    def __init__(self, out: Path, settings: dict, inputs: dict, log: Callable[[str], None]):
        from pybridge.runinfo import machine_info

        self.out, self.log, self.start = out, log, time.perf_counter()
        self.data = {"format": "vehiclertm-demo 1",
                     "started": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
                     "inputs": inputs, "settings": settings, "machine": machine_info(), "steps": []}

    def step(self, number: int, summary_of: Callable[[], dict]):
        """Run step ``number`` (1-based): ``summary_of()`` does the work and returns its summary."""
        from pybridge.demo_steps import StepSkipped

        raise_if_interrupted()
        self.log(f"[{number}/{len(STEPS)}] {STEPS[number - 1]}")
        start = time.perf_counter()
        ran = True
        try:
            summary = summary_of()
        except StepSkipped as skip:   # the data set has no data for the step: one line, recorded, go on
            summary, ran = {"skipped": {STEPS[number - 1]: str(skip)}}, False
        for part, reason in summary.get("skipped", {}).items():
            self.data.setdefault("skipped_steps", {})[part] = reason
            self.log(f"      skipped {part}: {reason}")
        wall = round(time.perf_counter() - start, 1)
        self.data["steps"].append({"step": STEPS[number - 1], "wall_s": wall, **summary})
        self.data["total_wall_s"] = round(time.perf_counter() - self.start, 1)
        self.write()
        if ran:
            self.log(f"      done in {wall:.1f} s" + "".join(f"; {k}: {v}" for k, v in summary.items()
                                                           if isinstance(v, (str, int, float))))
        return summary

    def write(self) -> None:
        write_text_atomically(self.out / "run.yaml", yaml.safe_dump(self.data, sort_keys=False))


def _sensitivity(problem, settings: dict, workers: int, out: Path, resume: bool, progress: bool) -> dict:
    """Sensitivity of every index to the uncertain parameters; the tunable set and their ranges."""
    from pybridge.identify.executor import make_executor
    from pybridge.identify.lane_batch import lane_objective
    from pybridge.identify.sensitivity import plot_sensitivity, sensitivity_analysis

    path = out / "sensitivity.yaml"
    key = {"settings": settings, "bounds": {k: list(v) for k, v in problem.bounds.items()}}
    if resume and path.is_file():
        previous = read_yaml(path, DemoError)
        if isinstance(previous, dict) and previous.get("key") == key:
            return previous
    with make_executor(workers=workers) as executor:
        result = sensitivity_analysis(lane_objective(problem, "indices"), problem.bounds, method=settings["method"],
                                      n=settings["samples"], seed=settings["seed"],
                                      map_function=progress_map(executor, "sensitivity", progress))
    plot_sensitivity(result, out / "sensitivity.png")
    tunable, ranges = result.propose(threshold=settings["threshold"])
    if not settings["narrow_ranges"]:
        ranges = {name: problem.bounds[name] for name in tunable}
    overall = result.overall()
    summary = {"key": key, "method": result.method, "samples": settings["samples"],
               "evaluations": len(result.outputs), "ranking": result.ranking(),
               "overall": {name: round(float(overall[name]), 4) for name in overall.index},
               "tunable": tunable, "ranges": {name: [float(lo), float(hi)] for name, (lo, hi) in ranges.items()},
               "dropped": [name for name in problem.bounds if name not in tunable]}
    write_text_atomically(path, yaml.safe_dump(summary, sort_keys=False))
    return summary


@holding_run_folder("out", "demo")
def _check_inputs(reference: Path, out: Path, settings: dict, resume: bool) -> None:
    """DemoError for a folder that is no MBM data set, unknown validation manoeuvres or a used run folder."""
    from pybridge.evaluate.kpi import VALIDATION_MANOEUVRES

    for needed in ("mbm", "manifest.yaml"):
        if not (reference / needed).exists():
            raise DemoError(f"{reference}: not an MBM data set: {needed} is missing "
                            "(expected the layout of scenarios/mbm/lcv35, made by pybridge mbm generate)")
    unknown = [m for m in settings["validation"] if m not in VALIDATION_MANOEUVRES]
    if unknown:
        raise DemoError(f"validation: {unknown} are not cross-validation manoeuvres; expected some of "
                        f"{', '.join(VALIDATION_MANOEUVRES)}")
    if (out / "result.yaml").exists() and not resume:
        raise DemoError(f"{out}: holds a finished or running identification; use --resume to continue it "
                        "or choose a new run folder")


def shipped_data_set(name: str, folder: Path) -> Path:
    """The shipped data set ``folder/name`` (``pybridge demo --vehicle``); DemoError naming the choices."""
    path = Path(folder) / name
    if not (path / "manifest.yaml").is_file():
        shipped = sorted(p.name for p in Path(folder).iterdir() if (p / "manifest.yaml").is_file())
        raise DemoError(f"--vehicle {name}: no shipped data set {path} — expected one of {', '.join(shipped)}")
    return path


def _build_fmu(reference: Path, out: Path, fmu: str | Path | None) -> tuple[Path, str]:
    """``fmu``, else a native build of the RTM14DoF class of the data set's variant; and the variant in one line."""
    from fmu_build import build_fmu
    from pybridge.convert_variant import choose_variant
    from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR
    from pybridge.mbm.dataset import read_mbm

    variant = choose_variant(read_mbm(reference / "mbm"))
    path = Path(fmu) if fmu else build_fmu(variant.model, backend="native", fmi_type="cs",
                                           integrator=IDENTIFICATION_INTEGRATOR, out_dir=out)
    return path, variant.describe().removeprefix("variant: ")   # the step line says "variant: ..."


def _keep_tunable(params, summary: dict, threshold: float) -> None:
    """Narrow ``params``' uncertain set to the parameters the sensitivity step kept, with its ranges and why."""
    params.uncertain = {name: (params.uncertain[name][0], *summary["ranges"][name]) for name in summary["tunable"]}
    params.reasons = {name: f"{params.reasons.get(name, 'uncertain')}; sensitivity ({summary['method']}): "
                            f"overall importance {summary['overall'][name]:.3g}, kept (threshold {threshold:g})"
                      for name in summary["tunable"]}


def run_demo(reference: str | Path, out: str | Path, settings: dict, *, workers: int = 2,
             fmu: str | Path | None = None, objective_file: str | Path = DEFAULT_FILE, resume: bool = False,
             progress: bool = True, log: Callable[[str], None] = print, named: Iterable[str] = ()) -> dict:
    """Run the demo on the MBM data set ``reference`` (traces/, manifest.yaml, mbm/) into ``out``.

    ``settings``: a preset's sections (pybridge.config); ``named``: manoeuvres asked for by name (missing: an error).
    Returns the run metadata (RUN/run.yaml, with the step chosen and why); the report is RUN/report/report.html.
    """
    from pybridge.evaluate.compare import compare_parameter_sets
    from pybridge.convert import convert_mbm
    from pybridge.coverage import choose
    from pybridge.identify.problem import VehicleProblem
    from pybridge.identify.vehicle import SearchOptions, identify_vehicle
    from pybridge.evaluate.kpi import index_functions
    from pybridge.parameters import read_parameter_set
    from pybridge.report import write_report

    reference, out = Path(reference), Path(out)
    _check_inputs(reference, out, settings, resume)
    objective = Objective.from_yaml(objective_file)
    options = SearchOptions(**settings["pattern_search"])
    out.mkdir(parents=True, exist_ok=True)
    run = _Run(out, settings, {"reference": str(reference.resolve()), "objective": str(Path(objective_file)),
                               "workers": workers, "fmu": str(fmu) if fmu else "the data set's RTM14DoF variant (native build)"}, log)
    wanted = [m for m in index_functions if m in objective.weights or m in settings["validation"]]
    state: dict = {}

    def build():
        state["fmu"], variant = _build_fmu(reference, out, fmu)
        return {"fmu": state["fmu"].name, "variant": variant}

    def convert():
        state["params"] = convert_mbm(reference / "mbm", fmu=state["fmu"])
        state["params"].write(out / "params_converted")
        state["manoeuvres"], skipped = choose(wanted, reference, [state["params"]], named=named)
        objective.restricted(state["manoeuvres"])   # some weighted manoeuvre must remain
        run.data["skipped"] = skipped
        for name, reason in skipped.items():
            log(f"      skipped {name}: {reason}")
        return {"scalars": len(state["params"].scalars), "tables": len(state["params"].tables),
                "uncertain": len(state["params"].uncertain), "manoeuvres": ", ".join(state["manoeuvres"])}

    def nominal():
        comparison = compare_parameter_sets({"nominal": state["params"]}, reference, state["fmu"], out / "nominal",
                                            manoeuvres=state["manoeuvres"], objective_file=objective_file,
                                            workers=workers, progress=progress)
        ok, total = _within_tp(comparison, "nominal", "objective")
        return {"objective indices within TP": f"{ok}/{total}"}

    def sensitivity():
        problem = VehicleProblem(state["params"], reference, state["fmu"], Path(objective_file))
        run.data["identification_step"] = step = problem.choose_step()
        problem.start_check()  # a nominal set that fails stops the demo here (exit 3), before any ranking
        log(f"      internal step {_milliseconds(step['step_s'])}: {step['reason']}")
        summary = _sensitivity(problem, settings["sensitivity"], workers, out, resume, progress)
        if not summary["tunable"]:
            raise DemoError("sensitivity: no uncertain parameter moves any index above the threshold "
                            f"{settings['sensitivity']['threshold']}; lower it in the config")
        _keep_tunable(state["params"], summary, settings["sensitivity"]["threshold"])
        return {"evaluations": summary["evaluations"], "tunable": len(summary["tunable"]),
                "dropped": ", ".join(summary["dropped"]) or "none"}

    def identify():
        result = identify_vehicle(state["params"], reference, state["fmu"], out, options=options,
                                  objective_file=objective_file, workers=workers, resume=resume, progress=progress)
        fitness = result.extra["summary"]
        flags = {n: ", ".join(f["flag"] for f in p["flags"])
                 for n, p in fitness.get("identifiability", {}).get("parameters", {}).items() if p["flags"]}
        return {"evaluations": result.evaluations, "stopped because": result.stopped_because,
                "fitness": f"{fitness['nominal']['fitness']:.4g} -> {fitness['optimized']['fitness']:.4g}",
                "flags": "; ".join(f"{n}: {f}" for n, f in flags.items()) or "none"}

    def validate():
        sets = {"nominal": read_parameter_set(out / "params_converted"),
                "optimized": read_parameter_set(out / "params_optimized")}
        comparison = compare_parameter_sets(sets, reference, state["fmu"], out, manoeuvres=state["manoeuvres"],
                                            objective_file=objective_file, workers=workers, progress=progress)
        summary = {}
        for role in ("objective", "validation"):
            (a, n), (b, _) = (_within_tp(comparison, s, role) for s in ("nominal", "optimized"))
            summary[f"{role} indices within TP"] = f"{a}/{n} -> {b}/{n}"
        return summary

    def corners():
        from pybridge.corner_demo import run_corner_step
        return run_corner_step(reference, out, budget=settings["corners"]["max_evaluations"], resume=resume,
                               progress=progress)

    def report():
        return {"report": str(write_report(out, workers=workers, progress=progress))}

    for number, function in enumerate((build, convert, nominal, sensitivity, identify, validate, corners, report),
                                       start=1):
        run.step(number, function)
    run.data["finished"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    run.write()
    return run.data
