"""The depth of an answer judged on what was parsed (`deeper_than`) is the depth its text
shows (`nested_deeper`, which peels brackets before parsing): the two agree on any JSON,
strings holding brackets, quotes and escapes included."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.live.envelopes import deeper_than, nested_deeper

SCALARS = st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:', max_size=6)
VALUES: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='[]{}"\\k', max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, derandomize=True)
@given(VALUES)
def test_the_parsed_depth_is_the_depth_of_the_text(value: Any) -> None:
    text = json.dumps(value).encode()
    for depth in range(8):
        assert deeper_than(value, depth) == nested_deeper(text, depth), (value, depth)


def test_the_limit_counts_the_outermost_container_as_one_level() -> None:
    assert not deeper_than({"a": [1]}, 2)
    assert deeper_than({"a": [[1]]}, 2)
    assert not deeper_than("scalar", 0)
