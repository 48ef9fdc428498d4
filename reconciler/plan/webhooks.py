"""Webhook delivery settings (admin root) and removal of organization webhooks."""

from __future__ import annotations

from reconciler import catalog
from reconciler.operations import OperationName
from reconciler.plan.diff import deleted, diff_record
from reconciler.plan.draft import Draft
from reconciler.plan.model import Action, Change
from reconciler.plan.normalize import canonical_fields, form_value

SETTINGS_ADDRESS = "WebhookSettings"


def plan_webhook_settings(draft: Draft) -> None:
    declared = draft.desired.webhookSettings
    if not declared:
        return
    live = draft.live.webhookSettings
    if draft.desired.portal.adminUrl is None:
        draft.error(SETTINGS_ADDRESS, "needs the Portal's spec.adminUrl (the admin root)")
        return
    sent: dict[str, int | None]
    if live is None:
        # Unreadable: always send, and say what the fields left out become.
        sent = {n: declared.get(n, r.default) for n, r in catalog.WEBHOOK_SETTINGS.items()}
        undeclared = sorted(set(catalog.WEBHOOK_SETTINGS) - set(declared))
        why = draft.live.webhookSettingsUnread
        unknown = f"live settings are unknown ({why})" if why else "live settings are unknown"
        if undeclared:
            draft.warn(
                SETTINGS_ADDRESS,
                f"{unknown}; undeclared fields will be reset to their "
                f"defaults: {', '.join(undeclared)}",
            )
        elif why:
            draft.warn(SETTINGS_ADDRESS, f"{unknown}; the settings are sent every time")
        draft.changes.append(Change(SETTINGS_ADDRESS, Action.UPDATE, None, canonical_fields(sent)))
    else:
        change = diff_record(SETTINGS_ADDRESS, live, declared)
        if change is None:
            return
        draft.changes.append(change)
        # The service resets an omitted field to its default: send all five.
        sent = {
            name: declared.get(name, live.get(name, limits.default))
            for name, limits in catalog.WEBHOOK_SETTINGS.items()
        }
    params = {name: form_value(value) for name, value in sent.items() if value is not None}
    draft.call(SETTINGS_ADDRESS, OperationName.WEBHOOK_SETTINGS, params)


def plan_webhook_removal(draft: Draft) -> None:
    removal = draft.desired.webhookRemoval
    if removal is None:
        return
    for wid in sorted(draft.live.webhooks):
        hook = draft.live.webhooks[wid]
        names = {hook.id, hook.name}
        unwanted = bool(names & removal.absent)
        pruned = removal.prune and not (names & removal.keep)
        if not (unwanted or pruned):
            continue
        address = f"OrganizationWebhook/{wid}"
        draft.changes.append(deleted(address, {"name": hook.name, "active": hook.active}))
        draft.call(address, OperationName.DELETE_WEBHOOK, {}, ids={"webhookId": wid})
