"""WebhookSettings: the delivery policy of the admin root's webhooks (self-hosted 11.2+).
One per manifest set; fields left out keep their live value, though all five are sent
(the service resets an omitted one to its default)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo, WithJsonSchema

from reconciler import catalog
from reconciler.errors import UserError
from reconciler.export.documents import Document as Exported
from reconciler.export.documents import document
from reconciler.kind import (
    AddressForm,
    Adopt,
    Export,
    ExportInput,
    ExportPart,
    Fill,
    Kind,
    LiveRead,
    Unread,
    model_reader,
)
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, gate, source
from reconciler.manifest.loader import Document
from reconciler.manifest.portal import effective_urls
from reconciler.manifest.problems import Problem
from reconciler.operations import READS, OperationName, ReadName, availability_problem
from reconciler.plan.diff import diff_record
from reconciler.plan.draft import Draft
from reconciler.plan.model import Action, Change
from reconciler.plan.normalize import canonical_fields, fields_at, form_value
from reconciler.plan.unread import needs
from reconciler.state import DesiredState, LiveState, StateKey
from reconciler.values import integer

NAME = "WebhookSettings"
ADDRESS = AddressForm(NAME, ())  # one per portal
LIMITS = catalog.WEBHOOK_SETTINGS
OPERATION = OperationName.WEBHOOK_SETTINGS
READ = ReadName.WEBHOOK_SETTINGS
NEEDS_ADMIN_URL = "needs the Portal's spec.adminUrl (the admin root)"

if TYPE_CHECKING:
    from reconciler.adopt.addresses import Address
    from reconciler.adopt.files import ManifestFiles


# --- manifest ----------------------------------------------------------------------------------


def _in_range(value: int, info: ValidationInfo) -> int:
    # The service's own words for a value out of range (catalog.IntRange), not pydantic's.
    problem = LIMITS[str(info.field_name)].problem(str(info.field_name), value)
    if problem:
        raise ValueError(problem)
    return value


def _setting(name: str) -> Any:
    bounds = LIMITS[name]
    return Field(None, description=f"default {bounds.default}")


def _bounds(name: str) -> WithJsonSchema:
    # The JSON Schema keeps the plain bounds, for editors.
    bounds = LIMITS[name]
    return WithJsonSchema({"type": "integer", "minimum": bounds.low, "maximum": bounds.high})


_IN_RANGE = AfterValidator(_in_range)


class WebhookSettingsSpec(models.Strict):
    notificationAttempts: Annotated[int, _IN_RANGE, _bounds("notificationAttempts")] | None = (
        _setting("notificationAttempts")
    )
    notificationTimeOutInSeconds: (
        Annotated[int, _IN_RANGE, _bounds("notificationTimeOutInSeconds")] | None
    ) = _setting("notificationTimeOutInSeconds")
    notificationElapsedTimeInSeconds: (
        Annotated[int, _IN_RANGE, _bounds("notificationElapsedTimeInSeconds")] | None
    ) = _setting("notificationElapsedTimeInSeconds")
    numberOfFailures: Annotated[int, _IN_RANGE, _bounds("numberOfFailures")] | None = _setting(
        "numberOfFailures"
    )
    daysInPast: Annotated[int, _IN_RANGE, _bounds("daysInPast")] | None = _setting("daysInPast")


class WebhookSettings(models.Document):
    kind: Literal["WebhookSettings"]
    metadata: models.DocumentMetadata
    spec: WebhookSettingsSpec


_model = model_reader(WebhookSettings)


@dataclass(frozen=True, slots=True)
class LiveSettings:
    """The portal's settings, or why they are unknown."""

    values: dict[str, int] | None = None  # None: unreadable, unknown
    unread: str | None = None  # why the settings could not be read


# The declared fields only (None: no WebhookSettings document), and the portal's.
DECLARED: StateKey[dict[str, int] | None] = StateKey(NAME, lambda: None)
LIVE: StateKey[LiveSettings] = StateKey(NAME, LiveSettings)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    yield from gate(document, (), OPERATION, context.platform)
    if context.portal and not effective_urls(context.portal, context.environ, context.name)[1]:
        yield document.problem((), NEEDS_ADMIN_URL)


def _desired(desired: DesiredState, document: Document) -> None:
    desired.put(DECLARED, _model(document).spec.model_dump(exclude_none=True))
    desired.sources[ADDRESS.of()] = source(document)


# --- live --------------------------------------------------------------------------------------


async def _read(source: LiveRead) -> Fill:
    settings, why = await _settings(source)

    def fill(live: LiveState) -> None:
        live.put(LIVE, LiveSettings(settings, why))

    return fill


async def _settings(source: LiveRead) -> tuple[dict[str, int] | None, str | None]:
    """(settings, None), or (None, why) when unknown: the read is undocumented, so any
    refusal is not fatal, but the reason is kept for the plan to show."""
    # Imported here, not at the top: `orgctl validate` loads every kind's module and no
    # network stack (reconciler.live brings httpx and asyncio).
    from reconciler.live.errors import ForbiddenError, ServiceError

    declared = source.desired is not None and source.desired.get(DECLARED) is not None
    if not (source.everything or declared) or source.client.admin_root is None:
        return None, None
    url = source.client.admin_url(READS[READ].build())
    try:
        raw = await source.client.get_json(url)
    except ForbiddenError as refused:
        source.unread[NAME] = refused.message
        return None, str(refused)
    except (ServiceError, UserError) as error:
        return None, str(error)
    settings = source.readable(partial(_record, raw))
    return (settings, None) if settings is not None else (None, "unreadable values")


