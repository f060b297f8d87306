"""A user's own Modelica package on the Modelica path (MODELICAPATH, --modelica-path): the worked example
examples/MyVan (a front axle with a progressive spring and a digressive damper: new equations, no C
written) builds natively, reproduces rumoca's simulation of the same Modelica and shows the physics its
laws predict; a new variable bound in its declaration builds too."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from fmu_build.cli import main
from fmu_build.modelica import use_modelica_path
from fmu_helpers import input_signals, nrmse, replay, write_package

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
VEHICLE_INPUTS = ["steeringWheelAngle", "throttle", "brakePedal"] + [f"roadHeight[{k}]" for k in range(1, 5)]
SETTLED = (1.0, 1.45)   # BumpRide: the van has settled on its springs, the bump comes at 1.5 s
STATIC = ["sprungMass", "g", "chassis.wheelbase", "chassis.cogToFrontAxle", "frontAxle.springPreload",
          "frontAxle.springRate", "frontAxle.progression"]


@pytest.fixture(autouse=True)
def _no_leftover_path():
    yield
    use_modelica_path([])


@pytest.fixture(scope="module")
def my_van(tmp_path_factory, fmu_cache):
    """MyVan.MyVan built through $MODELICAPATH, as the example's documentation says."""
    out = tmp_path_factory.mktemp("my-van")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MODELICAPATH", str(EXAMPLES))
        code = main(["MyVan.MyVan", "--backend", "native", "--fmi-type", "cs", "-o", str(out),
                     "--cache-dir", str(fmu_cache)])
    assert code == 0
    return out / "MyVan_MyVan.fmu"


@pytest.fixture(scope="module")
def bump_ride():
    """rumoca's simulation of the example's harness MyVan.BumpRide (explicit adaptive solver, see
    fmu_helpers.rumoca_vehicle_example)."""
    import rumoca

    from fmu_build.modelica import load_model

    use_modelica_path([EXAMPLES])
    try:
        return load_model("MyVan.BumpRide").simulate(t=(0.0, 2.5), dt=0.005, config=rumoca.SimConfig(solver="rk-like"))
    finally:
        use_modelica_path([])


@pytest.fixture(scope="module")
def my_van_model():
    """rumoca's flattening of MyVan.MyVan found through $MODELICAPATH (one for the tests that read it)."""
    from fmu_build.modelica import load_model

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MODELICAPATH", str(EXAMPLES))
        return load_model("MyVan.MyVan")


def _ride(fmu: Path, reference, outputs: list[str]) -> dict[str, np.ndarray]:
    """The FMU driven by the harness's inputs as rumoca computed them."""
    return replay(fmu, input_signals(reference, "vehicle.", VEHICLE_INPUTS), outputs,
                  start_values={"initialSpeed": float(reference["vehicle.vx"][0])})


def test_modelicapath_and_the_flag_build_the_same_fmu(my_van, tmp_path, fmu_cache, monkeypatch, capsys):
    assert my_van.is_file()
    monkeypatch.delenv("MODELICAPATH", raising=False)
    out = tmp_path / "out"
    assert main(["MyVan.MyVan", "--modelica-path", str(EXAMPLES), "--backend", "native", "--fmi-type", "cs",
                 "-o", str(out), "--cache-dir", str(fmu_cache)]) == 0
    assert (out / "MyVan_MyVan.fmu").read_bytes() == my_van.read_bytes()
    assert main(["MyVan.MyVan", "--backend", "native", "-o", str(out)]) == 1
    assert "package 'MyVan' not found on the Modelica path" in capsys.readouterr().err


def test_my_van_reproduces_rumocas_simulation_of_its_modelica(my_van, bump_ride):
    import fmpy

    outputs = [v.name for v in fmpy.read_model_description(str(my_van)).modelVariables if v.causality == "output"]
    assert {"ax", "pitch", "Fz[1]", "wheelTravel[1]", "wheelTravel[3]", "speed"} <= set(outputs)
    result = _ride(my_van, bump_ride, outputs)
    errors = {name: nrmse(np.asarray(bump_ride[f"vehicle.{name}"]), result[name]) for name in outputs}
    worst = max(errors, key=errors.get)
    assert errors[worst] <= 0.01, f"{worst} NRMSE {errors[worst]:.2%} (all: {errors})"


