"""`Observed` answers note what a reader takes from them, as the readers take it."""

from __future__ import annotations

from reconciler.doctor.findings import Severity
from reconciler.doctor.recording import Observations, Observed, read_of
from reconciler.doctor.wire import wire_findings
from reconciler.kinds.role.live import role as live_role
from reconciler.live import records
from reconciler.live.client import PortalClient
from reconciler.state import Auth


def test_a_reader_s_keys_are_noted_where_they_sit() -> None:
    seen = Observations()
    answer = Observed(
        {"roles": [{"id": "r1", "name": "Analyst", "privilegeList": ["a"], "created": 1}]},
        seen,
        ("roles",),
    )
    for entry in answer["roles"]:
        live_role(entry)
    keys = {".".join(where): key for where, key in seen.keys.items()}
    assert keys["roles.roles.[].privileges"].asked == 1
    assert keys["roles.roles.[].privileges"].present == 0
    assert keys["roles.roles.[].id"].types == {"string"}
    assert seen.held[("roles", "roles", "[]")] == {"id", "name", "privilegeList", "created"}
    [missing] = [f for f in wire_findings(seen) if f.severity is Severity.DIFFERENCE]
    assert missing.message == (
        "roles: roles[].privileges is missing from all 1 answer(s) orgctl read;"
        " the answers hold 'privilegeList' instead (renamed?)"
    )


def test_a_key_only_tested_for_is_not_missing() -> None:
    seen = Observations()
    webhook = Observed({"id": "w1", "name": "hook", "active": True}, seen, ("orgWebhooks",))
    records.webhook(webhook)  # asks `isActive` with `in`, then reads `active`
    assert [f for f in wire_findings(seen) if f.severity is not Severity.OK] == []


def test_a_value_of_another_type_is_a_difference() -> None:
    seen = Observations()
    raw = {"id": "p1", "name": "P", "isPortal": "yes", "fullVersion": "10.6.1", "user": {}}
    portal = Observed(raw, seen, ("portal",))
    records.portal_info(portal, "https://portal.example/sharing/rest")
    messages = [f.message for f in wire_findings(seen) if f.severity is Severity.DIFFERENCE]
    assert "portal: isPortal is a JSON string; orgctl reads a boolean" in messages


def test_each_request_is_named_by_its_row_of_the_reads_table() -> None:
    client = PortalClient(
        "https://gis.example.com/portal/sharing/rest",
        admin_root="https://gis.example.com/server/admin",
        auth=Auth(tokenEnv="DOCTOR_TOKEN"),
        env={"DOCTOR_TOKEN": "t"},
    )
    named = {
        "": "root",
        "portals/self": "portal",
        "portals/self/roles": "roles",
        "portals/0123/webhooks/settings": "portalWebhookSettings",
        "portals/0123/webhooks/w1": "orgWebhook",
        "community/users/a%20b/tasks": "tasks",
        "https://gis.example.com/server/admin/services/webhooks/settings": "webhookSettings",
        "https://gis.example.com/server/admin/services/webhooks": "serviceWebhooks",
    }
    assert {path: read_of(path, client) for path in named} == named
    assert read_of("portals/self/unheardOf/x/y", client) == (
        "/portal/sharing/rest/portals/self/unheardOf/x/y"
    )
