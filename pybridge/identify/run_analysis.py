"""What the data determine, for an identification run folder (``pybridge identify --analyse RUN``).

``analyse_run`` rebuilds the run's problem from the folder (``params_nominal/``, the FMU, the data set
and objective ``result.yaml`` names), runs ``pybridge.identify.identifiability.analyse`` at the
optimum through the given executor (the optimum, as ``record.jsonl`` wrote it, and its 2N probes are
evaluated with their residual vectors, ``pybridge.identify.residuals``, into
``RUN/identifiability-<key>.jsonl``, so a killed analysis resumes), and writes:

- ``result.yaml`` ``identifiability``: intervals, correlations, singular values, flags with reasons,
  and ``within_tp``: the count of objective indices within TP, nominal vs optimized, with the
  indices that got worse (a lower fitness is not success by itself);
- ``params_optimized/`` metadata ``identified_intervals_95`` (name -> [low, high]) and
  ``identification_flags``, which ``pybridge export`` writes into the FMU's description.
"""
from __future__ import annotations

from pathlib import Path

from pybridge.evaluate.objective import Objective
from pybridge.fileio import dump_yaml, read_yaml, write_text_atomically
from pybridge.identify.declared import declared_uncertainty
from pybridge.identify.identifiability import Identifiability, Scoring, analyse, record_name
from pybridge.identify.problem import VehicleProblem
from pybridge.identify.residuals import IndexResiduals
from pybridge.parameters import ParameterSet, read_parameter_set

__all__ = ["AnalysisError", "analyse_run", "within_tp"]


class AnalysisError(ValueError):
    """A run folder that cannot be analysed; the message names the folder or file and what is missing."""


def within_tp(summary: dict, tolerance: float) -> dict:
    """Weighted objective indices within TP, nominal and optimized, and the indices that got worse."""
    before, after = summary["nominal"]["indices"], summary["optimized"]["indices"]
    keys = [k for k, v in before.items() if v.get("weight", 0) > 0 and k in after]
    error = {s: {k: d[k]["error_percent"] for k in keys} for s, d in (("nominal", before), ("optimized", after))}
    left = [k for k in keys if error["nominal"][k] <= tolerance < error["optimized"][k]]
    worse = sorted((k for k in keys if error["optimized"][k] > error["nominal"][k]),
                   key=lambda k: error["nominal"][k] - error["optimized"][k])
    return {"tolerance_percent": tolerance, "of": len(keys),
            "nominal": sum(v <= tolerance for v in error["nominal"].values()),
            "optimized": sum(v <= tolerance for v in error["optimized"].values()),
            "left_tp": {k: [error["nominal"][k], error["optimized"][k]] for k in left},
            "worse": {k: [error["nominal"][k], error["optimized"][k]] for k in worse}}


def _summary(run_dir: Path) -> dict:
    path = run_dir / "result.yaml"
    if not path.is_file():
        raise AnalysisError(f"{run_dir}: result.yaml missing; expected the run folder of pybridge identify")
    summary = read_yaml(path, AnalysisError)
    missing = [k for k in ("fmu", "reference", "objective", "parameters", "nominal", "optimized")
               if not isinstance(summary, dict) or k not in summary]
    if missing:
        raise AnalysisError(f"{path}: key(s) {missing} missing; expected the summary of pybridge identify")
    return summary


def _problem(run_dir: Path, summary: dict) -> VehicleProblem:
    for needed in ("params_nominal/params.yaml", summary["fmu"]):
        if not (run_dir / needed).is_file():
            raise AnalysisError(f"{run_dir}: {needed} missing; expected the run folder of pybridge identify")
    step = (summary.get("identification_step") or {}).get("step_s")  # the step the identification ran at
    return VehicleProblem(read_parameter_set(run_dir / "params_nominal"), Path(summary["reference"]),
                          run_dir / summary["fmu"], Path(summary["objective"]), internal_step=step)


def _write_metadata(run_dir: Path, result: Identifiability, optimized: ParameterSet | None = None) -> None:
    """params_optimized/ with the intervals and flags in its metadata (``optimized``: the set written there, when
    the caller has it; else it is read back)."""
    folder = run_dir / "params_optimized"
    params = read_parameter_set(folder) if optimized is None else optimized.with_values({})
    params.metadata = {**params.metadata,
                       "identified_intervals_95": {n: [float(a), float(b)] for n, (a, b) in result.intervals.items()},
                       "identification_flags": {n: [f["flag"] for f in fs] for n, fs in result.flags.items() if fs}}
    params.write(folder)