def test_progressive_spring_sets_the_ride_height_its_law_predicts(my_van, rtm_fmu, bump_ride):
    """The static front spring load W = sprung mass share on one front wheel. The base van's QuadLeaf
    stiffness map carries it at design (travel ~0); ProgressiveAxle's spring (preload 6000 N, 35 N/mm,
    progressive in bump) at the root of preload + rate*s + progression*max(s, 0)^2 = W, ~12 mm into bump,
    where a linear spring of the same rate would sit ~17 mm in. Both vans are driven at 36 km/h, whose
    small load changes (drag, rolling resistance) move them by a few tenths of a mm."""
    time = np.asarray(bump_ride.time)
    settled = (time >= SETTLED[0]) & (time <= SETTLED[1])
    travels = ["wheelTravel[1]", "wheelTravel[2]", "wheelTravel[3]"]
    mine = _ride(my_van, bump_ride, travels + STATIC)
    base_map = [f"frontAxleData.stiffness.{field}[{k}]" for field in ("travel", "parallelForce") for k in range(1, 10)]
    base = _ride(rtm_fmu, bump_ride, travels + base_map)
    p = {name: float(mine[name][0]) for name in STATIC}
    load = p["sprungMass"]*p["g"]*(p["chassis.wheelbase"] - p["chassis.cogToFrontAxle"])/(2*p["chassis.wheelbase"])
    law = lambda s: (p["frontAxle.springPreload"] + p["frontAxle.springRate"]*s  # noqa: E731
                     + p["frontAxle.progression"]*max(s, 0.0)**2 - load)
    predicted = brentq(law, -0.1, 0.1)
    linear = (load - p["frontAxle.springPreload"])/p["frontAxle.springRate"]
    grid, force = (np.array([base[n][0] for n in base_map[k:k + 9]]) for k in (0, 9))
    at_design = brentq(lambda s: np.interp(s, grid, force) - load, grid[0], grid[-1])
    assert 0.010 < predicted < 0.014 and linear - predicted > 0.003 and abs(at_design) < 1e-4
    for wheel in ("wheelTravel[1]", "wheelTravel[2]"):
        ride = float(np.mean(mine[wheel][settled]))
        base_ride = float(np.mean(base[wheel][settled]))
        assert base_ride == pytest.approx(at_design, abs=0.75e-3), (wheel, base_ride)
        assert ride == pytest.approx(predicted, abs=0.75e-3), (wheel, ride, predicted, linear)
        assert ride - base_ride == pytest.approx(predicted - at_design, abs=1e-3), (wheel, ride, base_ride)
    # the rear axle kept its maps: it sits where the base van's does
    assert np.mean(mine["wheelTravel[3]"][settled]) == pytest.approx(np.mean(base["wheelTravel[3]"][settled]), abs=1e-3)


def test_digressive_damper_follows_its_two_slopes_through_the_bump(bump_ride):
    """rumoca's run of the example (which the FMU reproduces, above): over the bump the front dampers
    run well past the knee, and their force is lowSpeedDamping*v inside it and continues with
    highSpeedDamping outside, not the QuadLeaf damper map."""
    velocity = np.asarray(bump_ride["vehicle.frontAxle.damperVelocity[1]"])
    force = np.asarray(bump_ride["vehicle.frontAxle.damperForce[1]"])
    low, high, knee = 12000.0, 3000.0, 0.1   # ProgressiveAxle's defaults
    assert velocity.max() > 3*knee and velocity.min() < -3*knee
    expected = np.where(np.abs(velocity) <= knee, low*velocity, np.sign(velocity)*(low*knee + high*(np.abs(velocity) - knee)))
    assert np.max(np.abs(force - expected)) < 1e-6*np.max(np.abs(force))
    fast = np.abs(velocity) > 3*knee
    assert np.all(np.abs(force[fast]) < 0.6*low*np.abs(velocity[fast]))   # digressive: far below the low-speed line


PROBE = """model StiffRig
  extends VehicleRTM.QuarterCars.KCRig;
  output Real extra(unit = "m");
  output Real doubled(unit = "m") = 2*z "declaration equation of a new variable";
  output Real pair[2](each unit = "m") = {z, -3*z} "an array one";
equation
  extra = 2*z;
end StiffRig;
"""


def test_new_variables_by_equation_or_by_declaration_build_natively(tmp_path, fmu_cache):
    """A user class adding variables, one by an equation and two by declaration equations (bindings):
    the native backend generates their C from the Modelica, and each follows its equation."""
    from fmpy import simulate_fmu

    write_package(tmp_path / "lib", "Probe", {"StiffRig": PROBE})
    out = tmp_path / "out"
    assert main(["Probe.StiffRig", "--modelica-path", str(tmp_path / "lib"), "--backend", "native", "--fmi-type", "cs",
                 "-o", str(out), "--cache-dir", str(fmu_cache)]) == 0
    result = simulate_fmu(out / "Probe_StiffRig.fmu", stop_time=0.2, output_interval=0.01,
                          output=["z", "extra", "doubled", "pair[1]", "pair[2]"])
    assert np.ptp(result["z"]) > 1e-4   # the rig moves, so the comparisons below can fail
    assert result["extra"] == pytest.approx(2 * result["z"], abs=1e-12)
    assert result["doubled"] == pytest.approx(2 * result["z"], abs=1e-12)
    assert result["pair[1]"] == pytest.approx(result["z"], abs=1e-12)
    assert result["pair[2]"] == pytest.approx(-3 * result["z"], abs=1e-12)


