"""Judging policies on the live state and on the state after a plan.

Each policy is evaluated on every subject of its kind twice: on the live portal (where
the after-values equal the before-values) and once the plan is applied. A violation
present only after is `introduced`, present in both `existing`, present only before
`cured`. Each introduced or cured violation names its cause: the planned change at the
subject itself, or, for a member, the change of the role it holds (a role edit that
makes a holder break a rule is reported at the member, naming the role's change).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reconciler.address_forms import MEMBER, ROLE
from reconciler.clock import moment
from reconciler.plan.model import PolicyStatus, PolicyVerdict
from reconciler.policy.rules import cel_module, compile_rule, referenced_fields
from reconciler.policy.variables import NOW, Access

Subjects = Sequence[tuple[str, dict[str, Any]]]  # (address, the subject's variable)


Status = PolicyStatus
Verdict = PolicyVerdict


@dataclass(frozen=True, slots=True)
class Exception_:
    subject: str  # an address
    reason: str
    until: dt.datetime | None  # None: for good


@dataclass(frozen=True, slots=True)
class Rule:
    """One policy, ready to evaluate."""

    name: str
    enforcement: str  # advisory | mandatory
    subject: str  # member | role | portal | change
    match: Any  # a compiled CEL program, or None
    rule: Any
    message: str
    exceptions: tuple[Exception_, ...] = ()
    # The subject's fields match and rule read (None: the whole variable).
    fields: frozenset[str] | None = None

    def excepted(self, now: dt.datetime) -> frozenset[str]:
        """The addresses an exception still covers at `now`."""
        return frozenset(e.subject for e in self.exceptions if e.until is None or now < e.until)


def until_time(value: dt.datetime | dt.date | str | None) -> dt.datetime | None:
    """An exception's end (reconciler.clock.moment)."""
    return moment(value)


def violations(rules: Iterable[Rule], subjects: Subjects, now: dt.datetime) -> set[tuple[str, str]]:
    """(policy, address) of each violation. A rule's verdict depends only on the fields it
    reads, so subjects alike in those (members of one role and level) share one
    evaluation: converting a subject into CEL is most of an evaluation's cost."""
    cel = cel_module()
    found = set()
    for rule in rules:
        seen: dict[tuple[Any, ...], bool] = {}
        excepted = rule.excepted(now)
        fields = sorted(rule.fields) if rule.fields is not None else None
        for address, variable in subjects:
            if address in excepted:
                continue
            if fields is None:
                shown, key = variable, (address,)
            else:
                # Lists are tuples in every variable (reconciler.policy.variables), so
                # the values themselves are the key.
                shown = {f: variable[f] for f in fields}
                key = tuple(shown.values())
            if key not in seen:
                seen[key] = _violated(rule, cel.Context({rule.subject: shown, NOW: now}))
            if seen[key]:
                found.add((rule.name, address))
    return found


def _violated(rule: Rule, context: Any) -> bool:
    try:
        if rule.match is not None and rule.match.execute(context) is not True:
            return False
        return rule.rule.execute(context) is not True
    except (TypeError, ValueError, RuntimeError, KeyError):
        # A rule that cannot be judged on a subject is not known to hold: it fails closed.
        return True


def judge(
    rules: Sequence[Rule],
    before: Mapping[str, Subjects],
    after: Mapping[str, Subjects],
    now: dt.datetime,
    cause_of: Mapping[str, str],
) -> list[Verdict]:
    """Every violation before or after, each with its status and cause. `before` and
    `after` hold each subject kind's variables; `cause_of` maps a subject's address to
    the address of the planned change that touches it."""
    by_name = {rule.name: rule for rule in rules}
    was: set[tuple[str, str]] = set()
    now_: set[tuple[str, str]] = set()
    for subject in ("member", "role", "portal", "change"):
        of_subject = [r for r in rules if r.subject == subject]
        if of_subject:
            was |= violations(of_subject, before.get(subject, ()), now)
            now_ |= violations(of_subject, after.get(subject, ()), now)
    verdicts = []
    templated = any(FIELD_IN_MESSAGE.search(rule.message) for rule in rules)
    seen_before = _by_address(before) if templated else {}
    seen_after = _by_address(after) if templated else {}
    for name, address in sorted(was | now_):
        rule = by_name[name]
        status = (
            Status.EXISTING
            if (name, address) in was and (name, address) in now_
            else Status.INTRODUCED
            if (name, address) in now_
            else Status.CURED
        )
        cause = None if status is Status.EXISTING else cause_of.get(address)
        seen = seen_before if status is Status.CURED else seen_after
        message = message_of(rule.message, seen.get((rule.subject, address), {}))
        verdicts.append(Verdict(name, rule.enforcement, address, message, cause, status))
    return verdicts


# `{field}` in a policy's message: that field of the subject's variable, as judged.
FIELD_IN_MESSAGE = re.compile(r"\{([A-Za-z_]\w*)\}")


def message_of(message: str, variable: Mapping[str, Any]) -> str:
    """The message with each `{field}` of the subject written out: a list as its items
    joined by ", ", null as "null"; a name the variable lacks is left as written."""

    def shown(found: re.Match[str]) -> str:
        field = found.group(1)
        if field not in variable:
            return found.group(0)
        value = variable[field]
        if isinstance(value, (list, tuple)):
            return ", ".join(str(v) for v in value)
        if isinstance(value, bool):
            return "true" if value else "false"
        return "null" if value is None else str(value)

    return FIELD_IN_MESSAGE.sub(shown, message)


def _by_address(subjects: Mapping[str, Subjects]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (kind, address): variable
        for kind, listed in subjects.items()
        for address, variable in listed
    }


def causes(changed: set[str], before: Access, after: Access) -> dict[str, str]:
    """Subject address -> the address of the planned change causing its verdict. A member
    untouched itself takes the change of its role, after the plan or (for a cure by
    leaving a role) before it."""
    found = {address: address for address in changed}
    for username, member in after.members.items():
        address = MEMBER.of(username)
        if address in found:
            continue
        was = before.members.get(username)
        for role in (member.role, was.role if was else None):
            if role is not None and ROLE.of(role) in changed:
                found[address] = ROLE.of(role)
                break
    return found


def phrase(verdict: Verdict) -> str:
    """The verdict as a plan's error or warning says it."""
    by = f" (caused by {verdict.cause})" if verdict.cause else ""
    if verdict.status is Status.CURED:
        return f"policy {verdict.policy}: cured by this plan{by}: {verdict.message}"
    if verdict.status is Status.EXISTING:
        live = "already violated on the live portal"
        return f"policy {verdict.policy} ({verdict.enforcement}), {live}: {verdict.message}"
    return f"policy {verdict.policy} ({verdict.enforcement}) violated{by}: {verdict.message}"


def compiled(
    name: str,
    enforcement: str,
    subject: str,
    match: str | None,
    rule: str,
    message: str,
    exceptions: Iterable[tuple[str, str, Any]],
) -> Rule:
    read = [referenced_fields(e, subject) for e in (match, rule) if e]
    # A change's before and after are maps, not shared between subjects: no memo.
    whole = subject == "change" or None in read
    fields = None if whole else frozenset().union(*(f for f in read if f is not None))
    return Rule(
        name,
        enforcement,
        subject,
        compile_rule(match) if match else None,
        compile_rule(rule),
        message,
        tuple(Exception_(s, r, until_time(u)) for s, r, u in exceptions),
        fields,
    )
