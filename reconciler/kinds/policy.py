"""Policy: an organization's own rule, in CEL, over a member, a role, the portal or a
planned change (reconciler.policy). A policy declares no live resource: it is read from
the manifests, checked offline by validate, and judged on effective access by plan."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import replace
from typing import Literal

from pydantic import Field

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
from reconciler.kinds.members.causes import causes
from reconciler.kinds.members.grants import with_grants
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, deadline
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.suggestions import did_you_mean
from reconciler.plan.draft import Draft, PendingCall
from reconciler.plan.model import Ref
from reconciler.policy.rules import check
from reconciler.policy.variables import (
    FIELDS,
    access_subjects,
    change_variable,
    live_access,
    planned_access,
    portal_fields,
    portal_variable,
)
from reconciler.policy.verdicts import (
    FIELD_IN_MESSAGE,
    Rule,
    Status,
    Verdict,
    collector_paused,
    compiled,
    judge,
    phrase,
)
from reconciler.state import DesiredState, LiveState, StateKey

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
# The manifests' policies, in reading order.
POLICIES: StateKey[list[Policy]] = StateKey(NAME, list)


def _identities(document: Document) -> Iterator[Identities[Document]]:
    yield Identities.named("policy", document, ("metadata", "name"), document.name)


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
        yield from deadline(
            document,
            ("spec", "exceptions", index, "until"),
            exception.until,
            now,
            f"the exception for {exception.subject} expired on {{end}}: it no longer applies",
        )


def _desired(desired: DesiredState, document: Document) -> None:
    desired.get(POLICIES).append(_model(document))


def _live(live: LiveState) -> Iterator[tuple[str, object]]:
    return iter(())  # a policy has no live resource, so no part of the fingerprint


def _plan(draft: Draft) -> None:
    """Policies are judged once every kind has planned (`_judge`); the shipped ones on
    the calls the plan keeps (`_shipped`)."""
    draft.on_kept.append(_shipped)


def _shipped(draft: Draft) -> None:
    """The portal refuses to move its last default administrator out of org_admin
    (ORG_1090): the built-in policy default-administrator makes a plan that moves every
    one of them, with none moved in, an error. Each member holds, after the plan, the
    role its kept updateUserRole call gives it."""
    # Loaded when a plan is judged: validate loads this kind without the planner's checks.
    from reconciler.plan.admins import role_calls
    from reconciler.policy.builtin import judged

    moves = role_calls(draft)
    if not moves:
        # No member changes role, so every built-in's variable after the plan equals the
        # live one, where each holds (reconciler.policy.builtin): nothing to judge, and
        # the CEL engine (a fifth of a second to load) stays unloaded.
        return
    live = draft.live
    after = {
        username: replace(member, role=_moved_to(moves[username])) if username in moves else member
        for username, member in live.members.items()
    }
    name = draft.desired.portal.name
    verdicts = judged(
        portal_fields(name, live, live.members),
        portal_fields(name, live, after, live.members),
        f"Portal/{name}",
        draft.now_ms,
    )
    for verdict in verdicts:
        if verdict.status is Status.INTRODUCED and verdict.enforcement == "mandatory":
            # Said as it always was, at the Portal document.
            draft.error("Portal", verdict.message)
    if verdicts:
        draft.policies = [*(draft.policies or ()), *verdicts]


def _moved_to(call: PendingCall) -> str | None:
    """The role an updateUserRole call gives: a built-in role by its name; a custom one
    (a reference or an id) is never org_admin, so its name is not needed here."""
    role = call.params.get("role")
    if isinstance(role, str):
        return role
    return role.address.removeprefix("Role/") if isinstance(role, Ref) else None


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
    after = with_grants(after, desired.grants)
    name = desired.portal.name
    was = access_subjects(before, before)
    was["portal"] = [portal_variable(name, live, before)]
    will = access_subjects(before, after, was)
    will["portal"] = [portal_variable(name, live, after, before)]
    will["change"] = [(c.address, change_variable(c)) for c in draft.changes]
    now = draft.judged_at
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


def _export(given: ExportInput) -> ExportPart[Exported]:
    return ExportPart([], [], None)  # no portal holds a policy to export


def declared(desired: DesiredState) -> list[Policy]:
    """The manifests' policies, in the order they were read."""
    return desired.get(POLICIES) if desired.has(POLICIES) else []


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
    people=False,
    live=_live,
    defaults={},
    unread=None,
    grants=None,
    prepare=None,
    plan=_plan,
    plan_last=_judge,  # after the members' final roles are known
    annotate=None,
    writes=None,
    privileges=None,
    export=Export(None, _export),
    adopt=None,
    unadoptable={NAME: "a policy lives only in the manifests; edit it by hand"},
)
