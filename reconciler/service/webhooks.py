"""Organization webhooks (docs/rules.md §4.11), service webhooks and their delivery settings
(docs/rules.md §4.12) under the administrative root.

Every settings call writes all five fields: an omitted field is reset to its spec
default (docs/rules.md §4.12 lists defaults, not "unchanged"), which is why orgctl always sends
all five.
"""

from __future__ import annotations

from typing import Any

from reconciler.catalog import WEBHOOK_SETTINGS
from reconciler.service.context import Ctx
from reconciler.service.errors import ApiError, not_found
from reconciler.service.params import page
from reconciler.service.rules import check_portal_id


def list_org_webhooks(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    rows = [
        {
            "id": w["id"],
            "name": w["name"],
            "payloadUrl": w["payloadUrl"],
            "active": w["active"],
            "events": list(w["events"]),
            "config": {
                "deactivationPolicy": {
                    "numberOfFailures": ctx.portal["webhookSettings"]["numberOfFailures"],
                    "daysInPast": ctx.portal["webhookSettings"]["daysInPast"],
                }
            },
            "created": w["created"],
            "modified": w["created"],
        }
        for w in sorted(ctx.portal["webhooks"].values(), key=lambda w: w["id"])
    ]
    return page(ctx.params, rows, "webhooks")


def delete_org_webhook(ctx: Ctx) -> dict[str, Any]:
    webhook_id = ctx.args["webhookId"]
    if webhook_id not in ctx.portal["webhooks"]:
        raise not_found(f"Webhook '{webhook_id}' not found")
    del ctx.portal["webhooks"][webhook_id]
    ctx.touch_portal()
    return {"success": True}


def list_service_webhooks(ctx: Ctx) -> dict[str, Any]:
    rows = [
        {
            "id": w["id"],
            "name": w["name"],
            "active": w["active"],
            "serviceName": w["name"],
            "serviceType": "FeatureServer",
        }
        for w in sorted(ctx.portal["serviceWebhooks"].values(), key=lambda w: w["id"])
    ]
    return {"status": "success", "webhooks": rows}


def read_settings(ctx: Ctx) -> dict[str, Any]:
    return {**ctx.portal["webhookSettings"], "status": "success"}


def write_settings(ctx: Ctx) -> dict[str, Any]:
    values: dict[str, int] = {}
    problems = []
    for name, allowed in WEBHOOK_SETTINGS.items():
        value = ctx.params.integer(name)
        value = allowed.default if value is None else value
        problem = allowed.problem(name, value)
        if problem:
            problems.append(problem)
        values[name] = value
    if problems:
        raise ApiError(400, "WHK_1001", "Invalid webhook settings", problems)
    ctx.portal["webhookSettings"] = values
    ctx.touch_portal()
    order = (
        "notificationAttempts",
        "notificationTimeOutInSeconds",
        "notificationElapsedTimeInSeconds",
        "daysInPast",
        "numberOfFailures",
    )
    return {**{k: values[k] for k in order}, "status": "success"}
