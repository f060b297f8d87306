"""The conversion picks the RTM14DoF variant from the data set (pybridge.convert_variant): front and rear
records and tyres per rear wheel station, from mbm_summary.yaml's ``suspension`` or the data set's files,
a user's override winning; a wrong key or value is one line naming the file (or flag) and the key."""
from __future__ import annotations

import dataclasses

import pytest

from conftest import REPO
from pybridge.cli import main
from pybridge.convert import convert_mbm
from pybridge.convert_variant import choose_variant, parse_override
from pybridge.mbm.dataset import ConversionError, read_mbm

LCV35 = REPO / "scenarios" / "mbm" / "lcv35" / "mbm"
LCV70 = REPO / "scenarios" / "mbm" / "lcv70" / "mbm"
SEVEN_TONNE = {"front": "quadtor", "rear": "multileaf", "rear_tyres_per_wheel": 2}


@pytest.fixture(scope="module")
def van():
    return read_mbm(LCV35)


def _with_suspension(data, suspension):
    return dataclasses.replace(data, summary={**data.summary, "suspension": suspension})


def test_the_3_5_t_data_set_is_quadleaf_single_leaf_single_tyres(van):
    variant = choose_variant(van)
    assert (variant.front, variant.rear, variant.rear_tyres_per_wheel) == ("quadleaf", "singleleaf", 1)
    assert variant.model == "VehicleRTM.Vehicles.RTM14DoF"
    assert "front_leaf.spr" in variant.reasons["front"]


def test_the_summary_says_what_the_data_set_is(van):
    variant = choose_variant(_with_suspension(van, SEVEN_TONNE))
    assert (variant.front, variant.rear, variant.rear_tyres_per_wheel) == ("quadtor", "multileaf", 2)
    assert variant.model == "VehicleRTM.Vehicles.Variants.QuadTorMultiLeaf"
    assert variant.reasons["rear"] == "mbm_summary.yaml suspension.rear"


def test_the_7_t_data_set_is_quadtor_multi_leaf_dual_tyres():
    variant = choose_variant(read_mbm(LCV70))
    assert (variant.front, variant.rear, variant.rear_tyres_per_wheel) == ("quadtor", "multileaf", 2)
    assert variant.model == "VehicleRTM.Vehicles.Variants.QuadTorMultiLeaf"


def test_a_user_override_wins_over_the_summary(van):
    override = parse_override("front=quadleaf, rear_tyres_per_wheel=1")
    variant = choose_variant(_with_suspension(van, SEVEN_TONNE), override)
    assert (variant.front, variant.rear, variant.rear_tyres_per_wheel) == ("quadleaf", "multileaf", 1)
    assert variant.model == "VehicleRTM.Vehicles.Variants.QuadLeafMultiLeaf"
    assert variant.reasons["front"] == "asked for by the user"


@pytest.mark.parametrize("suspension, message", [
    ({"front": "quadbar"}, r"mbm_summary.yaml: suspension: front: 'quadbar' — expected one of quadleaf, quadtor$"),
    ({"rear_tyres_per_wheel": 3}, r"mbm_summary.yaml: suspension: rear_tyres_per_wheel: 3 — expected one of 1, 2$"),
    ({"axle": "quadtor"}, r"mbm_summary.yaml: suspension.axle: unknown key — expected only front, rear, "),
    ("quadtor", r"mbm_summary.yaml: suspension: 'quadtor' — expected a mapping"),
])
def test_a_wrong_variant_key_is_one_line_naming_file_and_key(van, suspension, message):
    with pytest.raises(ConversionError, match=message) as error:
        choose_variant(_with_suspension(van, suspension))
    assert "\n" not in str(error.value)


def test_a_wrong_override_flag_is_one_line_exit_2(tmp_path, capsys):
    code = main(["convert", str(LCV35), "-o", str(tmp_path / "set"), "--variant", "rear=multi"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and "--variant: rear: 'multi' — expected one of singleleaf, multileaf" in err
    assert not (tmp_path / "set").exists()


def test_conversion_fills_the_variant_model(native_fmu):
    model = "VehicleRTM.Vehicles.Variants.QuadTorMultiLeaf"
    params = convert_mbm(LCV70, fmu=native_fmu(model))   # the build test_demo_lcv70.py uses too
    assert params.model == model
    assert params.scalars["chassis.rearTiresPerWheel"] == 2
    assert params.metadata["variant"]["rear_record"] == "VehicleRTM.Suspensions.SolidAxleMultiLeaf"
    assert "mbm_summary.yaml suspension.rear_tyres_per_wheel" in params.origins["chassis.rearTiresPerWheel"]
    assert params.metadata["derived"]["rearAxleData.springFriction"]["value"] > 100   # the pack's friction, N
