"""The judged verdicts equal a straightforward evaluation's, over random small states.

Judging shares work (one evaluation per distinct combination of the fields a rule reads,
per group of members alike in role and level, across both states; one variable for a
member the plan leaves alike). The reference here does none of it: it builds every
member's variable from scratch and evaluates every rule on every whole variable, on the
live state and after the plan.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconciler.access.holdings import is_administrative, member_holds
from reconciler.catalog import LEVEL_ONE_PRIVILEGES
from reconciler.policy.rules import cel_module
from reconciler.policy.variables import (
    NOW,
    Access,
    access_subjects,
    live_access,
    planned_access,
    timestamp,
)
from reconciler.policy.verdicts import Rule, Status, compiled, judge
from reconciler.state import NEVER_SIGNED_IN, LiveState, Member, PortalInfo, Role
from reconciler.versions import Platform

PLATFORM = Platform.parse("self-hosted", "10.6.1")
NOW_ = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
PRIVILEGES = (
    sorted(LEVEL_ONE_PRIVILEGES)[0],
    "portal:user:shareToGroup",
    "portal:user:createItem",
    "portal:admin:viewUsers",
    "portal:admin:changeUserRoles",
)
ROLES = ("A", "B", "C")
SIGN_INS = (None, NEVER_SIGNED_IN, 1_760_000_000_000, 1_780_000_000_000)

# (subject, match, rule): grouped fields, per-member fields, `now`, whole variables,
# rules that fail on some subjects (a null level), exceptions.
RULES: tuple[tuple[str, str | None, str], ...] = (
    ("member", None, "!member.administrative || member.level == 2"),
    ("member", 'member.role == "A"', "size(member.gained) == 0"),
    ("member", None, '!("portal:admin:viewUsers" in member.privileges)'),
    (
        "member",
        "member.administrative",
        "member.lastLogin != null && member.lastLogin > now - duration('4000h')",
    ),
    ("member", "member.disabled", "size(member.privileges) == 0"),
    ("member", None, "member.level > 1"),
    ("member", None, "size(member.lost) == 0 || member.username == 'u0'"),
    ("member", "member.level == 1", 'member.rolePrivileges.all(p, p.startsWith("portal:user:"))'),
    ("member", None, '"lost" in member && member.privilegesBefore == member.privileges'),
    ("role", None, "size(role.holders) <= 1"),
    ("role", "role.administrative", "role.holders == role.holdersBefore"),
    ("role", None, "role.privileges.all(p, p in role.privilegesBefore)"),
    ("change", 'change.address.startsWith("Role/")', 'change.action != "delete"'),
    ("change", None, "change.after == change.before"),
)
EXCEPTIONS = (
    ("Member/u1", "pilot", "2026-12-31"),  # applies
    ("Member/u2", "expired", "2026-01-01"),  # no longer applies
    ("Role/B", "pilot", None),
)


def _rules() -> list[Rule]:
    return [
        compiled(f"p{i}", "mandatory", subject, match, rule, "m", EXCEPTIONS)
        for i, (subject, match, rule) in enumerate(RULES)
    ]


privileges = st.frozensets(st.sampled_from(PRIVILEGES), max_size=4)
role_names = st.sampled_from((*ROLES, "org_admin", "org_user", None))


@st.composite
def states(draw: Any) -> tuple[LiveState, dict[str, Role], dict[str, Member], dict[str, Any]]:
    live = LiveState(PortalInfo("p", "hq", PLATFORM, "admin"))
    for name in draw(st.lists(st.sampled_from(ROLES), unique=True)):
        live.roles[name] = Role(name, privileges=draw(privileges), id=f"id{name}")
    for index in range(draw(st.integers(0, 7))):
        username = f"u{index}"
        live.members[username] = Member(
            username,
            draw(role_names),
            draw(st.sampled_from((1, 2, None))),
            draw(st.sampled_from((True, False, None))),
            draw(st.sampled_from(SIGN_INS)),
        )
    declared = {
        name: Role(name, privileges=draw(privileges), present=draw(st.booleans()))
        for name in draw(st.lists(st.sampled_from(ROLES), unique=True))
    }
    members = {
        username: Member(username, None, draw(st.sampled_from((1, 2))))
        for username in live.members
        if draw(st.booleans())
    }
    final = {username: draw(role_names) for username in live.members if draw(st.booleans())}
    return live, declared, members, final


def _member(before: Access, after: Access, member: Member) -> dict[str, Any]:
    """The `member` variable as the issue defines it, worked out alone."""

    def effective(access: Access, held: Member) -> tuple[str, ...]:
        role = access.roles.get(held.role) if held.role is not None else None
        return tuple(h.name for h in member_holds(held, role) if not h.disabledByLevel)

    privileges = effective(after, member)
    was = before.members.get(member.username)
    earlier = effective(before, was) if was is not None else ()
    role = after.roles.get(member.role) if member.role is not None else None
    return {
        "username": member.username,
        "role": member.role,
        "level": member.level,
        "disabled": bool(member.disabled),
        "lastLogin": timestamp(member.lastLogin),
        "privileges": privileges,
        "rolePrivileges": tuple(sorted(role.privileges)) if role else (),
        "privilegesBefore": earlier,
        "gained": tuple(sorted(set(privileges) - set(earlier))),
        "lost": tuple(sorted(set(earlier) - set(privileges))),
        "administrative": any(is_administrative(p) for p in privileges),
    }


def _role(before: Access, after: Access, name: str) -> dict[str, Any]:
    """The `role` variable as the issue defines it, worked out alone."""

    def holders(access: Access) -> tuple[str, ...]:
        return tuple(sorted(u for u, m in access.members.items() if m.role == name))

    was = before.roles.get(name)
    privileges = after.roles[name].privileges
    return {
        "name": name,
        "privileges": tuple(sorted(privileges)),
        "privilegesBefore": tuple(sorted(was.privileges)) if was else (),
        "holders": holders(after),
        "holdersBefore": holders(before),
        "administrative": any(is_administrative(p) for p in privileges),
    }


def _reference(
    before: Access, after: Access, changes: list[tuple[str, dict[str, Any]]]
) -> set[tuple[str, str, Status]]:
    def subjects(state: Access) -> dict[str, list[tuple[str, dict[str, Any]]]]:
        members = [
            (f"Member/{m.username}", _member(before, state, m)) for m in state.members.values()
        ]
        roles = [(f"Role/{name}", _role(before, state, name)) for name in state.roles]
        return {"member": members, "role": roles, "change": changes if state is after else []}

    was, will = subjects(before), subjects(after)
    found = set()
    for name, (subject, match, rule) in enumerate(RULES):
        excepted = {"Member/u1", "Role/B"}
        broken = [
            {a for a, v in state[subject] if a not in excepted and _breaks(subject, match, rule, v)}
            for state in (was, will)
        ]
        for address in broken[0] | broken[1]:
            status = (
                Status.EXISTING
                if address in broken[0] and address in broken[1]
                else Status.INTRODUCED
                if address in broken[1]
                else Status.CURED
            )
            found.add((f"p{name}", address, status))
    return found


def _breaks(subject: str, match: str | None, rule: str, variable: dict[str, Any]) -> bool:
    cel = cel_module()
    context = cel.Context({subject: variable, NOW: NOW_})
    try:
        if match is not None and cel.compile(match).execute(context) is not True:
            return False
        return cel.compile(rule).execute(context) is not True
    except (TypeError, ValueError, RuntimeError, KeyError):
        return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(states())
def test_judging_gives_the_verdicts_of_a_plain_evaluation(
    state: tuple[LiveState, dict[str, Role], dict[str, Member], dict[str, Any]],
) -> None:
    live, declared, members, final = state
    before = live_access(live)
    after = planned_access(live, declared, members, final)
    changes = [
        (
            f"Role/{n}",
            {
                "address": f"Role/{n}",
                "action": "delete" if not r.present else "update",
                "before": {},
                "after": {"privileges": sorted(r.privileges or ())},
            },
        )
        for n, r in declared.items()
    ]
    was = access_subjects(before, before)
    will = access_subjects(before, after, was)
    will["change"] = changes
    judged = {(v.policy, v.subject, v.status) for v in judge(_rules(), was, will, NOW_, {})}
    assert judged == _reference(before, after, changes)
