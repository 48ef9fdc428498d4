"""Partial manifests for operations that set several fields at once: the call carries the
undeclared fields with their live values, so nothing undeclared changes."""

from __future__ import annotations

import pytest

from .harness import MANIFESTS, Serve, World, one_call, output_of, plan_json

pytestmark = pytest.mark.e2e

SETTINGS = MANIFESTS / "webhook-settings"
EXPECTED = {
    "notificationAttempts": 4,  # declared
    "notificationTimeOutInSeconds": 30,  # live (states/webhooks.yaml), not the default 10
    "notificationElapsedTimeInSeconds": 20,  # live, not the default 5
    "numberOfFailures": 10,  # declared
    "daysInPast": 7,  # declared
}


def test_partial_webhook_settings_keep_undeclared_live_values(serve: Serve) -> None:
    """The service resets any settings field a call leaves out: orgctl sends all five."""
    world = serve("webhooks")
    planned = world.orgctl("plan", SETTINGS, "--format", "json", portal="field")
    assert planned.returncode == 0, output_of(planned)
    call = one_call(plan_json(planned), "WebhookSettings", "/services/webhooks/settings")
    assert {k: int(v) for k, v in call["params"].items() if k in EXPECTED} == EXPECTED

    applied = world.orgctl("apply", SETTINGS, "--auto-approve", portal="field")
    assert applied.returncode == 0, output_of(applied)
    settings = world.api("field").admin_get("services/webhooks/settings")
    assert {k: settings[k] for k in EXPECTED} == EXPECTED
    again = world.orgctl("plan", SETTINGS, "--detailed-exitcode", portal="field")
    assert again.returncode == 0, output_of(again)


def test_partial_group_link_keeps_undeclared_live_values(demo: World) -> None:
    directory = MANIFESTS / "group-link-partial"
    planned = demo.orgctl("plan", directory, "--format", "json", portal="field")
    assert planned.returncode == 0, output_of(planned)
    call = one_call(plan_json(planned), "Workspace/c1/ws1", "/updatePortalGroupLink")
    assert call["params"]["enableRealtimeSync"] == "true"
    assert call["params"]["portalGroupId"] == "g1"

    applied = demo.orgctl("apply", directory, "--auto-approve", portal="field")
    assert applied.returncode == 0, output_of(applied)
    api = demo.api("field")
    workspaces = api.listing(f"portals/{api.portal_id}/collaborations/c1/workspaces", "workspaces")
    (link,) = [g for w in workspaces for g in w["participantGroupLinks"]]
    assert link["portalGroupId"] == "g1"
    assert link["config"] == {
        "enableRealtimeSync": True,
        "copyFeatureServiceData": False,
        "enableFeatureServiceBidirectionalSync": False,
    }
    again = demo.orgctl("plan", directory, "--detailed-exitcode", portal="field")
    assert again.returncode == 0, output_of(again)
