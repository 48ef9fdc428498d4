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
from reconciler.manifest.suggestions import did_you_mean
from reconciler.plan.draft import Draft
from reconciler.policy.rules import check
from reconciler.policy.variables import (
    FIELDS,
    access_subjects,
    change_variable,
    live_access,
    planned_access,
    portal_variable,
)
from reconciler.policy.verdicts import (
    FIELD_IN_MESSAGE,
    Rule,
    Status,
    Verdict,
    causes,
    collector_paused,
    compiled,
    judge,
    phrase,
    until_time,
)
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
    yield from _message_problems(document, spec)
    yield from _exception_problems(document, spec)


def _message_problems(document: Document, spec: PolicySpec) -> Iterator[Problem]:
    """Each `{field}` of the message names a field of the subject's variable."""
    fields = FIELDS[spec.subject]
    for found in FIELD_IN_MESSAGE.finditer(spec.message):
        if found.group(1) not in fields:
            hint = did_you_mean(found.group(1), fields)
            yield document.problem(
                ("spec", "message"),
                f"{{{found.group(1)}}}: {spec.subject} has no such field{hint};"
                f" its fields: {', '.join(fields)}",
            )


def _exception_problems(document: Document, spec: PolicySpec) -> Iterator[Problem]:
    now = dt.datetime.now(dt.UTC)
    for index, exception in enumerate(spec.exceptions):
        path = ("spec", "exceptions", index, "until")
        try:
            end = until_time(exception.until)
        except ValueError:
            yield document.problem(path, f"{exception.until!r} is neither RFC 3339 nor a date")
            continue
        if end is not None and end <= now:
            yield document.warning(
                path,
                f"the exception for {exception.subject} expired on {end}: it no longer applies",
            )


def _desired(desired: DesiredState, document: Document) -> None:
    desired.kinds.setdefault(NAME, []).append(_model(document))


def _live(live: LiveState) -> Iterator[tuple[str, object]]:
    return iter(())  # a policy has no live resource, so no part of the fingerprint


def _plan(draft: Draft) -> None:
    """Policies are judged once every kind has planned (`_judge`)."""


def _judge(draft: Draft) -> None:
    """Every policy on the live state and after the plan: a violation the plan introduces
    of a mandatory policy is an error (apply refuses); the others are warnings."""
    policies = declared(draft.desired)
    if not policies or not draft.judge_policies:
        return
    with collector_paused():
        draft.policies = judge_plan([rule_of(p) for p in policies], draft)
    for verdict in draft.policies:
        blocks = verdict.status is Status.INTRODUCED and verdict.enforcement == "mandatory"
        (draft.error if blocks else draft.warn)(verdict.subject, phrase(verdict))


def rule_of(policy: Policy) -> Rule:
    spec = policy.spec
    exceptions = [(e.subject, e.reason, e.until) for e in spec.exceptions]
    return compiled(
        policy.metadata.name,
        spec.enforcement,
        spec.subject,
        spec.match,
        spec.rule,
        spec.message,
        exceptions,
    )


def judge_plan(rules: list[Rule], draft: Draft) -> list[Verdict]:
    extra = draft.desired.portal.extraPrivileges
    live = draft.live
    before = live_access(live, extra)
    desired = draft.desired
    after = planned_access(live, desired.roles, desired.members, draft.final_roles, extra)
    name = desired.portal.name
    was = access_subjects(before, before)
    was["portal"] = [portal_variable(name, live, before)]
    will = access_subjects(before, after, was)
    will["portal"] = [portal_variable(name, live, after, before)]
    will["change"] = [(c.address, change_variable(c)) for c in draft.changes]
    now = dt.datetime.fromtimestamp(draft.now_ms / 1000, dt.UTC)
    changed = {c.address for c in draft.changes}
    return judge(rules, was, will, now, causes(changed, before, after))


def live_verdicts(desired: DesiredState, live: LiveState, now: dt.datetime) -> list[Verdict]:
    """The manifests' policies judged on the live state alone (drift, access): the
    after-values equal the before-values, nothing is gained or lost, and no change is
    planned. Every violation is `existing`, with no cause."""
    policies = declared(desired)
    if not policies:
        return []
    with collector_paused():
        access = live_access(live, desired.portal.extraPrivileges)
        subjects = access_subjects(access, access)
        subjects["portal"] = [portal_variable(desired.portal.name, live, access)]
        return judge([rule_of(p) for p in policies], subjects, subjects, now, {})


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
    plan_last=_judge,  # after the members' final roles are known
    export=Export(None, _export),
    adopt=None,
    unadoptable={NAME: "a policy lives only in the manifests; edit it by hand"},
)