def _record(raw: dict[str, Any]) -> dict[str, int] | None:
    """The five settings, defaults for those not stated; None when the answer has none."""
    from reconciler.live.records import field_value  # as in `_settings`: only when read

    if not any(name in raw for name in LIMITS):
        return None
    return {
        name: field_value(raw, name, integer, NAME) or limits.default
        for name, limits in LIMITS.items()
    }


def _forget(live: LiveState, parts: Mapping[str, str]) -> LiveState:
    return live.with_slot(LIVE, LiveSettings(None, parts[NAME]))


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    yield ADDRESS.of(), live.get(LIVE).values


# --- plan --------------------------------------------------------------------------------------


def _plan(draft: Draft) -> None:
    declared = draft.desired.get(DECLARED)
    if not declared:
        return
    address = ADDRESS.of()
    live = draft.live.get(LIVE).values
    if draft.desired.portal.adminUrl is None:
        draft.error(address, NEEDS_ADMIN_URL)
        return
    sent: dict[str, int | None]
    if live is None:
        unknown = _sent_unknown(draft, declared)
        if unknown is None:
            return
        sent = unknown
        draft.changes.append(
            Change(address, Action.UPDATE, None, canonical_fields(fields_at(address), sent))
        )
    else:
        change = diff_record(address, live, declared)
        if change is None:
            return
        draft.changes.append(change)
        # The service resets an omitted field to its default: send all five.
        sent = {
            name: declared.get(name, live.get(name, limits.default))
            for name, limits in LIMITS.items()
        }
    params = {name: form_value(value) for name, value in sent.items() if value is not None}
    draft.call(address, OPERATION, params)


def _sent_unknown(draft: Draft, declared: dict[str, int]) -> dict[str, int | None] | None:
    """What to send when the live settings are unknown: all five, the undeclared ones at
    their defaults, saying so; None (an error) when the account was refused the read, as
    another account could compare the values the plan would reset."""
    address = ADDRESS.of()
    sent = {n: declared.get(n, r.default) for n, r in LIMITS.items()}
    undeclared = sorted(set(LIMITS) - set(declared))
    why = draft.live.get(LIVE).unread
    unknown = f"live settings are unknown ({why})" if why else "live settings are unknown"
    if undeclared and NAME in draft.live.unread:
        draft.error(
            address,
            f"cannot compare: {unknown}; the plan would reset undeclared fields to their"
            f" defaults ({', '.join(undeclared)}): declare all five, or plan with an"
            f" account that may read them ({needs(NAME)})",
        )
        return None
    if undeclared:
        draft.warn(
            address,
            f"{unknown}; undeclared fields will be reset to their "
            f"defaults: {', '.join(undeclared)}",
        )
    elif why:
        draft.warn(address, f"{unknown}; the settings are sent every time")
    return dict(sent)


# --- export, adopt -----------------------------------------------------------------------------


def _settings_document(live: LiveState) -> Exported | None:
    """All five settings, in the order of docs/rules.md §2, when the portal has and tells them."""
    settings = live.get(LIVE).values
    if settings is None or availability_problem(OPERATION, live.portal.platform) is not None:
        return None
    spec = {key: settings[key] for key in LIMITS if key in settings}
    return document(NAME, {"name": "delivery"}, spec)


def _export(given: ExportInput) -> ExportPart[Exported]:
    found = _settings_document(given.live) if given.admin_url else None
    if found is not None:
        return ExportPart([found], [], "webhook settings")
    return ExportPart([], _not_exported(given.live, given.admin_url), None)


def _not_exported(live: LiveState, admin_url: str | None) -> list[str]:
    if availability_problem(OPERATION, live.portal.platform) is not None:
        return []
    if not admin_url:
        return ["webhook settings not exported: they need --admin-url (the admin root)"]
    if live.get(LIVE).values is None:
        return ["webhook settings not exported: the portal did not tell their values"]
    return []


def _adopt(files: ManifestFiles, live: LiveState, address: Address) -> str:
    # Loaded when it runs: validate loads every kind, not the writing of YAML.
    from reconciler.adopt.adopter import added, outcome
    from reconciler.adopt.merge import merge_declared

    exported = _settings_document(live)
    if exported is None:
        reason = live.get(LIVE).unread or "the portal did not tell them"
        raise UserError(f"{address}: the live settings are unknown ({reason})")
    found = next(iter(files.documents(NAME)), None)
    if found is None:
        return added(address, files.append(exported))
    path, declared = found
    return outcome(address, path, merge_declared(declared["spec"], exported["spec"]), files)


KIND = Kind(
    name=NAME,
    model=WebhookSettings,
    singleton=True,
    addresses=(ADDRESS,),
    set_fields=(),
    identities=lambda document: (),
    rules=_rules,
    desired=_desired,
    read=_read,
    people=False,
    live=_live,
    # The service's answer for a setting it leaves out (catalog: docs/rules.md §2).
    defaults={name: limits.default for name, limits in LIMITS.items()},
    unread=Unread(NAME, READ, declared=None, forget=_forget),  # its plan says its own
    grants=None,
    prepare=None,
    plan=_plan,
    plan_last=None,
    annotate=None,
    writes=None,  # left to today's plan: its write's capability is the webhook removal's
    privileges=None,
    export=Export("webhook-settings.yaml", _export),
    adopt=Adopt(_adopt),
    unadoptable={},
)
