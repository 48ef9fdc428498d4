"""OrganizationWebhooks: which organization webhooks must not exist (10.7+). A policy no
live portal can tell, so it is neither exported nor adopted."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from reconciler import address_forms as forms
from reconciler.export.documents import Document as Exported
from reconciler.kind import (
    Export,
    ExportInput,
    ExportPart,
    Fill,
    Kind,
    LiveRead,
    Unread,
    Write,
    model_reader,
)
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, gate, source
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.operations import OperationName, ReadName
from reconciler.plan.diff import deleted
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState, StateKey, Webhook

NAME = "OrganizationWebhooks"
WEBHOOK = forms.ORGANIZATION_WEBHOOK


class OrganizationWebhooksSpec(models.Strict):
    absent: models.StringSet = models.empty()
    keep: models.StringSet = models.empty()
    prune: bool = False


class OrganizationWebhooks(models.Document):
    kind: Literal["OrganizationWebhooks"]
    metadata: models.DocumentMetadata
    spec: OrganizationWebhooksSpec


_model = model_reader(OrganizationWebhooks)


@dataclass(frozen=True, slots=True)
class WebhookRemoval:
    """Which organization webhooks must not exist."""

    absent: frozenset[str] = frozenset()  # ids or names
    keep: frozenset[str] = frozenset()  # ids or names; with prune, all others go
    prune: bool = False


# What must not exist (None: no OrganizationWebhooks document); the portal's organization
# webhooks by id, read when a document removes some or the whole portal is read.
REMOVAL: StateKey[WebhookRemoval | None] = StateKey(NAME, lambda: None)
WEBHOOKS: StateKey[dict[str, Webhook]] = StateKey(NAME, dict)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    spec = _model(document).spec
    yield from gate(document, (), OperationName.DELETE_WEBHOOK, context.platform)
    for index, hook in enumerate(spec.absent):
        if hook in spec.keep:
            yield document.problem(("spec", "absent", index), f"{hook!r} is also in keep")


def _desired(desired: DesiredState, document: Document) -> None:
    spec = _model(document).spec
    removal = WebhookRemoval(frozenset(spec.absent), frozenset(spec.keep), spec.prune)
    desired.put(REMOVAL, removal)
    desired.sources[NAME] = source(document)


# --- live --------------------------------------------------------------------------------------


async def _read(source: LiveRead) -> Fill:
    hooks = await _webhooks(source)

    def fill(live: LiveState) -> None:
        live.put(WEBHOOKS, hooks)

    return fill


async def _webhooks(source: LiveRead) -> dict[str, Webhook]:
    """The organization's webhooks, when a document removes some (a refused listing is
    kept in `unread`) or the whole portal is read (any failure leaves them out)."""
    # Imported here, not at the top: `orgctl validate` loads every kind's module and no
    # network stack (reconciler.live brings httpx and asyncio).
    from reconciler.errors import UserError
    from reconciler.live import records
    from reconciler.live.errors import ServiceError

    removing = source.desired is not None and source.desired.get(REMOVAL) is not None
    if not (source.everything or removing):
        return {}
    read = source.pages(ReadName.ORG_WEBHOOKS)
    if source.everything:
        try:
            raw = await read
        except (ServiceError, UserError):
            raw = []
    else:
        raw = await source.permitted(WEBHOOK.every(), read, [])
    listed = source.kept(raw, records.webhook)
    return {w.id: w for w in source.distinct(listed, "id", _id, _address)}


def _id(webhook: Webhook) -> str:
    return webhook.id


def _address(webhook: Webhook) -> str:
    return WEBHOOK.of(webhook.id)


def _forget(live: LiveState, parts: Mapping[str, str]) -> LiveState:
    return live.with_slot(WEBHOOKS, {})


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    for wid, hook in live.get(WEBHOOKS).items():
        yield WEBHOOK.of(wid), hook


# --- plan --------------------------------------------------------------------------------------


def _plan(draft: Draft) -> None:
    removal = draft.desired.get(REMOVAL)
    if removal is None:
        return
    hooks = draft.live.get(WEBHOOKS)
    for wid in sorted(hooks):
        hook = hooks[wid]
        names = {hook.id, hook.name}
        unwanted = bool(names & removal.absent)
        pruned = removal.prune and not (names & removal.keep)
        if not (unwanted or pruned):
            continue
        address = WEBHOOK.of(wid)
        draft.changes.append(deleted(address, {"name": hook.name, "active": hook.active}))
        draft.call(address, OperationName.DELETE_WEBHOOK, {}, ids={"webhookId": wid})


def _depending(desired: DesiredState, part: str) -> list[str]:
    return [WEBHOOK.every()] if desired.get(REMOVAL) is not None else []


def _export(given: ExportInput) -> ExportPart[Exported]:
    hooks = len(given.live.get(WEBHOOKS))
    notes = [f"{hooks} organization webhook(s) left out: a manifest can only remove them ({NAME})"]
    return ExportPart([], notes if hooks else [], None)


def _writes(desired: DesiredState, live: LiveState) -> Iterator[Write]:
    if desired.get(REMOVAL) is not None:
        yield Write(OperationName.DELETE_WEBHOOK, NAME)


KIND = Kind(
    name=NAME,
    model=OrganizationWebhooks,
    singleton=True,
    addresses=(WEBHOOK,),
    set_fields=(("spec", "absent"), ("spec", "keep")),
    identities=lambda document: (),
    rules=_rules,
    desired=_desired,
    read=_read,
    people=False,
    live=_live,
    defaults={},
    # Only a manifest that removes webhooks depends on the listing.
    unread=Unread(
        WEBHOOK.every(),
        ReadName.ORG_WEBHOOKS,
        declared=_depending,
        forget=_forget,
    ),
    grants=None,
    prepare=None,
    plan=_plan,
    plan_last=None,
    annotate=None,
    writes=_writes,
    privileges=None,
    export=Export(None, _export),
    adopt=None,
    unadoptable={"OrganizationWebhook": f"{NAME} states which webhooks must go; edit it by hand"},
)
