"""SSP archives unpacked safely, the FMUs inside them included, before any library reads them.

:func:`unpack_ssp` checks every entry of the SSP (no absolute path, no ``..``, each entry and all of
them together within :data:`pybridge.limits.SSP_ENTRY_BYTES` / ``SSP_TOTAL_BYTES``, the sizes the
archive declares), unpacks it, then checks every FMU inside it the same way (fmu_build's FMU limits,
their unpacked sizes counted in the SSP's total). libcosim unpacks each FMU it loads itself and cannot
be given an unpacked folder, so each FMU is unpacked here into a checked folder and zipped again from
it: libcosim unpacks only entries this module wrote. :func:`inside` resolves a ``source`` of the SSD
(a component's FMU, a parameter binding's SSV) and refuses one that leaves the archive.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

from fmu_build.errors import BuildError
from fmu_build.inspect import check_archive, unsafe_entry_name
from pybridge.limits import SSP_ENTRY_BYTES, SSP_TOTAL_BYTES
from pybridge.rig.ssp import SSPError

__all__ = ["check_fmu_file", "inside", "unpack_ssp"]

def _check_ssp_entries(archive: zipfile.ZipFile, ssp: Path) -> int:
    """The SSP's declared unpacked size, after checking its entries' names and sizes."""
    return check_archive(archive, ssp, entry_limit=SSP_ENTRY_BYTES, total_limit=SSP_TOTAL_BYTES, error=SSPError,
                         what="the archive")


def check_fmu_file(fmu: Path, label: str) -> int:
    """The unpacked size of the FMU ``fmu`` (named ``label`` in messages), after fmu_build's checks of its
    entries (paths, sizes, totals); SSPError on a bad or unreadable archive."""
    try:
        with zipfile.ZipFile(fmu) as archive:
            check_archive(archive, Path(label))
            return sum(info.file_size for info in archive.infolist())
    except BuildError as error:
        raise SSPError(str(error)) from None
    except (OSError, zipfile.BadZipFile, EOFError) as error:
        raise SSPError(f"{label}: not a readable FMU (zip) archive ({error})") from None


def _repack(fmu: Path, label: str) -> None:
    """Unpack ``fmu`` into a folder beside it (entries checked) and write it again from that folder."""
    folder = fmu.with_name(f".{fmu.name}.unpacked")
    try:
        with zipfile.ZipFile(fmu) as archive:
            archive.extractall(folder)
    except (OSError, zipfile.BadZipFile, EOFError, NotImplementedError) as error:
        raise SSPError(f"{label}: cannot unpack the FMU ({error})") from None
    with zipfile.ZipFile(fmu, "w", compression=zipfile.ZIP_STORED) as archive:
        for file in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
            archive.write(file, file.relative_to(folder).as_posix())


def unpack_ssp(ssp: Path, root: Path) -> None:
    """Unpack ``ssp`` into the folder ``root`` (see the module doc); SSPError naming the archive and the
    entry on anything unsafe or too large."""
    try:
        archive = zipfile.ZipFile(ssp)
    except (OSError, zipfile.BadZipFile) as error:
        raise SSPError(f"{ssp}: not a readable SSP archive ({error})") from None
    with archive:
        total = _check_ssp_entries(archive, ssp)
        fmus = [i.filename for i in archive.infolist() if i.filename.lower().endswith(".fmu") and not i.is_dir()]
        try:
            archive.extractall(root)
        except (zipfile.BadZipFile, EOFError, NotImplementedError) as error:
            raise SSPError(f"{ssp}: damaged SSP archive ({error})") from None
    for name in fmus:
        label = f"{ssp}!{name}"
        total += check_fmu_file(root / name, label)
        if total > SSP_TOTAL_BYTES.value():
            raise SSPError(f"{label}: the archive with its FMUs unpacks to more than {SSP_TOTAL_BYTES.describe()}")
        _repack(root / name, label)


def inside(root: Path, source: str | None, where: str, what: str) -> Path:
    """The file ``source`` (a relative path in the SSD) under ``root``; SSPError if it is missing or would
    be read from outside the archive (absolute, ``..``, a URI)."""
    if not source:
        raise SSPError(f"{where}: {what} has no source attribute; expected the path of a file in the archive")
    if ":" in source.split("/")[0] or unsafe_entry_name(source):
        raise SSPError(f"{where}: {what}: source '{source}' points outside the archive; expected a path "
                       "inside it (e.g. resources/x.fmu)")
    path = (root / source).resolve()
    if root.resolve() not in path.parents or not path.is_file():
        raise SSPError(f"{where}: {what}: {source} is not a file in the archive")
    return path
