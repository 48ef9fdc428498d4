"""Policy: an organization's own rule, in CEL, over a member, a role, the portal or a
planned change (reconciler.policy). A policy declares no live resource: it is read from
the manifests, checked offline by validate, and judged on effective access by plan."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Literal

from pydantic import Field

from reconciler.kinds.registry import (
    AddressForm,
    Export,
    ExportInput,
    ExportPart,
    Identity,
    Kind,
    model_reader,
)
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.plan.draft import Draft
from reconciler.policy.rules import check
from reconciler.state import DesiredState, LiveState

NAME = "Policy"
ADDRESS = AddressForm(NAME, ("name",))


class PolicyException(models.Strict):
    subject: str = Field(description="an address: Member/gina, Role/Analyst, Portal/hq")
    reason: str
    until: dt.datetime | dt.date | str | None = Field(
        None, description="RFC 3339, or a date (its start, UTC); past it the exception ends"
    )


class PolicySpec(models.Strict):
    description: str | None = None
    enforcement: Literal["advisory", "mandatory"]
    subject: Literal["member", "role", "portal", "change"]
    match: str | None = Field(None, description="CEL: the subjects the rule applies to")
    rule: str = Field(description="CEL that must hold for every matched subject")
    message: str
    exceptions: list[PolicyException] = Field(default_factory=list)


class Policy(models.Document):
    kind: Literal["Policy"]
    metadata: models.DocumentMetadata
    spec: PolicySpec


_model = model_reader(Policy)


def _identities(document: Document) -> Iterator[Identity]:
    yield Identity("policy", document, ("metadata", "name"), document.name)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    spec = _model(document).spec
    for field, expression in (("match", spec.match), ("rule", spec.rule)):
        if expression is None:
            continue
        problem = check(expression, spec.subject)
        if problem is not None:
            yield document.problem(
                ("spec", field), f"column {problem.column} of the expression: {problem.message}"
            )


def _desired(desired: DesiredState, document: Document) -> None:
    desired.kinds.setdefault(NAME, []).append(_model(document))


def _live(live: LiveState) -> Iterator[tuple[str, object]]:
    return iter(())  # a policy has no live resource, so no part of the fingerprint


def _plan(draft: Draft) -> None:
    """Policies are judged once every kind has planned (reconciler.policy.verdicts)."""


def _export(given: ExportInput) -> ExportPart:
    return ExportPart([], [], None)  # no portal holds a policy to export


def declared(desired: DesiredState) -> list[Policy]:
    """The manifests' policies, in the order they were read."""
    found: list[Policy] = desired.kinds.get(NAME, [])
    return found


KIND = Kind(
    name=NAME,
    model=Policy,
    singleton=False,
    addresses=(ADDRESS,),
    set_fields=(),
    identities=_identities,
    rules=_rules,
    desired=_desired,
    read=None,  # nothing live to read
    live=_live,
    defaults={},
    unread=None,
    plan=_plan,
    plan_last=None,
    export=Export(None, _export),
    adopt=None,
    unadoptable={NAME: "a policy lives only in the manifests; edit it by hand"},
)
