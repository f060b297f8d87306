"""Closed loop on libcosim, short form of the ADAS example: the van FMU and VehicleRTM.ADAS.AdaptiveCruise
(built by fmu-build, native backend) in one SSP system; the lead vehicle slows from 20 to 15 m/s
between 2 and 6 s.

Checks: libcosim = the same Jacobi loop stepped by fmpy (round-off); libcosim vs the monolithic loop
(no coupling delay) within the one-step delay's bound, with the difference halving with the step
(first order in h, as a one-step delay is); physics (speed change = integral of ax, the van
follows the lead without closing below the standstill gap)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("libcosimpy", reason="libcosimpy (PyPI) is not installed")

from pybridge.cli import main  # noqa: E402
from pybridge.rig.cosim import cosimulate, python_master  # noqa: E402
from pybridge.parameters import ParameterSet  # noqa: E402
from pybridge.rig.ssp import Component, Connection, validate_ssp, write_ssp  # noqa: E402

ACC = "VehicleRTM.ADAS.AdaptiveCruise"
STOP = 8.0
WIRES = [("vehicle", "speed", "acc", "speed"), ("acc", "throttle", "vehicle", "throttle"),
         ("acc", "brakePedal", "vehicle", "brakePedal")]


@pytest.fixture(scope="module")
def acc_fmu(native_fmu):
    return native_fmu(ACC, "cs")


@pytest.fixture(scope="module")
def system(rtm_fmu, acc_fmu, tmp_path_factory):
    van = ParameterSet(model="VehicleRTM.Vehicles.RTM14DoF", scalars={"initialSpeed": 20.0})
    path = write_ssp(tmp_path_factory.mktemp("acc") / "acc.ssp",
                     [Component("vehicle", rtm_fmu, van), Component("acc", acc_fmu)],
                     [Connection(*w) for w in WIRES], name="acc", stop_time=STOP, step=2e-3)
    assert validate_ssp(path) == []
    return path


@pytest.fixture(scope="module")
def runs(system):
    """libcosim and the monolithic (Gauss-Seidel) loop at h = 2 ms and 1 ms."""
    result = {}
    for h in (2e-3, 1e-3):
        result["libcosim", h] = cosimulate(system, STOP, h).trace
        result["monolithic", h] = python_master(system, STOP, h, "gauss-seidel")
    return result


def test_libcosim_is_the_jacobi_loop_to_round_off(system, runs):
    engine = runs["libcosim", 2e-3]
    jacobi = python_master(system, STOP, 2e-3, "jacobi")
    assert set(jacobi.columns) == set(engine.columns)
    for channel in ("vehicle.speed", "vehicle.ax", "vehicle.pitch", "acc.gap", "acc.throttle", "acc.brakePedal"):
        scale = max(np.max(np.abs(engine[channel])), 1e-3)
        assert np.max(np.abs(jacobi[channel] - engine[channel])) <= 1e-9 * scale, channel


def test_closed_loop_matches_the_monolithic_loop_within_the_coupling_delay(runs):
    """Tolerance: the one-step delay of the controller's feed-through shifts the loop by about one
    step, so |libcosim - monolithic| <= 5 h max|dy/dt| (measured: 0.7 h for the speed, 1.8 h for the
    gap); and the difference is first order in h (halving the step halves it)."""
    differences = {}
    for h in (2e-3, 1e-3):
        engine, monolithic = runs["libcosim", h], runs["monolithic", h]
        for channel in ("vehicle.speed", "acc.gap"):
            rate = np.max(np.abs(np.gradient(engine[channel], engine["time"])))
            differences[channel, h] = np.max(np.abs(engine[channel] - monolithic[channel]))
            assert differences[channel, h] <= 5 * h * rate, (channel, h)
            assert differences[channel, h] > 0   # the delay is real: the two schemes are not the same loop
    for channel in ("vehicle.speed", "acc.gap"):
        assert 0.4 <= differences[channel, 1e-3] / differences[channel, 2e-3] <= 0.6, channel


def test_closed_loop_physics(runs):
    trace = runs["libcosim", 1e-3]
    t, v, ax = trace["time"].to_numpy(), trace["vehicle.speed"].to_numpy(), trace["vehicle.ax"].to_numpy()
    # the van's speed change is the integral of its longitudinal acceleration (straight ahead)
    window = (t >= 2.0) & (t <= 6.0)
    assert np.trapezoid(ax[window], t[window]) == pytest.approx(v[window][-1] - v[window][0], rel=0.02)
    # the controller does its job: the van slows with the lead and never closes in below the standstill gap
    assert trace["acc.gap"].min() > 5.0
    assert v[-1] < 16.0 and abs(v[-1] - trace["acc.leadSpeed"].iloc[-1]) < abs(v[0] - 15.0)
    assert trace["acc.brakePedal"].max() > 0 and trace["acc.throttle"].iloc[-1] > 0   # braked, then holds speed


@pytest.fixture(scope="module")
def cli_system(rtm_fmu, acc_fmu, tmp_path_factory):
    """The README's path: ``pybridge export`` of a parameter set into an SSP with the controller."""
    folder = tmp_path_factory.mktemp("cli")
    ParameterSet(model="VehicleRTM.Vehicles.RTM14DoF", scalars={"chassis.Izz": 4500.0}).write(folder / "set")
    ssp = folder / "acc.ssp"
    assert main(["export", "--params", str(folder / "set"), "--fmu", str(rtm_fmu), "-o", str(folder / "van.fmu"),
                 "--ssp", str(ssp), "--stop", "1", "--component", f"acc={acc_fmu}",
                 "--set", "vehicle.initialSpeed=20", "--set", "acc.timeGap=1.8",
                 *[a for w in WIRES for a in ("--connect", f"{w[0]}.{w[1]}={w[2]}.{w[3]}")], "--quiet"]) == 0
    return folder, ssp


