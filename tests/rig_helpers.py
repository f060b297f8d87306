"""Small FMI 2.0 archives for the rig's checks: a model description (schema-valid, as fmpy validates it)
and nothing to run, or a real FMU with entries added. The checks under test all happen before a library
loads a binary, so an FMU without one is enough to reach them."""
from __future__ import annotations

import zipfile
from pathlib import Path

from pybridge.rig.ssp import SSD_FILE


def fake_fmu(path: Path, variables: list[tuple[str, str, str | None]], *, step: float | None = None,
             extra: dict[str, bytes] | None = None) -> Path:
    """An FMU at ``path`` whose model description has ``variables`` (name, causality, unit) as Reals, a
    parameter fixedStepSize and fmu_build's vendor annotation when ``step`` is given, and ``extra``
    entries (name -> bytes) besides."""
    units = sorted({u for _, _, u in variables if u})
    rows, outputs = [], []
    for k, (name, causality, unit) in enumerate(variables, start=1):
        start = ' start="0"' if causality == "input" else ""
        variability = ' variability="continuous"' if causality in ("input", "output") else ""
        rows.append(f'<ScalarVariable name="{name}" valueReference="{k}" causality="{causality}"{variability}>'
                    f'<Real{f" unit={chr(34)}{unit}{chr(34)}" if unit else ""}{start}/></ScalarVariable>')
        if causality == "output":
            outputs.append(f'<Unknown index="{k}"/>')
    if step is not None:
        rows.append(f'<ScalarVariable name="fixedStepSize" valueReference="{len(variables) + 1}" '
                    f'causality="parameter" variability="fixed"><Real unit="s" start="{step!r}"/></ScalarVariable>')
    vendor = (f'<VendorAnnotations><Tool name="fmu_build"><Build backend="native" fixedStepSize="{step!r}" '
              'integrator="IMEX2"/></Tool></VendorAnnotations>') if step is not None else ""
    unit_defs = "".join(f'<Unit name="{u}"/>' for u in units + (["s"] if step is not None and "s" not in units else []))
    xml = (f'<?xml version="1.0" encoding="UTF-8"?>\n<fmiModelDescription fmiVersion="2.0" modelName="{path.stem}" '
           'guid="{00000000-0000-0000-0000-000000000001}" '
           'variableNamingConvention="flat" numberOfEventIndicators="0">'
           f'<CoSimulation modelIdentifier="{path.stem}"/>'
           + (f"<UnitDefinitions>{unit_defs}</UnitDefinitions>" if unit_defs else "") + vendor
           + f"<ModelVariables>{''.join(rows)}</ModelVariables>"
           + f"<ModelStructure>{f'<Outputs>{chr(10).join(outputs)}</Outputs>' if outputs else ''}</ModelStructure>"
           + "</fmiModelDescription>\n")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("modelDescription.xml", xml)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return path


def with_entries(fmu: Path, out: Path, entries: dict[str, bytes]) -> Path:
    """A copy of the archive ``fmu`` at ``out`` with ``entries`` added."""
    with zipfile.ZipFile(fmu) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item))
        for name, data in entries.items():
            target.writestr(name, data)
    return out


def edited_ssp(ssp: Path, out: Path, edit=None, replace: dict[str, bytes] | None = None,
               add: dict[str, bytes] | None = None) -> Path:
    """A copy of ``ssp`` at ``out`` with its SSD passed through ``edit(bytes) -> bytes``, entries replaced
    (name -> bytes) and entries added."""
    replace = replace or {}
    with zipfile.ZipFile(ssp) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = replace.get(item.filename, source.read(item))
            if item.filename == SSD_FILE and edit is not None:
                data = edit(data)
            target.writestr(item.filename, data)
        for name, data in (add or {}).items():
            target.writestr(name, data)
    return out


def claim_size(archive: Path, entry: str, size: int) -> Path:
    """Make the central directory of ``archive`` claim that ``entry`` unpacks to ``size`` bytes (nothing
    that large is written: the header lies)."""
    data = bytearray(archive.read_bytes())
    name = entry.encode()
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        length = int.from_bytes(data[at + 28:at + 30], "little")
        if bytes(data[at + 46:at + 46 + length]) == name:
            data[at + 24:at + 28] = size.to_bytes(4, "little")
            archive.write_bytes(bytes(data))
            return archive
        at = data.find(b"PK\x01\x02", at + 4)
    raise KeyError(entry)
