"""The identification's internal step chosen per parameter set, on the RTM's RK4 build (issue 27, item 1): the
shipped van keeps 10 ms; the van with its tyres' relaxation lengths shortened to 0.05 m, whose nominal
evaluation diverges at 10 ms, gets a shorter step at which it does not. Slow: it builds the RK4 FMU (about
2.5 min cold) and runs the nominal evaluation of the shipped objective at 1 ms and the chosen steps."""
from __future__ import annotations

from pathlib import Path

import pytest

from pybridge.identify.step_choice import MARGIN

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rk4(fmu_cache, tmp_path_factory):
    from fmu_build import build_fmu
    from pybridge.convert import convert_mbm
    from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR

    fmu = build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native", fmi_type="cs",
                    integrator=IDENTIFICATION_INTEGRATOR, out_dir=tmp_path_factory.mktemp("rk4"), cache_dir=fmu_cache)
    return fmu, convert_mbm(SHIPPED / "mbm", fmu=fmu)


def _short(params):
    """The van with both relaxation lengths 0.05 m at FNOMIN (the scale factors LSGKP, LSGAL of its .tir)."""
    short = params.with_values({})
    for axle in ("frontTire", "rearTire"):
        short.scalars[f"{axle}.LSGKP"] *= 0.05 / 0.7011
        short.scalars[f"{axle}.LSGAL"] *= 0.05 / 0.5851
    return short


def test_the_van_keeps_10_ms_and_a_short_relaxation_length_gets_a_step_it_can_take(rk4):
    from pybridge.identify.problem import VehicleProblem

    fmu, params = rk4
    van = VehicleProblem(params, SHIPPED, fmu)
    choice = van.choose_step()
    assert choice["step_s"] == 10e-3 and choice["checked"][0]["fitness_difference_percent"] < 0.5
    short = VehicleProblem(_short(params), SHIPPED, fmu)
    assert short.internal_step == 10e-3
    failed = short.evaluate(short.nominal).failed
    assert failed and all(why.startswith("diverged at t = ") for why in failed.values()), failed
    choice = short.choose_step()
    assert choice["step_s"] < 10e-3 and short.internal_step == choice["step_s"]
    assert choice["modes"][0]["rate"] * choice["rule_s"] <= MARGIN
    assert not short.start_check().failed
