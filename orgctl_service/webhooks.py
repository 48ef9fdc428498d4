"""Organization webhooks (docs/rules.md §4.11), service webhooks and their delivery settings
(docs/rules.md §4.12) under the administrative root.

A settings call changes the fields it sends and keeps the others. The vendor's settings
page gives each field's default as what the system does until an administrator sets it
("By default, the payload will attempt to be delivered 3 times"), not as what an omitted
parameter means, and marks none required; an update that reset what it did not name
would undo another administrator's setting (a seeded 4 became 3). orgctl sends all five
anyway. https://developers.arcgis.com/rest/enterprise-administration/server/webhook-settings.htm

The organization webhooks and their delivery settings arrived at 10.7, the service
webhooks' settings at 11.2 (docs/rules.md §9): an older portal has no such resource to
read either, and answers as for an operation it lacks (GWM_0002).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from orgctl_service.accounts import default_admins, member_id
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, bad_request, not_found, unavailable
from orgctl_service.params import page
from orgctl_service.rules import check_portal_id
from orgctl_service.world import Doc, portal_platform
from reconciler.catalog import WEBHOOK_SETTINGS
from reconciler.operations import OPERATIONS, OperationName
from reconciler.text_rules import text_problem


def webhook_view(ctx: Ctx, webhook: Doc) -> dict[str, Any]:
    policy = deactivation_policy(ctx, webhook)
    return {
        "id": webhook["id"],
        "accountId": ctx.portal["id"],
        "name": webhook["name"],
        "payloadUrl": webhook["payloadUrl"],
        "secret": "",  # never shown back
        # `isActive` is the vendor's name; `active` stays for readers that used it.
        "isActive": webhook["active"],
        "active": webhook["active"],
        "ownerId": owner_id(ctx.portal),
        "events": list(webhook["events"]),
        "config": {
            "deactivationPolicy": {
                "numberOfFailures": policy["numberOfFailures"],
                "daysInPast": policy["daysInPast"],
            }
        },
        "created": webhook["created"],
        "modified": webhook.get("modified", webhook["created"]),
    }


def deactivation_policy(ctx: Ctx, webhook: Doc) -> dict[str, int]:
    """The webhook's own policy once an update set one, else the portal's settings."""
    own = webhook.get("deactivationPolicy") or {}
    settings = ctx.portal["webhookSettings"]
    return {name: int(own.get(name, settings[name])) for name in _POLICY_FIELDS}


_POLICY_FIELDS = ("numberOfFailures", "daysInPast")


def owner_id(portal: Doc) -> str:
    """Who owns the organization's webhooks: its first default administrator, by member id."""
    admins = default_admins(portal)
    return member_id(admins[0], portal) if admins else ""


def require_release(ctx: Ctx, operation: OperationName) -> None:
    """Refuse a read of a resource that arrived with `operation` on a release before it."""
    problem = OPERATIONS[operation].problem(portal_platform(ctx.portal))
    if problem:
        raise unavailable(f"This resource is not available: {problem}")


