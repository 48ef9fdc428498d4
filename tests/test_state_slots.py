"""A kind's own state: a typed slot per `StateKey`, beside the state's own fields."""

from __future__ import annotations

from reconciler.kinds import collaboration
from reconciler.kinds import organization_webhooks as webhooks
from reconciler.kinds import task_run_retention as retention
from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.policy import POLICIES, declared
from reconciler.manifest.desired import load_desired
from reconciler.state import Collaboration, DesiredState, StateKey
from tests.manifest.conftest import EXAMPLES
from tests.plan.world import field_live, hq_target


def test_a_slot_is_made_empty_on_first_use_and_kept() -> None:
    desired = DesiredState(hq_target())
    notes: StateKey[dict[str, str]] = StateKey("Note", dict)
    assert not desired.has(notes)
    desired.get(notes)["hello"] = "world"
    assert desired.has(notes)
    assert desired.get(notes) == {"hello": "world"}
    desired.put(notes, {})
    assert desired.get(notes) == {}


def test_a_copy_with_one_slot_changed_leaves_the_original_as_it_was() -> None:
    # A kind forgetting what it could not read works on such a copy (`Kind.unread`).
    desired = DesiredState(hq_target())
    notes: StateKey[dict[str, str]] = StateKey("Note", dict)
    kept: StateKey[list[str]] = StateKey("Kept", list)
    desired.put(notes, {"hello": "world"})
    desired.put(kept, ["a"])
    copy = desired.with_slot(notes, {})
    assert copy.get(notes) == {} and copy.get(kept) == ["a"]
    assert desired.get(notes) == {"hello": "world"}
    assert copy.portal is desired.portal


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


def test_task_run_retention_keeps_its_policies_and_the_tasks_in_its_slots() -> None:
    desired = load_desired(EXAMPLES / "field", {})
    assert desired.get(retention.POLICIES) == [
        retention.RunRetention("frank-task-runs", "frank", frozenset({"*"}), 10, 30)
    ]
    assert not hasattr(desired, "retention") and not hasattr(field_live(), "tasks")
    live = field_live()
    assert [t.id for t in live.get(retention.TASKS)["frank"]] == ["t1", "t2"]
    runs = [address for address, _ in retention.KIND.live(live)]
    assert runs[:2] == ["TaskRun/frank/t1/r01", "TaskRun/frank/t1/r02"] and len(runs) == 14


def test_organization_webhooks_keep_the_removal_and_the_webhooks_in_their_slots() -> None:
    desired = load_desired(EXAMPLES / "field", {})
    assert desired.get(webhooks.REMOVAL) == webhooks.WebhookRemoval(
        frozenset({"old-sync-hook"}), frozenset({"audit-hook"}), False
    )
    assert not hasattr(desired, "webhookRemoval") and not hasattr(field_live(), "webhooks")
    assert DesiredState(hq_target()).get(webhooks.REMOVAL) is None  # no document: none
    hooks = [address for address, _ in webhooks.KIND.live(field_live())]
    assert hooks == [f"OrganizationWebhook/w{n}" for n in (1, 2, 3)]


def test_collaboration_keeps_the_declared_and_the_live_collaborations_in_its_slots() -> None:
    desired = load_desired(EXAMPLES / "hq", {})
    declared = desired.get(collaborations.DECLARED)
    assert list(declared) == ["c1"] and isinstance(declared["c1"], Collaboration)
    assert not hasattr(desired, "collaborations") and not hasattr(field_live(), "collaborations")
    live = field_live()
    (found,) = live.get(collaborations.LIVE).values()
    assert collaborations.side_of(found, live) == "guest"
    addresses = [address for address, _ in collaboration.KIND.live(live)]
    assert addresses == ["Collaboration/c1", "Workspace/c1/ws1"]
