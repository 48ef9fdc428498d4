"""Collaborations, webhooks and task runs through the client's admin objects
(`gis.admin` opens `<portal>/portaladmin` first)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import SignIn

GUEST_ID = "fedcba9876543210"


def collaboration(gis: Any) -> Any:
    found = gis.admin.collaborations.list()
    assert [c["id"] for c in found] == ["c1"]
    return found[0]


def test_guest_reads_and_links_a_group_then_leaves(sign_in: SignIn) -> None:
    shared = collaboration(sign_in("field"))
    assert [w["id"] for w in shared.workspaces] == ["ws1"]
    linked = shared.update_portal_group_link(
        "ws1",
        "g2",
        enable_realtime_sync=False,
        copy_feature_service_data=False,
        copy_by_ref_on_fail=False,
        enable_bidirectional_sync=False,
    )
    assert linked["success"] is True
    links = shared.get_workspace("ws1")["participantGroupLinks"]
    assert [link["portalGroupId"] for link in links] == ["g2"]
    assert shared.schedule("ws1")["interval"] == 24
    assert shared.remove_participation()["success"] is True
    assert sign_in("field").admin.collaborations.list() == []


def test_host_lists_and_invalidates_invitations(sign_in: SignIn, tmp_path: Path) -> None:
    shared = collaboration(sign_in("hq"))
    # Client fault: `Collaboration.invitations` asks for `nun=100` (not `num`), so it gets
    # the default page of 10 and walks on by `nextStart`; two invitations fit either way.
    assert [i["id"] for i in shared.invitations] == ["inv1", "inv2"]
    assert shared.get_invitation("inv1")["status"] == "host_created"
    assert shared.invalidate("inv1")["success"] is True
    assert shared.get_invitation("inv1")["status"] == "invalidated"

    def respond(invitation: str) -> Path:
        answer = tmp_path / f"{invitation}.json"
        answer.write_text(json.dumps({"invitationId": invitation, "guestPortalId": GUEST_ID}))
        return answer

    # The response file travels as a multipart upload (`invitationResponseFile`).
    with pytest.raises(Exception, match="invalid"):
        shared.import_invitation_response(str(respond("inv1")))
    assert shared.import_invitation_response(str(respond("inv2")))["success"] is True


def test_org_webhooks_listed_deleted_and_settings_updated(sign_in: SignIn) -> None:
    hooks = sign_in("field").admin.webhooks
    listed = hooks.list()
    assert sorted(h.properties["name"] for h in listed) == ["audit-hook", "old-sync-hook"]
    doomed = next(h for h in listed if h.properties["name"] == "old-sync-hook")
    assert doomed.delete() is True
    assert [h.properties["name"] for h in sign_in("field").admin.webhooks.list()] == ["audit-hook"]

    assert hooks.settings["notificationAttempts"] == 3
    # Client fault (recorded in the API notes): the setter fills every field it is not
    # given with its own defaults (4, 11, 6), so a partial update resets the others.
    hooks.settings = {"notificationAttempts": 5}
    assert hooks.settings == {
        "notificationAttempts": 5,
        "notificationTimeOutInSeconds": 11,
        "notificationElapsedTimeInSeconds": 6,
    }


def test_task_runs_listed_and_deleted(sign_in: SignIn) -> None:
    from arcgis.gis.tasks import TaskManager

    admin = sign_in("field")
    scheduled = list(admin.admin.scheduled_tasks())
    assert [task.properties["id"] for task in scheduled] == ["t1"]
    frank = admin.users.get("frank")
    # Client fault: `User.tasks` checks whether the *member* is an administrator, not the
    # caller, so an administrator gets None for frank; the manager is built directly.
    assert frank.tasks is None
    url = f"{admin._portal.resturl}community/users/frank/tasks"
    task = TaskManager(url=url, user=frank, gis=admin).all[0]
    runs = task.runs  # all of them: the client asks without paging
    assert [run.properties["runId"] for run in runs] == ["run-01", "run-02", "run-03"]
    assert runs[0].delete() is True
    assert [run.properties["runId"] for run in task.runs] == ["run-02", "run-03"]


def test_portal_resources_where_the_apply_lock_lives(sign_in: SignIn) -> None:
    # PortalResources (arcgis/gis/admin/_resources.py): addResource with key, text and
    # access; resources paged by nextStart; removeresource by key.
    resources = sign_in("hq").admin.resources
    lease = {"id": "0123456789abcdef", "holder": "ci@runner", "pid": 7, "since": 1, "until": 2}
    assert resources.add(key="orgctl-apply-lock.json", text=lease, access="org") is True
    assert [r["key"] for r in resources.list()] == ["orgctl-apply-lock.json"]
    assert resources.delete("orgctl-apply-lock.json") is True
    assert resources.list() == []
