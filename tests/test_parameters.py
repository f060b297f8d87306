"""Parameter set files: round trip, uncertainty bounds, and one validation error per kind of malformed file."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

from pybridge.parameters import FORMAT, ParameterSet, ParameterSetError, read_parameter_set

TOE = "frontAxleData.kinematics.toe"
TRAVEL = "frontAxleData.kinematics.u1"


def sample_set() -> ParameterSet:
    params = ParameterSet(
        model="VehicleRTM.Vehicles.RTM14DoF",
        scalars={"chassis.wheelbase": 3.45, "chassis.Ixx": 1400.0, "chassis.Ixz": -50.0, "g": 0.1 + 0.2},
        tables={TOE: np.arange(81.0).reshape(9, 9) * 1e-4 - 3e-3, TRAVEL: np.linspace(-0.1, 0.1, 9),
                "driveline.row": np.array([[1.0, 2.5, 3.25]])},
        units={"chassis.wheelbase": "m", TOE: "rad", TRAVEL: "m"},
        origins={"chassis.wheelbase": "mbm/mbm_summary.yaml: wheelbase (direct)", TOE: "kc/front_parallel.csv"},
        metadata={"source": "scenarios/mbm/lcv35", "tool": "test"},
    )
    params.mark_uncertain("chassis.Ixx")
    return params


def test_round_trip_gives_an_equal_set(tmp_path):
    params = sample_set()
    path = params.write(tmp_path / "PARAMS")
    again = read_parameter_set(tmp_path / "PARAMS")
    assert again == params
    assert read_parameter_set(path) == params
    assert again.scalars["g"] == 0.1 + 0.2                     # exact, not rounded
    assert again.tables[TRAVEL].shape == (9,) and again.tables["driveline.row"].shape == (1, 3)
    assert np.loadtxt(tmp_path / "PARAMS" / "tables" / f"{TRAVEL}.csv", delimiter=",").shape == (9,)
    assert again.names() == [*params.scalars, *params.tables]
    params.write(tmp_path / "PARAMS")                          # overwriting leaves no temporary files
    assert not [p for p in (tmp_path / "PARAMS").rglob("*") if p.name.endswith(".tmp")]
    document = yaml.safe_load((tmp_path / "PARAMS" / "params.yaml").read_text())
    assert document["format"] == FORMAT and document["tables"][TOE]["shape"] == [9, 9]


def test_default_bounds_are_twenty_percent_and_ordered_for_negative_values():
    params = sample_set()
    assert params.uncertain["chassis.Ixx"] == pytest.approx((1400.0, 1120.0, 1680.0))
    params.mark_uncertain("chassis.Ixz")
    assert params.uncertain["chassis.Ixz"] == pytest.approx((-50.0, -60.0, -40.0))
    params.mark_uncertain("chassis.wheelbase", 0.1)
    assert params.uncertain["chassis.wheelbase"] == pytest.approx((3.45, 3.105, 3.795))
    params.scalars["zero"] = 0.0
    with pytest.raises(ParameterSetError, match="zero"):
        params.mark_uncertain("zero")
    params.mark_uncertain("zero", lower=-1.0, upper=2.0)
    assert params.uncertain["zero"] == (0.0, -1.0, 2.0)
    with pytest.raises(ParameterSetError, match="not a scalar"):
        params.mark_uncertain(TOE)


def test_with_values_replaces_a_copy_and_keeps_uncertain_values_in_bounds():
    params = sample_set()
    changed = params.with_values({"chassis.Ixx": 1600.0, TRAVEL: np.zeros(9)})
    assert changed.scalars["chassis.Ixx"] == 1600.0 and params.scalars["chassis.Ixx"] == 1400.0
    assert not changed.tables[TRAVEL].any() and params.tables[TRAVEL].any()
    assert changed.uncertain == params.uncertain
    for values, message in [({"chassis.Ixx": 1700.0}, "outside its bounds"), ({"nope": 1.0}, "not a parameter"),
                            ({"g": float("nan")}, "finite"), ({TOE: np.zeros((8, 9))}, "shape")]:
        with pytest.raises(ParameterSetError, match=message):
            params.with_values(values)


def _edit_yaml(change):
    def edit(folder):
        path = folder / "params.yaml"
        document = yaml.safe_load(path.read_text())
        change(document)
        path.write_text(yaml.safe_dump(document, sort_keys=False))
    return edit


def _edit_table(text):
    def edit(folder):
        (folder / "tables" / f"{TRAVEL}.csv").write_text(text)
    return edit


MALFORMED = {
    "unknown format": (_edit_yaml(lambda d: d.update(format="other-params 1")), "params.yaml", "format"),
    "unsupported version": (_edit_yaml(lambda d: d.update(format="vehiclertm-params 2")), "params.yaml", "version 2"),
    "missing model": (_edit_yaml(lambda d: d.pop("model")), "params.yaml", "'model'"),
    "scalar without value": (_edit_yaml(lambda d: d["scalars"]["chassis.Ixx"].pop("value")), "params.yaml",
                             "scalars.chassis.Ixx"),
    "table without shape": (_edit_yaml(lambda d: d["tables"][TOE].pop("shape")), "params.yaml", f"tables.{TOE}"),
    "unknown key": (_edit_yaml(lambda d: d["scalars"]["g"].update(scale=2)), "params.yaml", "scale"),
    "text for a number": (_edit_yaml(lambda d: d["scalars"]["g"].update(value="9.81")), "params.yaml",
                          "scalars.g.value"),
    "NaN scalar": (_edit_yaml(lambda d: d["scalars"]["g"].update(value=float("nan"))), "params.yaml", "scalars.g"),
    "table file missing": (lambda folder: (folder / "tables" / f"{TOE}.csv").unlink(), f"{TOE}.csv", "missing"),
    "table file outside": (_edit_yaml(lambda d: d["tables"][TOE].update(file="../x.csv")), "params.yaml", "outside"),
    "declared shape differs": (_edit_yaml(lambda d: d["tables"][TOE].update(shape=[9, 8])), f"{TOE}.csv", "[9, 9]"),
    "table with a row less": (_edit_table("\n".join(["0.1"] * 8)), f"{TRAVEL}.csv", "[8], declared [9]"),
    "NaN in a table": (_edit_table("\n".join(["0.1"] * 4 + ["nan"] + ["0.2"] * 4)), f"{TRAVEL}.csv", "row 5"),
    "text in a table": (_edit_table("\n".join(["0.1"] * 8 + ["abc"])), f"{TRAVEL}.csv", "not a CSV of numbers"),
    "uncertain table": (_edit_yaml(lambda d: d["uncertain"].update({TOE: {"nominal": 0, "lower": -1, "upper": 1}})),
                        "params.yaml", f"uncertain.{TOE}"),
    "uncertain unknown": (_edit_yaml(lambda d: d["uncertain"].update(nope={"nominal": 0, "lower": -1, "upper": 1})),
                          "params.yaml", "uncertain.nope"),
    "nominal outside bounds": (_edit_yaml(lambda d: d["uncertain"]["chassis.Ixx"].update(nominal=2000.0)),
                               "params.yaml", "uncertain.chassis.Ixx"),
    "value outside bounds": (_edit_yaml(lambda d: d["scalars"]["chassis.Ixx"].update(value=2000.0)),
                             "params.yaml", "outside"),
    "not YAML": (lambda folder: (folder / "params.yaml").write_text("format: [unclosed\n"), "params.yaml",
                 "params.yaml:2:1: not valid YAML"),
    "not a mapping": (lambda folder: (folder / "params.yaml").write_text("- 1\n"), "params.yaml", "top level"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_set_is_refused_naming_file_and_key(case, tmp_path):
    edit, file, place = MALFORMED[case]
    folder = tmp_path / "PARAMS"
    sample_set().write(folder)
    edit(folder)
    with pytest.raises(ParameterSetError) as error:
        read_parameter_set(folder)
    assert file in str(error.value) and place in str(error.value), str(error.value)


def test_a_missing_set_is_an_error_naming_the_file(tmp_path):
    with pytest.raises(ParameterSetError, match="params.yaml"):
        read_parameter_set(tmp_path)


def test_a_zero_nominal_gets_the_absolute_range_of_its_unit_and_keeps_its_reason(tmp_path):
    from pybridge.parameters import ZERO_NOMINAL_HALF_WIDTH

    params = ParameterSet(model="M", scalars={"chassis.Ixz": 0.0, "offset": 0.0, "force": 0.0},
                          units={"chassis.Ixz": "kg.m2", "offset": "m", "force": "N"})
    params.mark_uncertain("chassis.Ixz", reason="product of inertia not in the mass table")
    params.mark_uncertain("offset")
    half = ZERO_NOMINAL_HALF_WIDTH["kg.m2"]
    assert params.uncertain == {"chassis.Ixz": (0.0, -half, half), "offset": (0.0, -0.05, 0.05)}
    with pytest.raises(ParameterSetError, match="'force' is 0 with unit 'N'.*give lower and upper"):
        params.mark_uncertain("force")
    params.mark_uncertain("force", lower=-10.0, upper=10.0)
    params.write(tmp_path / "set")
    again = read_parameter_set(tmp_path / "set")
    assert again == params and again.reasons == {"chassis.Ixz": "product of inertia not in the mass table"}


def test_a_parameter_set_is_written_with_libyamls_emitter_as_safe_dump_writes_it(tmp_path, monkeypatch):
    """params.yaml (and the run's result.yaml) go through libyaml's emitter (fileio.dump_yaml): the text
    yaml.safe_dump writes, without PyYAML's Python emitter (6x slower on the van's set)."""
    from pybridge import fileio, parameters

    params = ParameterSet("M", {"a": 0.1 + 0.2, "long.name.of.a.scalar": -3.5e-12}, {"t": np.arange(6.0).reshape(2, 3)},
                          units={"a": "N·m/rad"}, metadata={"note": "ä " + "long words " * 20})
    monkeypatch.setattr(parameters, "dump_yaml", yaml.safe_dump)
    params.write(tmp_path / "python")
    monkeypatch.undo()
    expected = (tmp_path / "python" / "params.yaml").read_text(encoding="utf-8")
    other = {"x": [1, 2.5, "é ± µ", "long words " * 20], "y": {"z": None, "w": True}}
    assert fileio.dump_yaml(other, sort_keys=False) == yaml.safe_dump(other, sort_keys=False)
    monkeypatch.setattr(yaml.emitter.Emitter, "emit", lambda *a: pytest.fail("PyYAML's Python emitter used"))
    params.write(tmp_path / "libyaml")
    assert (tmp_path / "libyaml" / "params.yaml").read_text(encoding="utf-8") == expected
