"""Flows of the vendor's client beyond orgctl's own calls: collaboration participants, a
guest pausing and deleting its job, webhooks switched off and on and updated, user
types, and a member's items read one by one."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import SignIn

HOST_ID = "0123456789abcdef"
GUEST_ID = "fedcba9876543210"


def collaboration(gis: Any) -> Any:
    return gis.admin.collaborations.list()[0]


def test_host_reads_the_participants(sign_in: SignIn) -> None:
    shared = collaboration(sign_in("hq"))
    participants = shared.participants()["participants"]
    roles = {p["portalInfo"]["id"]: p["collaborationRole"] for p in participants}
    assert roles == {HOST_ID: "Host", GUEST_ID: "Guest"}
    guest = shared.get_participant(GUEST_ID)
    assert guest["status"] == "active" and guest["portalInfo"]["url"].endswith("/field")


def test_guest_pauses_resumes_and_deletes_its_schedule(sign_in: SignIn) -> None:
    shared = collaboration(sign_in("field"))
    assert shared.pause_schedule("ws1") is True
    assert shared.schedule("ws1")["state"] == "PAUSED"
    assert shared.resume_schedule("ws1") is True
    assert shared.schedule("ws1")["state"] == "NORMAL"
    assert shared.delete_schedule("ws1") is True
    with pytest.raises(Exception, match="No job schedule"):
        shared.schedule("ws1")


def test_webhook_deactivated_activated_and_updated(sign_in: SignIn) -> None:
    def audit_hook() -> Any:
        hooks = sign_in("field").admin.webhooks.list()
        return next(h for h in hooks if h.properties["name"].startswith("audit"))

    hook = audit_hook()
    assert hook.deactivate() is True
    assert audit_hook().properties["isActive"] is False
    assert hook.activate() is True
    assert audit_hook().properties["isActive"] is True
    assert hook.update(name="audit-hook-2", number_of_failures=7) is True
    updated = audit_hook().properties
    assert updated["name"] == "audit-hook-2"
    assert updated["config"]["deactivationPolicy"]["numberOfFailures"] == 7
    assert hook.notifications == []


def test_user_types_listed_read_and_changed(sign_in: SignIn) -> None:
    gis = sign_in("field")
    offered = {t["id"]: t["level"] for t in gis.users.license_types}
    assert offered["creatorUT"] == 2 and offered["viewerUT"] == 1
    frank = gis.users.get("frank")
    assert frank.user_types()["id"] == "creatorUT"
    assert frank.update_license_type("GISProfessionalAdvUT") is True
    assert gis.users.get("frank").user_types()["id"] == "GISProfessionalAdvUT"


def test_a_members_items_are_listed_and_opened(sign_in: SignIn) -> None:
    carol = sign_in("hq").users.get("carol")
    items = list(carol.items())
    assert [item.id for item in items] == ["carol-item-1", "carol-item-2", "carol-item-3"]
    assert {item.owner for item in items} == {"carol"}
