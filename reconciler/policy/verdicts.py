"""Judging policies on the live state and on the state after a plan.

Each policy is evaluated on every subject of its kind twice: on the live portal (where
the after-values equal the before-values) and once the plan is applied. A violation
present only after is `introduced`, present in both `existing`, present only before
`cured`. Each introduced or cured violation names its cause: the planned change at the
subject itself, or, for a member, the change of the role it holds (a role edit that
makes a holder break a rule is reported at the member, naming the role's change: the
Members kind works that out, reconciler.kinds.members.causes).
"""

from __future__ import annotations

import datetime as dt
import gc
import operator
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import compress, repeat
from typing import Any

from reconciler.clock import moment
from reconciler.plan.model import PolicyStatus, PolicyVerdict
from reconciler.policy.rules import cel_module, compile_rule, referenced_fields
from reconciler.policy.variables import GROUPED, MAPS, NOW, Subject

Subjects = Sequence[Subject]


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
    # The subject's fields the rule reads, and those the match reads (None: the whole
    # variable).
    fields: frozenset[str] | None = None
    match_fields: frozenset[str] | None = None

    def excepted(self, now: dt.datetime) -> frozenset[str]:
        """The addresses an exception still covers at `now`."""
        return frozenset(e.subject for e in self.exceptions if e.until is None or now < e.until)


def until_time(value: dt.datetime | dt.date | str | None) -> dt.datetime | None:
    """An exception's end (reconciler.clock.moment)."""
    return moment(value)


@dataclass(frozen=True, slots=True)
class _State:
    """One state's subjects of a kind, prepared once for every rule that judges them:
    their addresses and variables and, when subjects fall into groups alike in the
    `grouped` fields (members of one role at one level), each subject's group number and
    one variable of each group."""

    addresses: list[str]
    variables: list[Mapping[str, Any]]
    grouped: frozenset[str]
    group_of: list[int]
    groups: dict[int, Mapping[str, Any]]

    @classmethod
    def of(cls, subjects: Subjects, grouped: Sequence[str]) -> _State:
        addresses = [address for address, _ in subjects]
        variables: list[Mapping[str, Any]] = [variable for _, variable in subjects]
        # Numbers, not the keys themselves, stand for groups: a key holds lists of
        # privileges, which would be hashed again for every rule; and each key is let go
        # once numbered, not kept in a list of tens of thousands.
        numbers: dict[Any, int] = {}
        try:
            keys: Iterator[Any] = (
                map(operator.itemgetter(*grouped), variables) if grouped else iter(())
            )
            group_of = [numbers.setdefault(key, len(numbers)) for key in keys]
        except KeyError:  # variables without every grouped field are judged one by one
            group_of = []
        groups: dict[int, Mapping[str, Any]] = dict(zip(group_of, variables, strict=False))
        return cls(addresses, variables, frozenset(grouped), group_of, groups)


def violated(rule: Rule, states: Sequence[_State], now: dt.datetime) -> list[set[str]]:
    """The addresses breaking `rule` in each of `states` (the live state, the state after
    the plan). A verdict depends only on the fields match and rule read, so each distinct
    combination of those is evaluated once across every state: turning Python values into
    CEL is most of an evaluation's cost, and a subject the plan leaves alike in those
    fields is not judged twice. A rule reading only fields its subjects share by group is
    judged group by group, not subject by subject; the per-subject work left is done by
    C-level maps, as a portal has tens of thousands of members."""
    held = _Outcomes(rule.rule, rule.fields, rule.subject, now)
    matched = _Outcomes(rule.match, rule.match_fields, rule.subject, now) if rule.match else None
    read = [rule.fields, rule.match_fields if rule.match else frozenset()]
    excepted = rule.excepted(now)
    found = []
    for state in states:
        if state.groups and all(f is not None and f <= state.grouped for f in read):
            numbers = _breaking(held, matched, list(state.groups), list(state.groups.values()))
            hits = map(numbers.__contains__, state.group_of)
            breaking = set(compress(state.addresses, hits))
        else:
            breaking = _breaking(held, matched, state.addresses, state.variables)
        found.append(breaking - excepted if excepted else breaking)
    return found


