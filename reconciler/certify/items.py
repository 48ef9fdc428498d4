"""The items of a campaign: one per member in scope, with what a reviewer needs to decide
(the in-scope privileges its role gives it, its last sign-in, what to look at), and the
reviewer it goes to.

Members with one role hold the same privileges, so what a role gives in scope is worked
out once per role: 10,000 members of a handful of roles cost a handful of matches.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from reconciler.access.document import iso_time
from reconciler.access.findings import staleness
from reconciler.access.holdings import Holding, holdings, is_administrative
from reconciler.address_forms import MEMBER
from reconciler.catalog import LEVEL_ONE_PRIVILEGES
from reconciler.clock import rfc3339
from reconciler.errors import UserError
from reconciler.kinds.campaign import Campaign, CampaignScope
from reconciler.manifest.grants import in_force
from reconciler.names import ROLE_NAMES
from reconciler.state import NEVER_SIGNED_IN, DesiredState, LiveState, Member

Json = dict[str, Any]
STALE_DAYS = 90  # as `orgctl access` judges a sign-in stale by default
PENDING = "pending"
DECISIONS = ("keep", "revoke")


@dataclass(frozen=True, slots=True)
class Inputs:
    """What a campaign's items are made of besides the live portal."""

    campaign: Campaign
    owners: Mapping[str, tuple[str, ...]]  # role name -> its owners (Role metadata.owners)
    violations: Mapping[str, Sequence[str]]  # username -> the policies it violates, phrased
    now_ms: int
    extra_privileges: Sequence[str] = ()
    # username -> the time-bound grants it holds that end before the campaign's due
    # date, phrased (reconciler.manifest.grants): a reviewer keeping such access keeps it
    # only until then.
    expiring: Mapping[str, Sequence[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Routed:
    reviewer: str
    item: Json


def campaign_items(live: LiveState, given: Inputs) -> list[Routed]:
    """Every member in scope, by username, with its reviewer. A member no one but itself
    could review is a UserError naming every such member."""
    scope = given.campaign.spec.scope
    roles = holdings(live.roles, live.portal.platform, given.extra_privileges)
    wanted = _Scope(scope)
    routed: list[Routed] = []
    unreviewed: list[str] = []
    for username in sorted(live.members):
        member = live.members[username]
        role = roles.get(member.role) if member.role is not None else None
        named = wanted.names(member)
        privileges = wanted.privileges(role, every=named)
        if not named and not (wanted.by_privilege and privileges is not None):
            continue
        reviewer = _reviewer(member, given)
        if reviewer is None:
            unreviewed.append(MEMBER.of(username))
            continue
        item = _item(member, role, privileges or (), given)
        routed.append(Routed(reviewer, item))
    if unreviewed:
        raise UserError(
            f"campaign {given.campaign.metadata.name}: no one but the member itself could"
            f" review {', '.join(unreviewed)}: list fallback reviewers in spec.reviewers"
        )
    return routed


class _Scope:
    """The campaign's scope, with the in-scope privileges of each role worked out once."""

    def __init__(self, scope: CampaignScope) -> None:
        self.scope = scope
        self.members = frozenset(scope.members)
        self.roles = ROLE_NAMES.keys(scope.roles)
        self.by_privilege = bool(scope.privileges) or scope.administrativeOnly
        self._seen: dict[tuple[str, bool], tuple[str, ...] | None] = {}

    def names(self, member: Member) -> bool:
        """The scope names the member, or its role."""
        if member.username in self.members:
            return True
        return member.role is not None and ROLE_NAMES.key(member.role) in self.roles

    def privileges(self, role: Holding | None, every: bool) -> tuple[str, ...] | None:
        """The role's privileges in scope: all of them for a member the scope names (or
        when it names no privilege), else those matching its privilege parts; None when
        the role holds none of those."""
        if role is None:
            return () if every else None
        key = (role.name, every or not self.by_privilege)
        if key not in self._seen:
            self._seen[key] = self._matched(role, key[1])
        return self._seen[key]

    def _matched(self, role: Holding, every: bool) -> tuple[str, ...] | None:
        held = sorted(role.privileges)
        if every:
            return tuple(held)
        patterns = self.scope.privileges
        admin = self.scope.administrativeOnly
        found = tuple(
            p
            for p in held
            if (admin and is_administrative(p)) or any(fnmatchcase(p, q) for q in patterns)
        )
        return found or None


def _reviewer(member: Member, given: Inputs) -> str | None:
    """The first owner of the member's role who is not the member, else the first such
    fallback reviewer: never the member itself (no one certifies their own access)."""
    reviewers = given.campaign.spec.reviewers
    candidates: list[str] = []
    if reviewers.roleOwners and member.role is not None:
        candidates += ROLE_NAMES.lookup(member.role, given.owners) or ()
    candidates += reviewers.fallback
    return next((name for name in candidates if name != member.username), None)


def _item(member: Member, role: Holding | None, privileges: Sequence[str], given: Inputs) -> Json:
    last = member.lastLogin
    return {
        "member": member.username,
        "role": role.name if role else member.role,
        "level": member.level,
        "privileges": list(privileges),
        "lastLogin": iso_time(last) if last is not None and last != NEVER_SIGNED_IN else None,
        "disabled": member.disabled,
        "recommendation": _recommendation(member, privileges, given),
        "decision": PENDING,
        "comment": "",
    }


def _recommendation(member: Member, privileges: Sequence[str], given: Inputs) -> list[str]:
    """What speaks for revoking, each as `kind: why` (empty: nothing does)."""
    found = []
    if member.disabled:
        found.append("disabled: the account is disabled")
    stale = staleness(member.lastLogin, given.now_ms, STALE_DAYS)
    if stale is not None:
        found.append(f"stale: {stale.rstrip(',')}")
    if member.level == 1:
        off = [p for p in privileges if p not in LEVEL_ONE_PRIVILEGES]
        if off:
            found.append(f"level-1-disabled: level 1 disables {len(off)} of them")
    found += [f"policy violation: {v}" for v in given.violations.get(member.username, ())]
    found += [f"grant expiring: {g}" for g in given.expiring.get(member.username, ())]
    return found


def expiring_grants(
    desired: DesiredState, live: LiveState, now: dt.datetime, before: dt.datetime
) -> dict[str, list[str]]:
    """username -> each grant in force at `now` that ends before `before`, phrased: a
    member's own grant, and a role's temporary privileges for every member holding it."""
    holders: dict[str, list[str]] = {}
    for username, member in live.members.items():
        if member.role is not None:
            holders.setdefault(ROLE_NAMES.key(member.role), []).append(username)
    found: dict[str, list[str]] = {}
    for grant in in_force(desired, now):
        if grant.until >= before:
            continue
        head, _, name = grant.address.partition("/")
        members = [name] if head == MEMBER.head else holders.get(ROLE_NAMES.key(name), [])
        text = f"{grant.address} until {rfc3339(grant.until)} ({grant.reason})"
        for username in members:
            found.setdefault(username, []).append(text)
    return found
