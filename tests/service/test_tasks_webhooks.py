"""Task run delete (docs/rules.md §4.9), organization webhook delete (§4.11), webhook settings
(§4.12) and the deactivation policy of service webhooks (§3, its four examples)."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.catalog import WEBHOOK_SETTINGS
from tests.service.harness import Api, admin_error_of, error_of, succeeded
from tests.service.world import FIELD, V106

RUN1 = "community/users/frank/tasks/t1/runs/run1/delete"
SETTINGS = "services/webhooks/settings"
DEFAULTS = {name: rng.default for name, rng in WEBHOOK_SETTINGS.items()}


# --- task run delete --------------------------------------------------------------------------


def run_ids(api: Api, task: str = "t1") -> set[str]:
    body = api.get("field", f"community/users/frank/tasks/{task}/runs")
    return {run["runId"] for run in body["runs"]}


def resource_names(api: Api, item: str = "i1") -> set[str]:
    body = api.get("field", f"content/items/{item}/resources")
    return {entry["resource"] for entry in body["resources"]}


def test_task_run_delete_removes_the_run_and_its_files(world: Api) -> None:
    assert "run1.log" in resource_names(world)
    body = world.post("field", RUN1)
    assert body == {"success": True, "taskId": "t1", "runId": "run1"}
    assert run_ids(world) == {"run2", "run3"}
    assert resource_names(world) == {"run2.log", "run3.log"}
    assert resource_names(world, "i2") == {"run4.log"}


def test_task_run_delete_by_the_owner(world: Api) -> None:
    token = world.token("field", "frank")
    succeeded(world.post("field", RUN1, auth=token))
    assert "run1" not in run_ids(world)


def test_task_run_delete_refused_to_another_member(world_ro: Api) -> None:
    token = world_ro.token("field", "hooker")
    error_of(world_ro.post("field", RUN1, auth=token), 403, message_code="GWM_0003")
    assert "run1" in run_ids(world_ro)


@pytest.mark.parametrize(
    "path",
    [
        "community/users/frank/tasks/t1/runs/runnone/delete",
        "community/users/frank/tasks/tnone/runs/run1/delete",
        "community/users/frank/tasks/t2/runs/run1/delete",
        "community/users/nobody/tasks/t1/runs/run1/delete",
    ],
    ids=["unknown-run", "unknown-task", "run-of-another-task", "unknown-user"],
)
def test_task_run_delete_of_unknown_ids(world_ro: Api, path: str) -> None:
    error_of(world_ro.post("field", path), 404, message_code="GWM_0006")
    assert "run1" in run_ids(world_ro)


def test_task_run_delete_refused_on_10_8(versions_ro: Api) -> None:
    body = versions_ro.post("v108", "community/users/frank/tasks/t8/runs/run8/delete")
    error_of(body, 400, message_code="GWM_0002")
    runs = versions_ro.get("v108", "community/users/frank/tasks/t8/runs")["runs"]
    assert [run["runId"] for run in runs] == ["run8"]


# --- organization webhook delete --------------------------------------------------------------


def org_webhook_ids(api: Api, portal: str = "field", pid: str = FIELD) -> set[str]:
    return {w["id"] for w in api.get(portal, f"portals/{pid}/webhooks")["webhooks"]}


def test_webhook_delete_removes_it(world: Api) -> None:
    succeeded(world.post("field", f"portals/{FIELD}/webhooks/w1/delete"))
    assert org_webhook_ids(world) == {"w2", "w3"}
    body = world.post("field", f"portals/{FIELD}/webhooks/w1/delete")
    error_of(body, 404, message_code="GWM_0006")


def test_webhook_delete_by_the_webhooks_capability(world: Api) -> None:
    token = world.token("field", "hooker")
    succeeded(world.post("field", f"portals/{FIELD}/webhooks/w2/delete", auth=token))
    assert "w2" not in org_webhook_ids(world)


def test_webhook_delete_refused_to_a_member(world_ro: Api) -> None:
    token = world_ro.token("field", "frank")
    body = world_ro.post("field", f"portals/{FIELD}/webhooks/w1/delete", auth=token)
    error_of(body, 403, message_code="GWM_0003")


def test_webhook_delete_of_an_unknown_webhook(world_ro: Api) -> None:
    body = world_ro.post("field", f"portals/{FIELD}/webhooks/wnone/delete")
    error_of(body, 404, message_code="GWM_0006")


def test_webhook_delete_refused_on_10_6(versions_ro: Api) -> None:
    body = versions_ro.post("v106", f"portals/{V106}/webhooks/w6/delete")
    error_of(body, 400, message_code="GWM_0002")


@pytest.mark.parametrize("path", ["webhooks", "webhooks/w6", "webhooks/settings"])
def test_organization_webhook_reads_refused_before_10_7(versions_ro: Api, path: str) -> None:
    """They arrived at 10.7 with the webhooks themselves; a 10.6 portal served them."""
    body = versions_ro.get("v106", f"portals/{V106}/{path}")
    error_of(body, 400, message_code="GWM_0002")


# --- webhook settings -------------------------------------------------------------------------


def test_webhook_settings_success_body(world: Api) -> None:
    values = {
        "notificationAttempts": 5,
        "notificationTimeOutInSeconds": 60,
        "notificationElapsedTimeInSeconds": 1,
        "numberOfFailures": 30,
        "daysInPast": 1,
    }
    body = world.admin_post("field", SETTINGS, **values)
    assert body == {**values, "status": "success"}
    read = world.admin_get("field", SETTINGS)
    assert {name: read[name] for name in values} == values


def test_webhook_settings_omitted_fields_keep_their_values(world: Api) -> None:
    """The vendor's page gives defaults as what holds until set, not what an omitted
    field means: a partial update reset the others (a 4 became 3)."""
    everything = {name: rng.low for name, rng in WEBHOOK_SETTINGS.items()}
    everything["notificationAttempts"] = 4
    world.admin_post("field", SETTINGS, **everything)
    body = world.admin_post("field", SETTINGS, numberOfFailures=7)
    assert body == {**everything, "numberOfFailures": 7, "status": "success"}
    assert "success" not in body
    assert world.admin_get("field", SETTINGS)["notificationAttempts"] == 4


def test_webhook_settings_read_refused_before_11_2(versions_ro: Api) -> None:
    admin_error_of(versions_ro.admin_get("v111", SETTINGS), 400)


def test_webhook_settings_by_the_webhooks_capability(world: Api) -> None:
    token = world.token("field", "hooker")
    body = world.admin_post("field", SETTINGS, auth=token, daysInPast=9)
    assert body["status"] == "success" and body["daysInPast"] == 9


@pytest.mark.parametrize(
    ("name", "value"),
    [(name, rng.low - 1) for name, rng in WEBHOOK_SETTINGS.items()]
    + [(name, rng.high + 1) for name, rng in WEBHOOK_SETTINGS.items()]
    + [("numberOfFailures", "many"), ("daysInPast", "2.5")],
)
def test_webhook_settings_refuses_out_of_range(world_ro: Api, name: str, value: Any) -> None:
    admin_error_of(world_ro.admin_post("field", SETTINGS, **{name: value}), 400)
    assert world_ro.admin_get("field", SETTINGS)[name] == DEFAULTS[name]


def test_webhook_settings_refused_to_a_member(world_ro: Api) -> None:
    token = world_ro.token("field", "frank")
    admin_error_of(world_ro.admin_post("field", SETTINGS, auth=token, daysInPast=9), 403)


def test_webhook_settings_refused_on_11_1(versions_ro: Api) -> None:
    admin_error_of(versions_ro.admin_post("v111", SETTINGS, daysInPast=9))


def test_webhook_settings_refused_on_hosted_cloud(world_ro: Api) -> None:
    admin_error_of(world_ro.admin_post("cloud", SETTINGS, daysInPast=9))


def test_webhook_settings_without_token(world_ro: Api) -> None:
    admin_error_of(world_ro.admin_post("field", SETTINGS, auth=None, daysInPast=9), 499)


# --- deactivation: the spec's four examples for 5 failures over 5 days --------------------------


def active(api: Api, webhook: str = "sw1") -> bool:
    hooks = api.admin_get("field", "services/webhooks")["webhooks"]
    return bool({hook["id"]: hook for hook in hooks}[webhook]["active"])


def fail_on_days(api: Api, failures_per_day: list[int]) -> list[bool]:
    """Record each day's failures, then advance a day; `active` at the end of each day."""
    seen = []
    for count in failures_per_day:
        if count:
            api.failures("field", "sw1", count)
        seen.append(active(api))
        api.advance(24)
    return seen


def test_deactivation_one_failure_on_each_of_five_days(world: Api) -> None:
    assert fail_on_days(world, [1, 1, 1, 1, 1]) == [True, True, True, True, False]
    assert active(world, "sw2")


def test_deactivation_three_then_two(world: Api) -> None:
    assert fail_on_days(world, [3, 2]) == [True, False]


def test_no_deactivation_when_the_window_ends_first(world: Api) -> None:
    assert fail_on_days(world, [2, 0, 2, 0, 0]) == [True] * 5
    assert active(world)


def test_deactivation_in_the_next_window(world: Api) -> None:
    seen = fail_on_days(world, [2, 0, 2, 0, 0, 2, 3])
    assert seen == [True, True, True, True, True, True, False]


def test_deactivation_follows_the_configured_policy(world: Api) -> None:
    world.admin_post("field", SETTINGS, numberOfFailures=2, daysInPast=1)
    # One-day windows: a failure a day never adds up; two on one day deactivate.
    assert fail_on_days(world, [1, 1, 1, 2]) == [True, True, True, False]
    assert active(world, "sw2")


def test_task_run_delete_twice(world: Api) -> None:
    succeeded(world.post("field", RUN1))
    error_of(world.post("field", RUN1), 404, message_code="GWM_0006")
