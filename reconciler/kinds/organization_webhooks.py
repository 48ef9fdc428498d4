"""OrganizationWebhooks: which organization webhooks must not exist (10.7+). A policy no
live portal can tell, so it is neither exported nor adopted."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, Literal

from pydantic import Field

from reconciler import address_forms as forms
from reconciler import state
from reconciler.export.documents import Document as Exported
from reconciler.kind import Export, ExportInput, ExportPart, Kind, Unread, Write, model_reader
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, gate, source
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.operations import OperationName, ReadName
from reconciler.plan.diff import deleted
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState

NAME = "OrganizationWebhooks"
WEBHOOK = forms.ORGANIZATION_WEBHOOK


class OrganizationWebhooksSpec(models.Strict):
    absent: models.StringSet = Field([])
    keep: models.StringSet = Field([])
    prune: bool = False


class OrganizationWebhooks(models.Document):
    kind: Literal["OrganizationWebhooks"]
    metadata: models.DocumentMetadata
    spec: OrganizationWebhooksSpec


_model = model_reader(OrganizationWebhooks)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    spec = _model(document).spec
    yield from gate(document, (), OperationName.DELETE_WEBHOOK, context.platform)
    for index, hook in enumerate(spec.absent):
        if hook in spec.keep:
            yield document.problem(("spec", "absent", index), f"{hook!r} is also in keep")


def _desired(desired: DesiredState, document: Document) -> None:
    spec = _model(document).spec
    desired.webhookRemoval = state.WebhookRemoval(
        frozenset(spec.absent), frozenset(spec.keep), spec.prune
    )
    desired.sources[NAME] = source(document)


def _forget(live: LiveState, parts: Mapping[str, str]) -> LiveState:
    return replace(live, webhooks={})


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    for wid, hook in live.webhooks.items():
        yield WEBHOOK.of(wid), hook


def _plan(draft: Draft) -> None:
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
        address = WEBHOOK.of(wid)
        draft.changes.append(deleted(address, {"name": hook.name, "active": hook.active}))
        draft.call(address, OperationName.DELETE_WEBHOOK, {}, ids={"webhookId": wid})


def _export(given: ExportInput) -> ExportPart[Exported]:
    hooks = len(given.live.webhooks)
    notes = [f"{hooks} organization webhook(s) left out: a manifest can only remove them ({NAME})"]
    return ExportPart([], notes if hooks else [], None)


def _writes(desired: DesiredState, live: LiveState) -> Iterator[Write]:
    if desired.webhookRemoval is not None:
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
    read=None,  # by live/reader.py itself
    people=False,
    live=_live,
    defaults={},
    # Only a manifest that removes webhooks depends on the listing.
    unread=Unread(
        WEBHOOK.every(),
        ReadName.ORG_WEBHOOKS,
        declared=lambda desired: [WEBHOOK.every()] if desired.webhookRemoval is not None else [],
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
