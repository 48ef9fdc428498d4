"""A member listing's entry reads as the general conversions read it: the shortcuts for
what portals answer (a level "2", a plain username) change no value and no error."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.errors import LiveRecordError
from reconciler.kinds.members.live import member
from reconciler.values import integer

LEVELS: list[Any] = [
    "2",
    2,
    "1",
    "02",
    "2.0",
    2.0,
    " 2 ",
    "",
    None,
    "١",
    "²",
    "2.5",
    "two",
    True,
    3.5,
    [2],
]


@pytest.mark.parametrize("level", LEVELS, ids=repr)
def test_a_level_reads_as_the_integer_conversion_reads_it(level: Any) -> None:
    entry = {"username": "alice", "role": "org_user", "level": level}
    try:
        expected = integer(level)
    except (ValueError, TypeError):
        with pytest.raises(LiveRecordError, match="Member/alice"):
            member(entry, {})
        return
    assert member(entry, {}).level == expected


@pytest.mark.parametrize("username", ["", None, True, ["a"], {"a": 1}, "..", "a/b"])
def test_an_unusable_username_makes_the_entry_unreadable(username: Any) -> None:
    with pytest.raises(LiveRecordError):
        member({"username": username, "role": "org_user"}, {})


def test_a_username_is_taken_as_written() -> None:
    assert member({"username": "Alice.Smith_2", "role": "org_user"}, {}).username == (
        "Alice.Smith_2"
    )
