"""Campaign: a certification campaign, the definition of a periodic access review
(reconciler.certify runs it). Like a policy it declares no live resource: it is read from
the manifests, checked offline by validate, and has no part in a plan."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator
from typing import Literal

from pydantic import Field

from reconciler.clock import moment
from reconciler.export.documents import Document as Exported
from reconciler.kind import (
    AddressForm,
    Export,
    ExportInput,
    ExportPart,
    Identities,
    Kind,
    model_reader,
)
from reconciler.kinds.role import known_member_roles, listed_once
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext
from reconciler.manifest.ignoring import pattern_problems
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.suggestions import did_you_mean
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState

NAME = "Campaign"
ADDRESS = AddressForm(NAME, ("name",))
_FOLDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class CampaignScope(models.Strict):
    """Who is reviewed: a member is in scope when any part given matches."""

    privileges: list[str] = models.empty(
        description="shell-style patterns: members whose role holds a matching privilege"
    )
    roles: list[str] = models.empty(description="members holding one of these roles")
    members: list[models.Username] = models.empty(description="these members")
    administrativeOnly: bool = Field(
        False, description="members whose role holds an administrative privilege (portal:admin:*)"
    )


class CampaignReviewers(models.Strict):
    roleOwners: bool = Field(
        True, description="send a member's item to the owners of its role (Role metadata.owners)"
    )
    fallback: list[models.Username] = models.empty(
        description="who reviews a member whose role has no other owner than the member"
    )


class RevokeTo(models.Strict):
    role: str = Field(min_length=1, description="the role a revoked member is given")
    level: Literal[1, 2] | None = Field(None, description="the level; absent: unchanged")


class CampaignSpec(models.Strict):
    description: str | None = None
    scope: CampaignScope
    reviewers: CampaignReviewers
    due: dt.datetime | dt.date | str = Field(description="RFC 3339, or a date (its start, UTC)")
    noResponse: Literal["keep", "revoke"] = Field(
        description="what closing after `due` does with an item still pending"
    )
    revokeTo: RevokeTo


class Campaign(models.Document):
    kind: Literal["Campaign"]
    metadata: models.DocumentMetadata
    spec: CampaignSpec


_model = model_reader(Campaign)


def _identities(document: Document) -> Iterator[Identities[Document]]:
    yield Identities.named("campaign", document, ("metadata", "name"), document.name)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    spec = _model(document).spec
    scope = spec.scope
    if not _FOLDER_NAME.match(document.name):
        yield document.problem(
            ("metadata", "name"),
            "a campaign's name names its folder of reviews: letters, digits, '.', '_' and '-'",
        )
    if not (scope.privileges or scope.roles or scope.members or scope.administrativeOnly):
        yield document.problem(
            ("spec", "scope"),
            "the scope names no one: give privileges, roles, members or administrativeOnly",
        )
    yield from pattern_problems(document, ("spec", "scope", "privileges"), scope.privileges)
    yield from listed_once(document, ("spec", "scope", "members"), scope.members, "member")
    fallback = spec.reviewers.fallback
    yield from listed_once(document, ("spec", "reviewers", "fallback"), fallback, "reviewer")
    if not spec.reviewers.roleOwners and not fallback:
        yield document.problem(
            ("spec", "reviewers"), "no one reviews: set roleOwners or list fallback reviewers"
        )
    try:
        moment(spec.due)
    except ValueError:
        yield document.problem(("spec", "due"), f"{spec.due!r} is neither RFC 3339 nor a date")
    yield from _revoke_to(document, spec.revokeTo, context)


def _revoke_to(document: Document, revoke: RevokeTo, context: RuleContext) -> Iterator[Problem]:
    roles = known_member_roles(context)
    if not roles.knows(revoke.role):
        yield document.warning(
            ("spec", "revokeTo", "role"),
            f"role {revoke.role!r} is neither built-in nor declared: closing fails at plan"
            f" unless the portal already has it{did_you_mean(revoke.role, roles.offered)}",
        )


def due(campaign: Campaign) -> dt.datetime:
    """The campaign's deadline (validate has checked it parses)."""
    found = moment(campaign.spec.due)
    assert found is not None
    return found


def named(documents: Iterable[Document], name: str) -> tuple[Document, Campaign] | None:
    """The campaign document called `name`, with its model."""
    for document in documents:
        if isinstance(document.model, Campaign) and document.name == name:
            return document, document.model
    return None


def names(documents: Iterable[Document]) -> list[str]:
    return sorted(d.name for d in documents if isinstance(d.model, Campaign))


def _desired(desired: DesiredState, document: Document) -> None:
    """A campaign declares nothing the portal holds: no part of the desired state."""


def _live(live: LiveState) -> Iterator[tuple[str, object]]:
    return iter(())  # no live resource, so no part of the fingerprint


def _plan(draft: Draft) -> None:
    """No effect on plans: `orgctl certify close` turns its outcome into Members edits."""


def _export(given: ExportInput) -> ExportPart[Exported]:
    return ExportPart([], [], None)  # no portal holds a campaign to export


KIND = Kind(
    name=NAME,
    model=Campaign,
    singleton=False,
    addresses=(ADDRESS,),
    set_fields=(),
    identities=_identities,
    rules=_rules,
    desired=_desired,
    read=None,  # nothing live to read
    people=False,
    live=_live,
    defaults={},
    unread=None,
    grants=None,
    prepare=None,
    plan=_plan,
    plan_last=None,
    annotate=None,
    writes=None,
    privileges=None,
    export=Export(None, _export),
    adopt=None,
    unadoptable={NAME: "a campaign lives only in the manifests; edit it by hand"},
)