def _breaking(
    held: _Outcomes, matched: _Outcomes | None, labels: list[Any], variables: list[Any]
) -> set[Any]:
    """The labels of the variables that break the rule."""
    keys = held.keys(variables)
    breaking: set[Any] = set()
    if matched is not None:
        outcomes = matched.outcomes(matched.keys(variables))
        # A match that fails to evaluate fails closed, as the rule does.
        breaking.update(compress(labels, map(operator.is_, outcomes, repeat(_FAILED))))
        hits = list(map(operator.is_, outcomes, repeat(True)))
        labels, keys = list(compress(labels, hits)), list(compress(keys, hits))
    holds = held.outcomes(keys)
    breaking.update(compress(labels, map(operator.is_not, holds, repeat(True))))
    return breaking


_FAILED = object()  # an expression that raised: not known to hold


class _Outcomes:
    """One compiled expression's result per distinct combination of the subject's fields
    it reads (`fields`; None: the whole variable). A field holding a map (a change's
    `before`) cannot key a shared result: such variables are judged one by one, each
    shown with the fields read alone."""

    def __init__(
        self, program: Any, fields: frozenset[str] | None, subject: str, now: dt.datetime
    ) -> None:
        self.program = program
        self.subject = subject
        self.names = sorted(fields) if fields is not None else None
        self.one_by_one = fields is None or not fields.isdisjoint(MAPS.get(subject, ()))
        # One context for every evaluation, holding `now` (for an expression that reads
        # it): each evaluation replaces the subject alone, and `now` is converted once.
        self.context = cel_module().Context({NOW: now} if NOW in program.variables() else {})
        self.seen: dict[Any, object] = {}
        self.variables: dict[int, Mapping[str, Any]] = {}  # by id, judged one by one

    def keys(self, variables: Sequence[Mapping[str, Any]]) -> list[Any]:
        """Each variable's key: the values of the fields read (lists are tuples in every
        variable, reconciler.policy.variables), or the variable's identity."""
        if self.one_by_one:
            self.variables.update((id(v), v) for v in variables)
            return list(map(id, variables))
        if not self.names:
            return [()] * len(variables)
        return list(map(operator.itemgetter(*self.names), variables))

    def outcomes(self, keys: Sequence[Any]) -> list[object]:
        """The result for each key: True, another value, or _FAILED."""
        seen = self.seen
        for key in set(keys).difference(seen):
            seen[key] = self._run(self._shown(key))
        return list(map(seen.__getitem__, keys))

    def _shown(self, key: Any) -> dict[str, Any]:
        if self.one_by_one:
            variable = self.variables[key]
            names = variable if self.names is None else self.names
            return {name: variable[name] for name in names}
        values = (key,) if len(self.names or ()) == 1 else key
        return dict(zip(self.names or (), values, strict=True))

    def _run(self, shown: dict[str, Any]) -> object:
        context = self.context
        context.add_variable(self.subject, shown)
        try:
            result: object = self.program.execute(context)
        except (TypeError, ValueError, RuntimeError, KeyError):
            # A rule that cannot be judged on a subject is not known to hold: it fails
            # closed.
            return _FAILED
        return result


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
    prepared: dict[str, tuple[_State, _State]] = {}
    for rule in rules:
        if rule.subject not in prepared:
            grouped = GROUPED.get(rule.subject, ())
            prepared[rule.subject] = (
                _State.of(before.get(rule.subject, ()), grouped),
                _State.of(after.get(rule.subject, ()), grouped),
            )
        breaking_before, breaking_after = violated(rule, prepared[rule.subject], now)
        was.update((rule.name, address) for address in breaking_before)
        now_.update((rule.name, address) for address in breaking_after)
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


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector held off while policies are judged. Judging keeps a
    variable per member and state alive until its verdicts are out (tens of thousands of
    dicts, none in a cycle), and each few thousand of them would set off a collection
    of the younger generations and, every tenth, a full pass over the plan and both
    states: as much CPU as the judging itself (benchmarks/policy.py). Held off, the
    collector looks at them once, afterwards. Nesting and other threads are safe: it is
    switched back on only by whoever found it on."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
    return Rule(
        name,
        enforcement,
        subject,
        compile_rule(match) if match else None,
        compile_rule(rule),
        message,
        tuple(Exception_(s, r, until_time(u)) for s, r, u in exceptions),
        _read(rule, subject),
        _read(match, subject) if match else None,
    )


def _read(expression: str, subject: str) -> frozenset[str] | None:
    return referenced_fields(expression, subject)