def list_org_webhooks(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    require_release(ctx, OperationName.DELETE_WEBHOOK)
    rows = [
        webhook_view(ctx, w) for w in sorted(ctx.portal["webhooks"].values(), key=lambda w: w["id"])
    ]
    return page(ctx.params, rows, "webhooks")


def one_org_webhook(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    require_release(ctx, OperationName.DELETE_WEBHOOK)
    webhook = ctx.portal["webhooks"].get(ctx.args["webhookId"])
    if webhook is None:
        raise not_found(f"Webhook '{ctx.args['webhookId']}' not found")
    return webhook_view(ctx, webhook)


# The portal's own delivery settings for organization webhooks (`portals/self/webhooks/
# settings`), older than and separate from docs/rules.md §4.12. Ranges
# as the vendor documents them; a field left out of an update keeps its value.
PORTAL_DELIVERY = {
    "notificationAttempts": (3, 1, 5),
    "notificationTimeOutInSeconds": (10, 1, 60),
    "notificationElapsedTimeInSeconds": (30, 1, 100),
}


def _portal_delivery(ctx: Ctx) -> dict[str, int]:
    kept = ctx.portal.get("portalWebhookSettings") or {}
    return {name: int(kept.get(name, spec[0])) for name, spec in PORTAL_DELIVERY.items()}


def portal_webhook_settings(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    require_release(ctx, OperationName.DELETE_WEBHOOK)
    return _portal_delivery(ctx)


def update_portal_webhook_settings(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    values = _portal_delivery(ctx)
    problems = []
    for name, (_, low, high) in PORTAL_DELIVERY.items():
        value = ctx.params.integer(name)
        if value is None:
            continue
        if not low <= value <= high:
            problems.append(f"{name} must be from {low} to {high}, got {value}")
        values[name] = value
    if problems:
        raise ApiError(400, "WHK_1001", "Invalid webhook settings", problems)
    ctx.portal["portalWebhookSettings"] = values
    ctx.touch_portal()
    return {"success": True}


def _addressed_webhook(ctx: Ctx) -> Doc:
    check_portal_id(ctx)
    webhook = ctx.portal["webhooks"].get(ctx.args["webhookId"])
    if webhook is None:
        raise not_found(f"Webhook '{ctx.args['webhookId']}' not found")
    return webhook  # type: ignore[no-any-return]


def activate_org_webhook(ctx: Ctx) -> dict[str, Any]:
    """Restart a deactivated webhook: deliveries resume and its failure count restarts."""
    webhook = _addressed_webhook(ctx)
    webhook["active"] = True
    webhook.pop("failureWindow", None)
    webhook.pop("deactivatedAt", None)
    ctx.touch_portal()
    return {"success": True}


def deactivate_org_webhook(ctx: Ctx) -> dict[str, Any]:
    webhook = _addressed_webhook(ctx)
    webhook["active"] = False
    webhook["deactivatedAt"] = ctx.now
    ctx.touch_portal()
    return {"success": True}


def update_org_webhook(ctx: Ctx) -> dict[str, Any]:
    """`name`, `url`, `events` (comma-separated), `secret` and `config` (JSON with a
    `deactivationPolicy`), each optional: what is not sent keeps its value."""
    webhook = _addressed_webhook(ctx)
    changes = _webhook_changes(ctx)
    webhook.update(changes)
    webhook["modified"] = ctx.now
    ctx.touch_portal()
    return {"success": True}


def _webhook_changes(ctx: Ctx) -> dict[str, Any]:
    params = ctx.params
    changes: dict[str, Any] = {}
    name = params.text("name")
    if name is not None:
        blank = None if name.strip() else "'name' must not be blank"
        problem = blank or text_problem("name", name)
        if problem:
            raise ApiError(400, "WHK_1002", problem)
        changes["name"] = name
    url = params.text("url")
    if url is not None:
        if urlsplit(url).scheme != "https" or not urlsplit(url).hostname:
            raise ApiError(400, "WHK_1002", "'url' must be an https address")
        changes["payloadUrl"] = url
    events = params.text("events")
    if events is not None:
        changes["events"] = [e.strip() for e in events.split(",") if e.strip()]
    if params.given("config"):
        changes["deactivationPolicy"] = _policy(params.json_value("config"))
    return changes


def _policy(config: Any) -> dict[str, int]:
    policy = config.get("deactivationPolicy") if isinstance(config, dict) else None
    if not isinstance(policy, dict):
        raise bad_request("'config' must be a JSON object with a 'deactivationPolicy' object")
    values, problems = {}, []
    for name in _POLICY_FIELDS:
        if name not in policy:
            continue
        value = policy[name]
        problem = (
            f"{name} must be an integer, got {value!r}"
            if isinstance(value, bool) or not isinstance(value, int)
            else WEBHOOK_SETTINGS[name].problem(name, value)
        )
        if problem:
            problems.append(problem)
        else:
            values[name] = value
    if problems:
        raise ApiError(400, "WHK_1001", "Invalid deactivation policy", problems)
    return values


def notification_status(ctx: Ctx) -> dict[str, Any]:
    """The webhook's deliveries, newest first, under `WebhookStatus`. The service makes
    no deliveries, so the list is empty, paged as every listing is."""
    _addressed_webhook(ctx)
    return page(ctx.params, [], "WebhookStatus")


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
    require_release(ctx, OperationName.WEBHOOK_SETTINGS)
    return {**ctx.portal["webhookSettings"], "status": "success"}


def write_settings(ctx: Ctx) -> dict[str, Any]:
    values: dict[str, int] = {}
    problems = []
    kept = ctx.portal["webhookSettings"]
    for name, allowed in WEBHOOK_SETTINGS.items():
        value = ctx.params.integer(name)
        value = int(kept.get(name, allowed.default)) if value is None else value
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
