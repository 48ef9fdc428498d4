"""The member listing's `disabled` and `lastLogin` reach the live state as the portals
answer them, never make a member unreadable, and leave plans untouched."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from reconciler.kinds.members import live
from reconciler.plan.fingerprint import live_fingerprint
from reconciler.state import NEVER_SIGNED_IN, managed_fields

from .portal import member, portal


def listed(**fields: Any) -> dict[str, Any]:
    return {"username": "sam", "role": "org_admin", "level": "2", **fields}


@pytest.mark.parametrize(
    ("answered", "read"),
    [
        (1_767_225_600_000, 1_767_225_600_000),
        ("2026-01-01T00:00:00Z", 1_767_225_600_000),
        (-1, NEVER_SIGNED_IN),
        ("-1", NEVER_SIGNED_IN),
        (None, None),
        ("yesterday", None),
        (True, None),
        (-5, None),
    ],
)
def test_last_login(answered: Any, read: int | None) -> None:
    assert live.member(listed(lastLogin=answered), {}).lastLogin == read


@pytest.mark.parametrize(
    ("answered", "read"), [(True, True), (False, False), ("true", True), (None, None), ("?", None)]
)
def test_disabled(answered: Any, read: bool | None) -> None:
    assert live.member(listed(disabled=answered), {}).disabled is read


def test_a_sign_in_or_a_disabled_account_leaves_the_plan_s_fingerprint() -> None:
    before = portal(member("sam", "org_admin", days_ago=100))
    after = portal(replace(member("sam", "org_admin", days_ago=0), disabled=True))
    assert live_fingerprint(before) == live_fingerprint(after)
    moved = portal(member("sam", "org_user"))
    assert live_fingerprint(before) != live_fingerprint(moved)
    assert managed_fields(member("sam", "org_admin", disabled=True)) == {
        "username": "sam",
        "role": "org_admin",
        "level": 2,
    }
