"""Are the library's FMUs the same as another tree's (e.g. main's worktree) builds? (issue 30)

Builds each named library model (default: every one the native backend builds) with this tree and with
``--reference-tree``'s fmu_build (a subprocess with that tree first on PYTHONPATH, its own working
directory, the same hash seed), then compares the FMUs entry by entry. Two builds at different times
are never byte-identical: the GUID is the build key, a hash that includes fmu_build's own code, and
``generationDateAndTime`` is the build time. So the model description and the sources are compared
with both masked, and the binary by recompiling this tree's sources with the reference's GUID
(``native_backend.compile_library``, the GNU build-id note removed from both).

    .venv/bin/python benchmarks/fmu_identity.py --reference-tree /work/main [MODEL ...]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
BUILD = ("import sys; from fmu_build.build import build_fmu\n"
         "for name in sys.argv[2:]: build_fmu(name, backend='native', out_dir=sys.argv[1], cache=False, "
         "cache_dir=sys.argv[1] + '/cache')")


def build(tree: Path, out: Path, models: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    subprocess.run([sys.executable, "-c", BUILD, str(out), *models], cwd=tree, env=env, check=True)


def _guid(archive: zipfile.ZipFile) -> bytes:
    return re.search(rb'guid="(\{[^}]+\})"', archive.read("modelDescription.xml")).group(1)


def _masked(archive: zipfile.ZipFile, name: str) -> bytes:
    data = archive.read(name).replace(_guid(archive), b"GUID")
    return re.sub(rb'generationDateAndTime="[^"]*"', b'generationDateAndTime=""', data)


def _stripped(path: Path) -> bytes:
    subprocess.run(["objcopy", "--remove-section", ".note.gnu.build-id", str(path)], check=True)
    return path.read_bytes()


def same_binary(reference: zipfile.ZipFile, ours: zipfile.ZipFile) -> bool:
    """Our sources compiled with the reference's GUID give the reference's binary."""
    from fmu_build.native_backend import compile_library

    library = next(n for n in reference.namelist() if n.startswith("binaries/"))
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "src").mkdir()
        for name in ours.namelist():
            if name.startswith("sources/"):
                (folder / "src" / Path(name).name).write_bytes(ours.read(name).replace(_guid(ours), _guid(reference)))
        out = folder / Path(library).name
        sources = sorted((p for p in (folder / "src").glob("*.c") if not p.stem.endswith("_lanes")),   # the lane
                         key=lambda p: (p.stem == out.stem, p.name))   # model is not in the binary; model file last
        compile_library(sources, [folder / "src"], out)
        (folder / "reference").write_bytes(reference.read(library))
        return _stripped(out) == _stripped(folder / "reference")


def compare(reference: Path, ours: Path) -> str:
    a, b = zipfile.ZipFile(reference), zipfile.ZipFile(ours)
    if a.namelist() != b.namelist():
        return "different entries"
    differ = [n for n in a.namelist() if not n.startswith("binaries/") and _masked(a, n) != _masked(b, n)]
    if differ:
        return f"different: {', '.join(differ)}"
    return "same but for GUID and date" if same_binary(a, b) else "different binary"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="class names (default: fmu-build list --native)")
    parser.add_argument("--reference-tree", type=Path, required=True, help="the other tree, e.g. /work/main")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from fmu_build.modelica import library_classes

    models = args.models or [c.name for c in library_classes() if c.kind in ("model", "block") and not c.partial]
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        build(args.reference_tree.resolve(), folder / "reference", models)
        build(HERE, folder / "ours", models)
        results = {name: compare(folder / "reference" / f"{name.replace('.', '_')}.fmu",
                                 folder / "ours" / f"{name.replace('.', '_')}.fmu") for name in models}
    for name, verdict in results.items():
        print(f"{verdict:30s} {name}")
    same = sum(v.startswith("same") for v in results.values())
    print(f"{same} of {len(results)} the same but for GUID and date")


if __name__ == "__main__":
    main()
