"""tests/fmu_validation.py's validate_fmu finds exactly the problems fmpy's own variable-name check finds."""
from __future__ import annotations

from types import SimpleNamespace

import fmpy.validation
import pytest

from fmu_validation import _names_by_shape

LEGAL = ["a", "x12_3", "_a", "a[10]", "a.b[1,2].c", "front.kin.toe[3,5]", "der(x)", "der(a.b[3],2)",
         "'quoted.name[1]'", "'a'.b[2]", "a.'b c'"]
ILLEGAL = ["1a", "a..b", "a.", ".a", "a[1.5]", "a b", "der(x", "a[]", "a[-1]", "a.b[01,]", "x\ty", "a.2b",
           "der(x,)", "der(x,1.5)", "'a", "a[1][2]", "a.b(1)", ""]


def _description(names, convention="structured"):
    return SimpleNamespace(variableNamingConvention=convention,
                           modelVariables=[SimpleNamespace(name=n, sourceline=k + 10) for k, n in enumerate(names)])


@pytest.mark.parametrize("convention", ["structured", "flat"])
def test_the_same_problems_as_fmpys_check_word_for_word(convention):
    names = [n for pair in zip(LEGAL + LEGAL, ILLEGAL) for n in pair]
    description = _description(names, convention)
    expected = fmpy.validation._validate_variable_names(description)
    assert len(expected) == (len(ILLEGAL) if convention == "structured" else 1)   # "x\ty" has a tab
    assert _names_by_shape(fmpy.validation._validate_variable_names, description) == expected


def test_each_piece_is_parsed_once():
    names = [f"corner{i}.kin.toe[{i},{j}]" for i in range(1, 5) for j in range(1, 30)]
    seen = []

    def check(description):
        seen.append([v.name for v in description.modelVariables])
        return fmpy.validation._validate_variable_names(description)

    assert _names_by_shape(check, _description(names)) == []
    assert seen == [["corner0", "kin", "toe[0,0]"]]
