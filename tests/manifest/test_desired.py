"""Manifests become the planner's DesiredState."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler import state
from reconciler.errors import ManifestError
from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.organization_webhooks import REMOVAL, WebhookRemoval
from reconciler.kinds.task_run_retention import POLICIES, RunRetention
from reconciler.kinds.webhook_settings import DECLARED
from reconciler.manifest.desired import load_desired
from tests.manifest.conftest import EXAMPLES, FIXTURES

NO_OVERRIDES: dict[str, str] = {}


def test_hq_example_becomes_roles_members_and_host_side_workspace() -> None:
    desired = load_desired(EXAMPLES / "hq", NO_OVERRIDES)
    assert desired.portal.url == "http://127.0.0.1:8080/hq/sharing/rest"
    assert str(desired.portal.platform) == "self-hosted 10.6.1"
    assert desired.portal.auth == state.Auth(None, "ORGCTL_USERNAME", "ORGCTL_PASSWORD")
    assert desired.portal.maxDeletes == 10
    analyst = desired.roles["Analyst"]
    assert analyst.privileges is not None
    assert "portal:user:shareToGroup" in analyst.privileges
    assert desired.roles["Legacy Viewer"] == state.Role("Legacy Viewer", present=False)
    assert desired.members["alice"] == state.Member("alice", "Field Analyst", 1)
    assert desired.members["erin"] == state.Member("erin", None, 2)
    collaboration = desired.get(collaborations.DECLARED)["c1"]
    assert collaboration.invalidInvitations == {"inv2"}
    workspace = collaboration.workspaces["ws1"]
    assert (workspace.maxItemSizeInMB, workspace.copyByRefIfCopyFail) == (2048, True)
    assert isinstance(workspace.maxItemSizeInMB, int)
    assert workspace.schedule is None and workspace.groupLink is None
    assert desired.sources["Role/Field Analyst"] == state.Source(
        str(EXAMPLES / "hq" / "roles.yaml"), 8, 1
    )
    assert desired.sources["Workspace/c1/ws1"].line == 13


def test_field_example_normalizes_start_time_and_keeps_only_declared_settings() -> None:
    desired = load_desired(EXAMPLES / "field", NO_OVERRIDES)
    workspace = desired.get(collaborations.DECLARED)["c1"].workspaces["ws1"]
    # 2026-12-01T02:00:00Z
    assert workspace.schedule == state.Schedule(1_796_090_400_000, 12, -1)
    assert workspace.groupLink == state.GroupLink("g1", False, True, True)
    assert desired.get(DECLARED) == {
        "notificationAttempts": 4,
        "numberOfFailures": 10,
        "daysInPast": 7,
    }
    assert desired.get(REMOVAL) == WebhookRemoval(
        frozenset({"old-sync-hook"}), frozenset({"audit-hook"}), False
    )
    assert desired.get(POLICIES) == [
        RunRetention("frank-task-runs", "frank", frozenset({"*"}), 10, 30)
    ]
    assert {"WebhookSettings", "OrganizationWebhooks", "Member/frank"} <= set(desired.sources)


def test_unix_milliseconds_and_iso_start_times_are_the_same(tmp_path: Path) -> None:
    source = (EXAMPLES / "field").iterdir()
    for file in source:
        text = file.read_text().replace("2026-12-01T02:00:00Z", "1796090400000")
        (tmp_path / file.name).write_text(text)
    iso = load_desired(EXAMPLES / "field", NO_OVERRIDES).get(collaborations.DECLARED)["c1"]
    millis = load_desired(tmp_path, NO_OVERRIDES).get(collaborations.DECLARED)["c1"]
    assert iso.workspaces == millis.workspaces


def test_environment_overrides_the_urls() -> None:
    environ = {
        "ORGCTL_PORTAL_URL": "http://127.0.0.1:45678/cloud/sharing/rest",
        "ORGCTL_ADMIN_URL": "http://127.0.0.1:45678/cloud/admin",
    }
    desired = load_desired(EXAMPLES / "cloud", environ)
    assert desired.portal.url == environ["ORGCTL_PORTAL_URL"]
    assert desired.portal.adminUrl == environ["ORGCTL_ADMIN_URL"]
    assert desired.roles["Open Data Curator"].privileges == {
        "opendata:user:designateGroup",
        "portal:user:createGroup",
        "portal:user:shareGroupToPublic",
    }


def test_invalid_manifests_raise_with_every_problem() -> None:
    root = FIXTURES / "invalid" / "update-info-sizes-on-10-5"
    with pytest.raises(ManifestError) as raised:
        load_desired(root, NO_OVERRIDES)
    assert len(raised.value.problems) == 2
    assert all(str(root) in line for line in raised.value.problems)


def test_a_collaboration_name_is_a_label_not_managed() -> None:
    collaboration = load_desired(EXAMPLES / "hq", NO_OVERRIDES).get(collaborations.DECLARED)["c1"]
    assert collaboration.name is None
    assert "name" not in state.managed_fields(collaboration)
