"""A kind's own state: a typed slot per `StateKey`, beside the state's own fields."""

from __future__ import annotations

from reconciler.kinds.policy import POLICIES, declared
from reconciler.state import DesiredState, StateKey
from tests.plan.world import hq_target


def test_a_slot_is_made_empty_on_first_use_and_kept() -> None:
    desired = DesiredState(hq_target())
    notes: StateKey[dict[str, str]] = StateKey("Note", dict)
    assert not desired.has(notes)
    desired.get(notes)["hello"] = "world"
    assert desired.has(notes)
    assert desired.get(notes) == {"hello": "world"}
    desired.put(notes, {})
    assert desired.get(notes) == {}


def test_two_kinds_keys_of_one_name_never_share_a_slot() -> None:
    desired = DesiredState(hq_target())
    first: StateKey[list[str]] = StateKey("Note", list)
    second: StateKey[list[str]] = StateKey("Note", list)
    desired.get(first).append("a")
    assert desired.get(second) == []


def test_the_policy_kind_keeps_its_policies_in_its_slot() -> None:
    desired = DesiredState(hq_target())
    assert declared(desired) == []
    assert not desired.has(POLICIES)  # asking what is declared adds no slot
