"""Webhook delivery settings (admin root) and removal of organization webhooks."""

from __future__ import annotations

from reconciler import catalog
from reconciler.operations import OperationName
from reconciler.plan.diff import deleted, diff_record
from reconciler.plan.draft import Draft, Group
from reconciler.plan.model import Action, Change
from reconciler.plan.normalize import canonical_fields, form_value
from reconciler.plan.unread import SETTINGS, needs

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
        unknown = _sent_unknown(draft, declared)
        if unknown is None:
            return
        sent = unknown
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
    draft.call(Group.WEBHOOK_SETTINGS, SETTINGS_ADDRESS, OperationName.WEBHOOK_SETTINGS, params)


def _sent_unknown(draft: Draft, declared: dict[str, int]) -> dict[str, int | None] | None:
    """What to send when the live settings are unknown: all five, the undeclared ones at
    their defaults, saying so; None (an error) when the account was refused the read, as
    another account could compare the values the plan would reset."""
    sent = {n: declared.get(n, r.default) for n, r in catalog.WEBHOOK_SETTINGS.items()}
    undeclared = sorted(set(catalog.WEBHOOK_SETTINGS) - set(declared))
    why = draft.live.webhookSettingsUnread
    unknown = f"live settings are unknown ({why})" if why else "live settings are unknown"
    if undeclared and SETTINGS in draft.live.unread:
        draft.error(
            SETTINGS_ADDRESS,
            f"cannot compare: {unknown}; the plan would reset undeclared fields to their"
            f" defaults ({', '.join(undeclared)}): declare all five, or plan with an"
            f" account that may read them ({needs(SETTINGS)})",
        )
        return None
    if undeclared:
        draft.warn(
            SETTINGS_ADDRESS,
            f"{unknown}; undeclared fields will be reset to their "
            f"defaults: {', '.join(undeclared)}",
        )
    elif why:
        draft.warn(SETTINGS_ADDRESS, f"{unknown}; the settings are sent every time")
    return dict(sent)


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
        draft.call(
            Group.DELETE_WEBHOOKS, address, OperationName.DELETE_WEBHOOK, {}, ids={"webhookId": wid}
        )
