"""The shipped policies: the default-administrator check, judged in CEL, behaves as the
check it replaces did (an error at Portal, word for word) and is listed in plan JSON."""

from __future__ import annotations

import itertools

from reconciler.plan.model import PolicyStatus
from reconciler.policy.builtin import BUILTINS, DEFAULT_ADMINISTRATOR, judged
from reconciler.policy.rules import check

ADDRESS = "Portal/hq"


def _portal(before: tuple[str, ...], after: tuple[str, ...]) -> tuple[dict[str, object], ...]:
    def fields(names: tuple[str, ...], earlier: tuple[str, ...]) -> dict[str, object]:
        return {
            "name": "hq",
            "deployment": "self-hosted",
            "version": "10.6.1",
            "members": 5,
            "administrators": len(names),
            "administratorsBefore": len(earlier),
            "administratorNames": names,
            "administratorNamesBefore": earlier,
        }

    return fields(before, before), fields(after, before)


def test_every_built_in_rule_checks_against_its_subject() -> None:
    for policy in BUILTINS:
        for expression in (policy.match, policy.rule):
            if expression is not None:
                assert check(expression, policy.subject) is None, policy.name


def test_demoting_every_default_administrator_with_none_moved_in_is_introduced() -> None:
    before, after = _portal(("admin", "admin2"), ())
    [verdict] = judged(before, after, ADDRESS, 0)
    assert (verdict.policy, verdict.subject, verdict.status, verdict.enforcement) == (
        DEFAULT_ADMINISTRATOR.name,
        ADDRESS,
        PolicyStatus.INTRODUCED,
        "mandatory",
    )
    assert verdict.message == (
        "this plan leaves the portal without a default administrator: it moves every"
        " org_admin (admin, admin2) to another role, and the portal refuses to move the last"
        " one (ORG_1090); keep at least one"
    )


def test_it_holds_wherever_the_old_check_was_silent() -> None:
    # The old check: an error only when the portal had default administrators and the
    # plan moved every one of them out, with none moved in.
    people = ("a", "b", "c")
    subsets = [tuple(x) for n in range(len(people) + 1) for x in itertools.combinations(people, n)]
    for was, will in itertools.product(subsets, subsets):
        before, after = _portal(was, will)
        errs = bool(was) and not will
        assert bool(judged(before, after, ADDRESS, 0)) == errs, (was, will)
    # On the live state alone the after-values equal the before-values: it holds.
    for was in subsets:
        live, _ = _portal(was, was)
        assert judged(live, live, ADDRESS, 0) == []