def test_open_sized_axle_maps_have_no_defaults_and_take_their_size_from_the_variant():
    """Audit item 1: OpenModelica sizes a ':' array from its own default when it has one."""
    records = Path(__file__).resolve().parents[1] / "modelica" / "VehicleRTM" / "Suspensions"
    for name in ("KinematicMaps", "ComplianceMaps", "StiffnessMaps", "DamperMap", "StopMap"):
        text = (records / f"{name}.mo").read_text()
        assert not re.search(r"\[:\]\s*=", text), name
        assert not re.search(r"\[size\(\w+, 1\)(, size\(\w+, 1\))?\]\s*=\s*\{", text), name
    from fmu_build.modelica import load_model

    flat = load_model("VehicleRTM.Vehicles.RTM14DoF").to_dict("flat")["variables"]
    assert flat["frontAxle.data.kinematics.toe"]["dims"] == [9, 9]
    assert flat["frontAxle.data.kinematics.toe"]["binding"]["VarRef"]["name"]["name"] == "frontAxleData.kinematics.toe"
    assert flat["rearAxle.data.bumpStop.force"]["dims"] == flat["rearAxleData.bumpStop.force"]["dims"]


def test_a_redeclared_axle_keeps_the_vans_maps(my_van_model):
    """RTM14DoF's axle modifiers reach a replacement axle (through the constraining clause)."""
    flat = my_van_model.to_dict("flat")["variables"]
    assert "frontAxle.springPreload" in flat and "rearAxle.springPreload" not in flat
    for field in ("kinematics.toe", "damper.force", "stiffness.oppositeForce"):
        assert flat[f"frontAxle.data.{field}"]["binding"]["VarRef"]["name"]["name"] == f"frontAxleData.{field}"


def test_the_one_file_form_is_the_same_van_through_either_path(my_van_model, monkeypatch, capsys):
    """examples/MyVanOneFile.mo, the example as one file (an editor's form, no 'within'): listed through
    --modelica-path, and flattened through MODELICAPATH to the same variables and parameter values as the
    folder package MyVan."""
    from fmu_build.modelica import load_model

    assert main(["list", "MyVanOneFile", "--modelica-path", str(EXAMPLES)]) == 0
    assert capsys.readouterr().out.split() == ["package", "MyVanOneFile", "model", "MyVanOneFile.ProgressiveAxle",
                                               "model", "MyVanOneFile.MyVan", "model", "MyVanOneFile.BumpRide"]
    use_modelica_path([])
    monkeypatch.setenv("MODELICAPATH", str(EXAMPLES))
    one_file, folder = load_model("MyVanOneFile.MyVan"), my_van_model
    flat = [m.to_dict("flat")["variables"] for m in (one_file, folder)]
    assert list(flat[0]) == list(flat[1]) and "frontAxle.progression" in flat[0]
    assert [v["dims"] for v in flat[0].values()] == [v["dims"] for v in flat[1].values()]
    values = [{p.name: p.value for p in m.parameters} for m in (one_file, folder)]
    assert values[0] == values[1] and values[0]["frontAxle.progression"] == 1.0e6


@pytest.mark.slow
def test_the_one_file_form_builds_the_same_van(my_van, tmp_path, fmu_cache, monkeypatch):
    """examples/MyVanOneFile.mo, the example as one file (an editor's form, no 'within'), built through
    MODELICAPATH and through --modelica-path, is the same van as the folder package: same variables, same
    trajectories."""
    import fmpy

    out = tmp_path / "out"
    monkeypatch.setenv("MODELICAPATH", str(EXAMPLES))
    assert main(["MyVanOneFile.MyVan", "--backend", "native", "--fmi-type", "cs", "-o", str(out / "env"),
                 "--cache-dir", str(fmu_cache)]) == 0
    monkeypatch.delenv("MODELICAPATH")
    assert main(["MyVanOneFile.MyVan", "--modelica-path", str(EXAMPLES), "--backend", "native", "--fmi-type", "cs",
                 "-o", str(out / "flag"), "--cache-dir", str(fmu_cache)]) == 0
    one_file = out / "env" / "MyVanOneFile_MyVan.fmu"
    assert (out / "flag" / "MyVanOneFile_MyVan.fmu").read_bytes() == one_file.read_bytes()
    names = [[v.name for v in fmpy.read_model_description(str(f)).modelVariables] for f in (one_file, my_van)]
    assert names[0] == names[1] and "frontAxle.progression" in names[0]
    outputs = ["pitch", "Fz[1]", "wheelTravel[1]", "wheelTravel[3]"]
    runs = [fmpy.simulate_fmu(str(f), stop_time=0.5, output_interval=0.01, output=outputs) for f in (one_file, my_van)]
    assert np.ptp(runs[0]["wheelTravel[1]"]) > 1e-3   # the van settles: the traces can differ
    for name in outputs:
        assert np.array_equal(runs[0][name], runs[1][name]), name
