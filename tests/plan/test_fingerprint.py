"""Live fingerprints and digests: stable for equal state, and naming what changed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from reconciler.errors import UserError
from reconciler.plan.fingerprint import changed_addresses, check_fresh, live_fingerprint
from reconciler.plan.planner import build_plan
from reconciler.state import Member, Role
from tests.plan.world import ANALYST_PRIVILEGES, NOW, hq_desired, hq_live


def test_fingerprint_is_stable_for_equal_state() -> None:
    one, two = hq_live(), hq_live()
    # Same state reached in another order and with sets built differently.
    two.members = dict(reversed(list(two.members.items())))
    two.roles["Analyst"] = replace(
        two.roles["Analyst"], privileges=frozenset(sorted(ANALYST_PRIVILEGES))
    )
    assert live_fingerprint(one) == live_fingerprint(two)
    assert live_fingerprint(one).startswith("sha256:")


def test_fingerprint_changes_when_live_changes() -> None:
    live = hq_live()
    before = live_fingerprint(live)
    live.members["bob"] = Member("bob", "org_publisher", 2)
    assert live_fingerprint(live) != before


def planned() -> tuple[dict[str, str], list[str]]:
    desired = hq_desired()
    desired.members = {"alice": Member("alice", "Analyst")}
    plan = build_plan(desired, hq_live(), now=NOW)
    return dict(plan.liveDigests), sorted(plan.liveDigests)


def test_nothing_changed_names_nothing() -> None:
    digests, _ = planned()
    assert changed_addresses(digests, hq_live()) == []


def test_a_touched_resource_that_changed_is_named() -> None:
    digests, keys = planned()
    assert "Member/alice" in keys
    live = hq_live()
    live.members["alice"] = Member("alice", "org_publisher", 2)
    assert changed_addresses(digests, live) == ["Member/alice"]


def test_an_untouched_change_is_named_by_its_kind() -> None:
    digests, _ = planned()
    live = hq_live()
    live.roles["New"] = Role("New", "n", frozenset(), id="r9")
    assert changed_addresses(digests, live) == ["Role/*"]


def test_a_portal_change_is_named() -> None:
    digests, _ = planned()
    live = hq_live()
    live.portal = replace(live.portal, name="Head office")
    assert changed_addresses(digests, live) == ["Portal"]


def test_the_licensed_quotas_are_not_part_of_the_state_compared() -> None:
    """A reviewer cannot read them, the administrator applying its plan can."""
    digests, _ = planned()
    live = hq_live()
    live.portal = replace(live.portal, levelQuotas={}, levelQuotasUnread="rita may not")
    assert changed_addresses(digests, live) == []


def test_a_fresh_plan_passes_and_a_stale_one_names_the_change() -> None:
    desired = hq_desired()
    desired.members = {"alice": Member("alice", "Analyst")}
    plan = build_plan(desired, hq_live(), now=NOW)
    check_fresh(plan, hq_live())
    live = hq_live()
    live.members["alice"] = Member("alice", "org_publisher", 2)
    with pytest.raises(UserError, match=r"stale plan: .* changed: Member/alice\. Run orgctl plan"):
        check_fresh(plan, live)
