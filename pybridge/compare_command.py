"""`pybridge compare`: parameter sets against an MBM data set, as the demo's comparison step does it.

Each set is simulated on every manoeuvre the data set offers and the sets can run (or on ``manoeuvres``)
and scored with the objective's indices (``pybridge.evaluate.compare.compare_parameter_sets``)::

    OUT/comparison.yaml          index errors per manoeuvre and set, the rule of near-zero indices, skips
    OUT/traces/<set>/<m>.csv     the RTM trace of every set and manoeuvre
    OUT/index_errors.png         the errors of every set against TP, a panel per manoeuvre
    OUT/curves_<m>.png           the curves the indices compare, MBM reference vs every set
    OUT/<model>.fmu              the RTM FMU (the identification's build, as the demo's) unless --fmu

A set is a parameter-set folder (``pybridge convert``, ``identify``); its name, which names its traces,
is the folder's name, or NAME in ``NAME=FOLDER``. :func:`format_table` is the table the command prints.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pybridge.evaluate.compare import SET_NAME, CompareError, compare_parameter_sets
from pybridge.evaluate.objective import DEFAULT_FILE

__all__ = ["format_table", "read_sets", "run_compare", "within_tp"]


def read_sets(specs: Iterable[str]) -> dict:
    """name -> ParameterSet of every ``FOLDER`` or ``NAME=FOLDER``; CompareError for a clash or a bad name."""
    from pybridge.parameters import read_parameter_set

    sets = {}
    for spec in specs:
        name, sep, folder = spec.partition("=")
        if not sep:
            name, folder = Path(spec.rstrip("/")).name, spec
        if not SET_NAME.fullmatch(name):
            raise CompareError(f"--params {spec}: set name {name!r}; expected letters, digits, '_', '.' or '-' "
                               "(it names a folder of traces; give NAME=FOLDER)")
        if name in sets:
            raise CompareError(f"--params {spec}: a second set named {name!r}; give NAME=FOLDER to tell them apart")
        sets[name] = read_parameter_set(folder)
    models = {params.model for params in sets.values()}
    if len(models) > 1:
        raise CompareError(f"--params: the sets are of different models {sorted(models)}; expected one model")
    return sets


def within_tp(comparison: dict, name: str, role: str) -> tuple[int, int]:
    """(indices of set ``name`` within TP, indices) over the ``role`` manoeuvres (objective: weighted ones)."""
    tp = comparison["tolerance_percent"]
    values = [index.get(name) for m in comparison["manoeuvres"].values() if m["role"] == role
              for index in m["indices"].values() if index["weight"] > 0 or role == "validation"]
    return sum(v is not None and v <= tp for v in values), len(values)


def format_table(comparison: dict) -> str:
    """The index errors of every set per manoeuvre and index (* above TP), the rule of near-zero indices, and
    the count within TP per set and role."""
    sets, tp = comparison["sets"], comparison["tolerance_percent"]
    width = max(12, *(len(s) + 2 for s in sets))
    lines = [f"{'manoeuvre':20s} {'index':26s} {'role':10s} {'weight':>6s}" + "".join(f"{s:>{width}s}" for s in sets)]
    for manoeuvre, entry in comparison["manoeuvres"].items():
        for index, values in entry["indices"].items():
            cells = []
            for name in sets:
                value = values.get(name)
                cells.append(f"{'failed' if value is None else f'{value:.2f}' + ('*' if value > tp else ' '):>{width}s}")
            rule = f"  absolute: MBM {values['reference_value']:g} < floor {values['floor']:g}" \
                if values.get("rule") == "absolute" else ""
            lines.append(f"{manoeuvre:20s} {index:26s} {entry['role']:10s} {values['weight']:6g}" + "".join(cells)
                         + rule)
        for name, why in entry.get("failed", {}).items():
            lines.append(f"  {manoeuvre}: {name} failed: {why}")
    lines.append(f"index errors e in %; * above TP = {tp:g} %")
    for role in ("objective", "validation"):
        counts = [within_tp(comparison, name, role) for name in sets]
        if counts and counts[0][1]:
            lines.append(f"{role} indices within TP: " + ", ".join(f"{n} {a}/{b}" for n, (a, b) in zip(sets, counts)))
    for manoeuvre, why in comparison.get("skipped", {}).items():
        lines.append(f"skipped {manoeuvre}: {why}")
    return "\n".join(lines)


def run_compare(specs: Iterable[str], reference: str | Path, out: str | Path, *, fmu: str | Path | None = None,
                manoeuvres: Iterable[str] | None = None, objective_file: str | Path = DEFAULT_FILE,
                workers: int = 2, progress: bool = True) -> tuple[dict, list[Path]]:
    """Compare the sets of ``specs`` with the data set ``reference`` into ``out``: (comparison, figure paths)."""
    from pybridge.report.compare_figures import draw_comparison_figures

    sets = read_sets(specs)
    reference, out = Path(reference), Path(out)
    if not (reference / "manifest.yaml").is_file():
        raise CompareError(f"{reference}: not an MBM data set: manifest.yaml is missing (expected the layout of "
                           "scenarios/mbm/lcv35, made by pybridge mbm generate)")
    if workers < 1:
        raise CompareError(f"--workers {workers}: expected at least 1")
    if fmu is None:
        from fmu_build import build_fmu
        from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR

        out.mkdir(parents=True, exist_ok=True)
        fmu = build_fmu(next(iter(sets.values())).model, backend="native", fmi_type="cs",
                        integrator=IDENTIFICATION_INTEGRATOR, out_dir=out)
    comparison = compare_parameter_sets(sets, reference, fmu, out, manoeuvres=manoeuvres,
                                        objective_file=objective_file, workers=workers, progress=progress)
    return comparison, draw_comparison_figures(comparison, out)
