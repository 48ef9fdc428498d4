"""Who may make each read (the reads table's `ReadAccess`): the reads a plan makes answer
a member without the view privilege they need with the 403 envelope, and answer a
reviewer whose custom role holds view privileges only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.harness import HQ_ID, Api, admin_error_of, error_of, hq_state

from .conftest import Serve

PORTAL = HQ_ID
VIEWS = [
    "portal:admin:viewUsers",
    "portal:admin:viewItems",
    "portal:admin:viewGroups",
    "portal:admin:manageCollaborations",
]
STATE: dict[str, Any] = {
    **hq_state(
        "11.3",
        users=[
            {"username": "admin", "password": "admin-pass", "role": "org_admin",
             "defaultAdmin": True, "level": 2},
            {"username": "rita", "password": "rita-pass", "role": "Reviewer", "level": 2},
            {"username": "uma", "password": "uma-pass", "role": "org_user", "level": 2,
             "ownedItems": 1},
        ],
        roles=[
            {"id": "r0000000000009", "name": "Reviewer", "description": "Reads",
             "privileges": VIEWS},
        ],
        webhooks=[{"id": "w1", "name": "audit-hook"}],
        webhookSettings={},
        tasks=[{"id": "t1", "owner": "uma", "itemId": "i1", "runs": []}],
    ),
    "collaborations": [
        {"id": "c1", "name": "Regional sharing", "host": "hq", "guests": [],
         "workspaces": [{"id": "ws1", "name": "Field data"}], "invitations": []}
    ],
}  # fmt: skip

# The reads a plan makes of other members and of the collaborations: (path, what the
# answer holds when it is allowed).
VIEWED = [
    (f"portals/{PORTAL}/users", "users"),
    ("community/users/uma", "username"),
    ("content/users/uma", "items"),
    (f"portals/{PORTAL}/collaborations", "collaborations"),
    (f"portals/{PORTAL}/collaborations/c1/workspaces", "workspaces"),
    (f"portals/{PORTAL}/collaborations/c1/invitations", "collaborationInvitations"),
]


@pytest.fixture
def hq(serve: Serve) -> Api:
    return serve(STATE)


def test_a_member_without_view_privileges_is_refused_every_read_of_others(hq: Api) -> None:
    """Refused in the vendor's words; who may make the read is in `details`."""
    member = hq.token("hq", "uma", "uma-pass")
    for path, _ in VIEWED[:1] + VIEWED[3:]:
        error = error_of(hq.get("hq", path, auth=member), 403, "GWM_0003")
        assert "portal:admin:" in " ".join(error["details"]), (path, error)
    error = error_of(hq.get("hq", "content/users/rita", auth=member), 403, "GWM_0003")
    assert "viewItems" in " ".join(error["details"])


def test_a_member_without_view_privileges_sees_a_colleague_s_profile_only(hq: Api) -> None:
    member = hq.token("hq", "uma", "uma-pass")
    rita = hq.get("hq", "community/users/rita", auth=member)
    assert rita["username"] == "rita" and rita["orgId"] == PORTAL
    assert not {"role", "roleId", "level", "privileges", "lastLogin", "disabled"} & set(rita)


def test_a_reviewer_holding_view_privileges_makes_every_read_of_a_plan(hq: Api) -> None:
    reviewer = hq.token("hq", "rita", "rita-pass")
    for path, key in VIEWED:
        assert key in hq.get("hq", path, auth=reviewer), path
    assert hq.get("hq", "content/users/uma", auth=reviewer)["total"] == 1
    # A task run's files are content of its item: viewItems reads them too.
    assert hq.get("hq", "content/items/i1/resources", auth=reviewer)["resources"] == []


def test_webhooks_and_tasks_stay_with_administrators_and_owners(hq: Api) -> None:
    reviewer = hq.token("hq", "rita", "rita-pass")
    error_of(hq.get("hq", f"portals/{PORTAL}/webhooks", auth=reviewer), 403, "GWM_0003")
    admin_error_of(hq.admin_get("hq", "services/webhooks/settings", auth=reviewer), 403)
    error_of(hq.get("hq", "community/users/uma/tasks", auth=reviewer), 403, "GWM_0003")
    owner = hq.token("hq", "uma", "uma-pass")
    assert hq.get("hq", "community/users/uma/tasks", auth=owner)["tasks"][0]["id"] == "t1"
    assert hq.admin_get("hq", "services/webhooks/settings")["status"] == "success"


def test_a_member_reads_its_own_account_and_items(hq: Api) -> None:
    member = hq.token("hq", "uma", "uma-pass")
    assert hq.get("hq", "community/users/uma", auth=member)["username"] == "uma"
    assert hq.get("hq", "content/users/uma", auth=member)["total"] == 1
    assert hq.get("hq", "portals/self", auth=member)["user"]["username"] == "uma"