def test_export_command_writes_fmu_and_ssp(cli_system):
    from pybridge.rig.ssp import read_ssv

    folder, ssp = cli_system
    assert validate_ssp(ssp) == []
    import zipfile

    with zipfile.ZipFile(ssp) as archive:
        archive.extractall(folder / "unpacked")
    assert read_ssv(folder / "unpacked" / "resources" / "acc.ssv").scalars == {"timeGap": 1.8}
    assert read_ssv(folder / "unpacked" / "resources" / "vehicle.ssv").scalars == {"chassis.Izz": 4500.0,
                                                                                  "initialSpeed": 20.0}
    assert (folder / "van.fmu").is_file()
    with pytest.raises(SystemExit) as stop:   # neither -o nor --ssp
        main(["export", "--params", str(folder / "set"), "--quiet"])
    assert stop.value.code == 2


def test_cosim_command_writes_trace_and_report(cli_system):
    folder, ssp = cli_system
    out = folder / "acc.csv"
    assert main(["cosim", str(ssp), "--stop", "1", "-o", str(out), "--report", str(folder / "report"), "--quiet"]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "# format: vehiclertm-trace 1"
    assert "vehicle.speed [m/s]" in lines[4] and "acc.gap [m]" in lines[4]
    assert lines[5].startswith("0,") and len(lines) == 5 + 1001   # t = 0 .. 1 s at 1 ms
    html = (folder / "report" / "report.html").read_text()
    assert 'content="1"' in html and "data:image/png;base64" in html


def test_real_time_run_is_paced_to_the_wall_clock(cli_system, capsys):
    code = main(["cosim", str(cli_system[1]), "--stop", "0.5", "--real-time", "--quiet"])
    message = capsys.readouterr().out
    assert code in (0, 1) and "paced to the wall clock" in message and "overrun" in message
    wall = float(message.split(" s wall")[0].rsplit(" ", 1)[1])
    assert wall >= 0.45   # 0.5 s of simulated time takes at least about 0.5 s on the wall clock


def test_bad_systems_are_one_error_line(system, tmp_path, capsys):
    import zipfile

    broken = tmp_path / "broken.ssp"
    with zipfile.ZipFile(system) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "SystemStructure.ssd":
                data = data.replace(b'endConnector="throttle"', b'endConnector="throtle"')
            target.writestr(item, data)
    assert main(["cosim", str(broken), "--stop", "1", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "broken.ssp!SystemStructure.ssd:" in error and "vehicle.throtle is not a connector" in error
    assert main(["cosim", str(tmp_path / "missing.ssp"), "--stop", "1", "--quiet"]) == 2
    assert "missing.ssp: not a readable SSP archive" in capsys.readouterr().err
    assert main(["cosim", str(system), "--stop", "0.0015", "--step", "0.001", "--quiet"]) == 2
    assert "must be a positive multiple of the step" in capsys.readouterr().err
