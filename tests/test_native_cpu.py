"""fmu-build --native (build_fmu(native_cpu=True)): the native backend's C compiled for this machine's CPU.

The flag reaches the compiler, the build cache keeps native and portable builds apart (and native builds
for different CPUs), the model description says the FMU is CPU-specific, and the two builds agree to
round-off. A tiny model, as the other build tests use.
"""
from __future__ import annotations

import shutil
import subprocess
import zipfile

import numpy as np
import pytest
from lxml import etree

fmpy = pytest.importorskip("fmpy")

from fmu_build import build as build_module  # noqa: E402
from fmu_build import cli, native_backend  # noqa: E402
from fmu_build.build import build_fmu, build_key  # noqa: E402
from fmu_build.modelica import find_class, use_modelica_path  # noqa: E402
from fmu_helpers import write_package  # noqa: E402

SPRING = """model Spring "damped oscillator whose derivative is a multiply-add chain"
    parameter Real k = 400 "stiffness per unit mass (1/s2)";
    parameter Real c = 3 "damping per unit mass (1/s)";
    Real x(start = 0.1, fixed = true);
    Real v(start = 0, fixed = true);
    output Real position;
  equation
    der(x) = v;
    der(v) = -k * x - c * v + 0.5 * sin(7 * time);
    position = x;
end Spring;
"""
MODEL = "NativeCpu.Spring"


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    return write_package(tmp_path_factory.mktemp("modelica"), "NativeCpu", {"Spring": SPRING})


@pytest.fixture(scope="module")
def builds(package, fmu_cache, tmp_path_factory):
    """{native_cpu: (FMU, the gcc command lines of its build)}: the portable build first, then the native one
    from the same cache, so serving the portable build for the native request would show here."""
    result = {}
    monkeypatch = pytest.MonkeyPatch()
    real_run = subprocess.run
    for native_cpu in (False, True):
        commands = []

        def recording_run(command, *args, _commands=commands, **kwargs):
            _commands.append([str(part) for part in command])
            return real_run(command, *args, **kwargs)

        monkeypatch.setattr(native_backend.subprocess, "run", recording_run)
        fmu = build_fmu(MODEL, backend="native", fmi_type="cs", modelica_path=[package], cache_dir=fmu_cache,
                        out_dir=tmp_path_factory.mktemp("native" if native_cpu else "portable"), native_cpu=native_cpu)
        assert not build_module.last_build.cached, "the native and the portable build share a cache entry"
        result[native_cpu] = (fmu, [c for c in commands if "-shared" in c])
        monkeypatch.undo()
    return result


def _build_annotation(fmu):
    with zipfile.ZipFile(fmu) as archive:
        root = etree.fromstring(archive.read("modelDescription.xml"))
    return root, root.find("VendorAnnotations/Tool[@name='fmu_build']/Build")


def test_the_flag_reaches_the_compiler_only_when_asked(builds):
    (_, portable), (_, native) = builds[False], builds[True]
    assert len(portable) == 1 and len(native) == 1
    assert "-march=native" in native[0] and "-O3" in native[0]
    assert not any(part.startswith("-march") for part in portable[0])


def test_cache_key_depends_on_the_target_cpu(package, monkeypatch):
    use_modelica_path([package])
    cls = find_class(MODEL)
    portable = build_key(cls, "native", "cs", 1e-3, None, "imex2")
    here = build_key(cls, "native", "cs", 1e-3, None, "imex2", native_cpu=True)
    assert here != portable
    assert here == build_key(cls, "native", "cs", 1e-3, None, "imex2", native_cpu=True)
    # a native build made on another CPU (another -march expansion) is never served here
    monkeypatch.setattr(native_backend, "native_target", lambda: ("othercpu", "0" * 64))
    assert build_key(cls, "native", "cs", 1e-3, None, "imex2", native_cpu=True) not in (here, portable)


def test_model_description_says_the_fmu_is_cpu_specific(builds):
    cpu = native_backend.native_target()[0]
    root, build = _build_annotation(builds[True][0])
    assert build.get("cpu") == "native" and build.get("march") == cpu
    assert f"-march=native = {cpu}" in root.get("description") and "round-off" in root.get("description")
    assert f"-march=native: {cpu}" in root.get("generationTool")
    root, build = _build_annotation(builds[False][0])
    assert build.get("cpu") == "portable" and build.get("march") is None
    assert "march" not in root.get("description") + root.get("generationTool")


@pytest.mark.skipif(not shutil.which("objdump"), reason="objdump (binutils) not installed")
def test_native_binary_uses_the_cpu_s_fused_multiply_add(builds, tmp_path):
    """On a CPU with FMA, gcc -march=native contracts the model's a*b + c into vfmadd; the portable build
    (generic x86-64) has no FMA instruction at all."""
    if "-mfma" not in subprocess.run([native_backend.compiler(), "-march=native", "-E", "-v", "-x", "c", "-"],
                                     input="", capture_output=True, text=True).stderr.split():
        pytest.skip("this CPU has no FMA")

    def fma_count(fmu, folder):
        with zipfile.ZipFile(fmu) as archive:
            name = next(n for n in archive.namelist() if n.startswith("binaries/"))
            library = archive.extract(name, folder)
        disassembly = subprocess.run(["objdump", "-d", library], capture_output=True, text=True, check=True).stdout
        return disassembly.count("vfmadd") + disassembly.count("vfmsub") + disassembly.count("vfnmadd")

    assert fma_count(builds[False][0], tmp_path / "p") == 0
    assert fma_count(builds[True][0], tmp_path / "n") > 0


def test_native_and_portable_builds_agree_to_round_off(builds):
    runs = [fmpy.simulate_fmu(str(builds[native][0]), stop_time=2.0, output_interval=0.01, output=["position"])
            for native in (False, True)]
    scale = np.max(np.abs(runs[0]["position"]))
    assert scale > 0.05
    assert np.max(np.abs(runs[1]["position"] - runs[0]["position"])) <= 1e-9 * scale


def test_help_documents_the_flag(capsys):
    with pytest.raises(SystemExit):
        cli.main(["build", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--native" in text and "NOT portable to other CPUs" in text and "FMA contraction" in text


def test_native_with_openmodelica_is_one_error_line(package, tmp_path, capsys):
    assert cli.main(["build", MODEL, "--backend", "openmodelica", "--native", "--modelica-path", str(package),
                     "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fmu-build: error: --native") and "--backend native" in err[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("native_cpu", [False, True])
def test_export_recompiles_for_the_same_target(builds, native_cpu, tmp_path, monkeypatch):
    """pybridge export compiles the FMU again: a --native FMU stays native (for this machine's CPU), a portable
    one stays portable."""
    from pybridge.rig.export import export_fmu
    from pybridge.parameters import ParameterSet

    commands = []
    real_run = subprocess.run

    def recording_run(command, *args, **kwargs):
        commands.append([str(part) for part in command])
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(native_backend.subprocess, "run", recording_run)
    params = ParameterSet(model=MODEL, scalars={"k": 500.0}, tables={}, metadata={"source": "test_native_cpu"})
    baked = export_fmu(params, builds[native_cpu][0], tmp_path / "baked.fmu")
    compiles = [c for c in commands if "-shared" in c]
    assert len(compiles) == 1 and ("-march=native" in compiles[0]) == native_cpu
    _, build = _build_annotation(baked)
    assert build.get("cpu") == ("native" if native_cpu else "portable")
    assert build.get("march") == (native_backend.native_target()[0] if native_cpu else None)
