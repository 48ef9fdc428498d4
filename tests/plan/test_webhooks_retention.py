"""Webhook settings, organization webhook removal and task-run retention."""

from __future__ import annotations

from reconciler import catalog
from reconciler.kinds.organization_webhooks import REMOVAL, WebhookRemoval
from reconciler.kinds.task_run_retention import POLICIES, TASKS, RunRetention
from reconciler.kinds.webhook_settings import DECLARED, LIVE, LiveSettings
from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.state import DesiredState, Task, TaskRun
from tests.plan.world import DAY_MS, FIELD_ADMIN, FIELD_ROOT, NOW, field_desired, field_live


def plan(
    desired: DesiredState,
    settings: LiveSettings | None = None,
    tasks: dict[str, list[Task]] | None = None,
) -> Plan:
    live = field_live()
    if settings is not None:
        live.put(LIVE, settings)
    if tasks is not None:
        live.put(TASKS, tasks)
    return build_plan(desired, live, now=NOW, allow_deletes=True)


def test_partial_settings_are_completed_from_live() -> None:
    desired = field_desired()
    desired.put(DECLARED, {"numberOfFailures": 10})
    result = plan(desired, LiveSettings({**(field_live().get(LIVE).values or {}), "daysInPast": 7}))
    (call,) = result.calls
    assert call.url == f"{FIELD_ADMIN}/services/webhooks/settings"
    assert call.params == {
        "notificationAttempts": "3",
        "notificationTimeOutInSeconds": "10",
        "notificationElapsedTimeInSeconds": "5",
        "numberOfFailures": "10",
        "daysInPast": "7",
    }
    assert result.changes[0].before == {"numberOfFailures": 5}


def test_unknown_live_settings_are_always_sent_with_defaults_and_a_warning() -> None:
    desired = field_desired()
    desired.put(DECLARED, {"numberOfFailures": 5})
    result = plan(desired, LiveSettings())
    (call,) = result.calls
    assert call.params == {name: str(r.default) for name, r in catalog.WEBHOOK_SETTINGS.items()}
    assert "reset to their defaults: daysInPast, notificationAttempts" in str(result.warnings[0])


def test_unreadable_settings_say_why() -> None:
    desired = field_desired()
    desired.put(DECLARED, {name: r.default for name, r in catalog.WEBHOOK_SETTINGS.items()})
    why = "error 404 GWM_0006: Resource not found"
    result = plan(desired, LiveSettings(None, why))
    assert [str(w) for w in result.warnings] == [
        f"WebhookSettings: live settings are unknown ({why}); the settings are sent every time"
    ]


def test_settings_without_an_admin_url_is_an_error() -> None:
    desired = field_desired(adminUrl=None)
    desired.put(DECLARED, {"numberOfFailures": 9})
    assert [str(e) for e in plan(desired).errors] == [
        "WebhookSettings: needs the Portal's spec.adminUrl (the admin root)"
    ]


def test_absent_webhooks_by_id_or_name_are_deleted() -> None:
    desired = field_desired()
    desired.put(REMOVAL, WebhookRemoval(absent=frozenset({"old-sync-hook", "w3"})))
    result = plan(desired)
    assert [c.url for c in result.calls] == [
        f"{FIELD_ROOT}/portals/fedcba9876543210/webhooks/w2/delete",
        f"{FIELD_ROOT}/portals/fedcba9876543210/webhooks/w3/delete",
    ]
    assert [c.address for c in result.changes] == [
        "OrganizationWebhook/w2",
        "OrganizationWebhook/w3",
    ]


def test_prune_deletes_every_webhook_not_kept() -> None:
    desired = field_desired()
    desired.put(REMOVAL, WebhookRemoval(keep=frozenset({"audit-hook"}), prune=True))
    assert [c.address for c in plan(desired).calls] == [
        "OrganizationWebhook/w2",
        "OrganizationWebhook/w3",
    ]


def retention(**kwargs: object) -> DesiredState:
    desired = field_desired()
    desired.put(POLICIES, [RunRetention("nightly", "frank", **kwargs)])  # type: ignore[arg-type]
    return desired


def test_keep_last_deletes_the_older_runs() -> None:
    result = plan(retention(tasks=frozenset({"t1"}), keepLast=10))
    assert [c.address for c in result.calls] == ["TaskRun/frank/t1/r01", "TaskRun/frank/t1/r02"]
    assert result.calls[0].url == (f"{FIELD_ROOT}/community/users/frank/tasks/t1/runs/r01/delete")


def test_max_age_counts_from_now() -> None:
    # Runs were created 2026-10-01 .. 10-12; the clock is 2026-11-01.
    # The cutoff is 2026-10-03: a run created exactly then is not older, and stays.
    result = plan(retention(tasks=frozenset({"*"}), maxAgeDays=29))
    assert [c.address.rsplit("/", 1)[1] for c in result.calls] == ["r01", "r02", "t2a", "t2b"]


def test_running_runs_are_kept() -> None:
    created = int(NOW * 1000) - 100 * DAY_MS
    runs = (
        TaskRun("busy", "executing", created),
        TaskRun("next", "scheduled", created),
        TaskRun("done", "failed", created),
    )
    result = plan(
        retention(tasks=frozenset({"*"}), keepLast=0),
        tasks={"frank": [Task("t9", "frank", runs)]},
    )
    assert [c.address for c in result.calls] == ["TaskRun/frank/t9/done"]


def test_unknown_task_is_an_error() -> None:
    result = plan(retention(tasks=frozenset({"t7"}), keepLast=1))
    assert [str(e) for e in result.errors] == [
        "TaskRun/frank/t7: TaskRunRetention nightly: user frank has no task t7"
    ]


def test_unknown_user_is_an_error_not_a_policy_that_never_runs() -> None:
    desired = field_desired()
    desired.put(POLICIES, [RunRetention("nightly", "frnak", frozenset({"*"}), keepLast=1)])
    result = plan(desired)
    assert [str(e) for e in result.errors] == [
        "TaskRun/frnak: TaskRunRetention nightly: the portal has no member frnak"
    ]
    assert not result.calls


def test_settings_the_service_leaves_out_are_its_defaults() -> None:
    desired = field_desired()
    desired.put(DECLARED, {"daysInPast": 5})
    assert plan(desired, LiveSettings({})).empty
    desired.put(DECLARED, {"daysInPast": 6})
    (call,) = plan(desired, LiveSettings({})).calls
    assert call.params == {
        "notificationAttempts": "3",
        "notificationTimeOutInSeconds": "10",
        "notificationElapsedTimeInSeconds": "5",
        "numberOfFailures": "5",
        "daysInPast": "6",
    }
