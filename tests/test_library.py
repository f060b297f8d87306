"""Structure of the Modelica library: layout, documentation, units, and every model balanced in rumoca."""
from __future__ import annotations

import re

import pytest

from fmu_build.modelica import LIBRARY_DIR, LIBRARY_NAME, library_classes, load_model

CLASSES = library_classes()
MODELS = [c for c in CLASSES if c.kind in ("model", "block") and not c.partial]
ROOT = LIBRARY_DIR / LIBRARY_NAME


def test_every_package_folder_has_package_mo_and_a_complete_package_order():
    for folder in [ROOT, *[p for p in ROOT.rglob("*") if p.is_dir()]]:
        assert (folder / "package.mo").is_file(), f"{folder}: missing package.mo"
        order = (folder / "package.order").read_text().split()
        members = sorted([p.stem for p in folder.glob("*.mo") if p.name != "package.mo"]
                         + [p.name for p in folder.iterdir() if p.is_dir()])
        assert sorted(order) == members, f"{folder}/package.order lists {sorted(order)}, folder has {members}"


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_every_class_is_documented_and_uses_no_msl(cls):
    text = cls.path.read_text()
    assert "Documentation(info" in text, f"{cls.path}: no Documentation(info=...) annotation"
    assert not re.search(r"\bModelica\.", text), f"{cls.path}: depends on the Modelica Standard Library"


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.name)
def test_every_model_is_balanced_and_every_real_variable_has_a_unit(cls):
    model = load_model(cls.name)
    info = model.structure()
    assert info.is_balanced, f"{cls.name}: {info.n_equations} equations for {info.n_unknowns} unknowns"
    flat = model.to_dict("flat")["variables"]
    missing = [name for name, var in flat.items() if not var["is_discrete_type"] and not var["unit"]]
    assert not missing, f"{cls.name}: Real variables without unit: {missing[:10]}"