def analyse_run(run_dir: str | Path, *, executor=None, problem: VehicleProblem | None = None,
                lanes: str | int | None = None, optimized: ParameterSet | None = None,
                summary: dict | None = None) -> Identifiability:
    """Analyse the optimum of the run in ``run_dir`` and write the findings (module docstring); the probes run
    on ``lanes`` (pybridge.identify.lane_batch.lane_objective: off, auto, 4, 8; default $PYBRIDGE_LANES, else auto);
    ``optimized``, ``summary``: the set in ``params_optimized/`` and the contents of result.yaml when the caller has
    them (else they are read from there); ``summary`` gets the ``identifiability`` section."""
    from pybridge.identify.lane_batch import lane_objective

    run_dir = Path(run_dir)
    summary = _summary(run_dir) if summary is None else summary
    problem = problem or _problem(run_dir, summary)
    optimum = {n: float(p["optimized"]) for n, p in summary["parameters"].items() if n in problem.bounds}
    residuals = IndexResiduals(problem, lanes=lane_objective(problem, lanes=lanes).lanes)
    result = analyse(residuals, {n: problem.bounds[n] for n in optimum}, optimum,
                     Scoring.from_objective(problem.objective), record=run_dir / record_name(optimum),
                     executor=executor, known_record=run_dir / "record.jsonl", nominal=problem.nominal,
                     declared=declared_uncertainty(problem.reference_dir, problem.nominal))
    tolerance = Objective.from_yaml(problem.objective_file).tolerance_percent
    summary["identifiability"] = {**result.summary(), "within_tp": within_tp(summary, tolerance)}
    write_text_atomically(run_dir / "result.yaml", dump_yaml(summary, sort_keys=False))
    _write_metadata(run_dir, result, optimized)
    return result


def analyse_after_identification(run_dir: Path, problem: VehicleProblem, *, workers: int, address=None,
                                 executor=None, lanes: str | int | None = None,
                                 optimized: ParameterSet | None = None, summary: dict | None = None) -> dict:
    """``analyse_run`` right after an identification (on its ``executor``, whose workers are warm, else a new
    one); a probe that fails is written to result.yaml as the analysis's error (the identification itself
    stays as written). Returns result.yaml's section (``optimized``, ``summary``: as for analyse_run)."""
    from contextlib import nullcontext

    from pybridge.identify.executor import make_executor

    try:
        with nullcontext(executor) if executor is not None else make_executor(workers=workers, address=address) as pool:
            analyse_run(run_dir, executor=pool, problem=problem, lanes=lanes, optimized=optimized, summary=summary)
    except RuntimeError as error:
        summary = _summary(run_dir)
        summary["identifiability"] = {"error": str(error)}
        write_text_atomically(run_dir / "result.yaml", dump_yaml(summary, sort_keys=False))
    return (_summary(run_dir) if summary is None else summary)["identifiability"]


def posterior_run(run_dir: str | Path, *, executor=None, steps: int = 300, walkers: int | None = None,
                  resume: bool = True, progress: bool = True, problem: VehicleProblem | None = None) -> dict:
    """emcee around the run's optimum with the residual variance of its identifiability analysis (the walkers
    evaluated on lanes where the lane model builds, pybridge.identify.lane_batch); the
    chain goes to ``RUN/posterior/chain.npz``, every evaluation to ``RUN/posterior/record.jsonl`` (a killed
    run resumes from it), the summary to result.yaml ``posterior``. Returns that summary."""
    import numpy as np

    from pybridge.identify.lane_batch import lane_objective
    from pybridge.identify.posterior import sample_posterior

    run_dir = Path(run_dir)
    summary = _summary(run_dir)
    section = summary.get("identifiability") or {}
    if "residual_variance" not in section:
        raise AnalysisError(f"{run_dir / 'result.yaml'}: no identifiability analysis; run pybridge identify "
                            f"--analyse {run_dir} first")
    problem = problem or _problem(run_dir, summary)
    optimum = {n: float(p["value"]) for n, p in section["parameters"].items()}
    folder = run_dir / "posterior"
    folder.mkdir(exist_ok=True)
    posterior = sample_posterior(lane_objective(problem), {n: problem.bounds[n] for n in optimum}, optimum,
                                 section["residual_variance"], walkers=walkers, steps=steps, executor=executor,
                                 record=folder / "record.jsonl", resume=resume, progress=progress)
    partial = folder / ".chain.partial.npz"
    np.savez(partial, names=np.array(posterior.names), chain=posterior.chain, log_prob=posterior.log_prob,
             samples=posterior.samples)
    partial.replace(folder / "chain.npz")
    summary = _summary(run_dir)
    summary["posterior"] = posterior.summary()
    write_text_atomically(run_dir / "result.yaml", dump_yaml(summary, sort_keys=False))
    return summary["posterior"]
