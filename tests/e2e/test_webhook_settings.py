"""A partial WebhookSettings manifest: the service resets any field a call leaves out, so
orgctl sends all five, the undeclared ones with their live values."""

from __future__ import annotations

import pytest

from .harness import MANIFESTS, Serve, one_call, output_of, plan_json

pytestmark = pytest.mark.e2e

SETTINGS = MANIFESTS / "webhook-settings"
EXPECTED = {
    "notificationAttempts": 4,  # declared
    "notificationTimeOutInSeconds": 30,  # live (states/webhooks.yaml), not the default 10
    "notificationElapsedTimeInSeconds": 20,  # live, not the default 5
    "numberOfFailures": 10,  # declared
    "daysInPast": 7,  # declared
}


def test_partial_settings_keep_undeclared_live_values(serve: Serve) -> None:
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
