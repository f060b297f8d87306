"""How long `fmu-build list` takes for a single-file package of N classes (issue 30: 200 classes in under
2 s), first parse and from the parse cache, in thread CPU time; and the project library's first listing.

    .venv/bin/python benchmarks/modelica_listing.py [--classes 200] [--out benchmarks/results/modelica_listing.json]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from machine import write_record  # noqa: E402


def single_file_package(folder: Path, classes: int) -> Path:
    """DIR/Big.mo: ``classes`` models (parameter, state, equation, experiment), a short class every tenth."""
    lines = ['package Big "a single-file package"']
    for k in range(classes):
        if k % 10 == 9:
            lines.append(f'  model C{k} = C{k - 1}(k = {k + 1}) "a short class definition";')
            continue
        lines += [f'  model C{k} "class {k}"', f'    parameter Real k(unit = "1/s") = {k + 1};',
                  '    Real x(start = 1, fixed = true);', '  equation', '    der(x) = -k*x;',
                  '    annotation(experiment(StopTime = 1, Interval = 0.01));', f'  end C{k};']
    lines.append("end Big;")
    path = folder / "Big.mo"
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(function) -> tuple[float, object]:
    start = time.thread_time()
    result = function()
    return time.thread_time() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "modelica_listing.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["VEHICLERTM_FMU_CACHE"] = str(Path(folder) / "cache")   # an empty parse cache
        from fmu_build import modelica, modelica_parse

        path = single_file_package(Path(folder), args.classes)
        modelica.use_modelica_path([folder])
        first, classes = timed(lambda: modelica.package_classes("Big"))
        modelica_parse._memory.clear()
        cached, _ = timed(lambda: modelica.package_classes("Big"))
        library, listed = timed(lambda: modelica.library_classes())
        lines = len(path.read_text().splitlines())
    print(f"{len(classes)} classes ({lines} lines): first listing {first:.3f} s, from the parse cache "
          f"{cached:.3f} s; the library ({len(listed)} classes) first listing {library:.3f} s (thread CPU)")
    write_record(args.out, "modelica_listing", classes=len(classes), lines=lines, first_listing_s=round(first, 4),
                 cached_listing_s=round(cached, 4), library_classes=len(listed),
                 library_first_listing_s=round(library, 4), load=os.getloadavg()[0])


if __name__ == "__main__":
    main()
