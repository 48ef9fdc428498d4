"""`jsontext.indented` writes what `json.dumps(value, indent=2)` writes, byte for byte."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reconciler.jsontext import indented

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
KEYS = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.lists(inner, max_size=5).map(tuple)
        | st.dictionaries(KEYS, inner, max_size=5)
    ),
    max_leaves=40,
)


@given(VALUES)
def test_indented_is_json_dumps_with_an_indent_of_two(value: Any) -> None:
    assert indented(value) == json.dumps(value, indent=2)


@pytest.mark.parametrize(
    "value",
    [
        {"é": 'snow ☃ \u2028 \x00 "q" \\'},
        [math.nan, math.inf, -math.inf, -0.0, 1e300, 10**40],
        {7: "a", 2.5: "b", True: "c", None: "d", False: "e"},
        {"empty": [], "nothing": {}, "nested": [[], [{}]]},
    ],
)
def test_what_json_spells_its_own_way_is_spelt_the_same(value: Any) -> None:
    assert indented(value) == json.dumps(value, indent=2)


def test_values_json_has_no_form_for_are_refused_as_json_dumps_refuses_them() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        indented({"when": object()})
    with pytest.raises(TypeError, match="keys must be"):
        indented({(1, 2): "tuple key"})
    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(ValueError, match="Circular reference"):
        indented(looped)
