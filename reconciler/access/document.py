"""The access report's document: the one value every format renders (README: the
access report's JSON), built once per portal.

Members with one role and level hold the same privileges, so each such group is worked
out once: a portal of 10,000 members has a handful of groups, and the document is built
from them in one pass over the members.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from fnmatch import fnmatchcase
from typing import Any

from reconciler.access.findings import POLICY, Finding, Judged, member_findings, unheld_roles
from reconciler.access.holdings import Holding, holdings, is_administrative, member_holds
from reconciler.plan.admins import default_admins
from reconciler.state import NEVER_SIGNED_IN, LiveState, Member

FORMAT_VERSION = 2  # 2: privileges listed once per role (README: the JSON of version 2)
Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class AccessQuery:
    """What the report is asked: the stale period and the privileges of interest."""

    stale_days: int = 90
    patterns: tuple[str, ...] = ()  # shell-style; empty: every privilege
    # A preview's evaluation time (--at; None: now), and how soon a time-bound grant
    # must end to be named (--expiring-within).
    at: datetime | None = None
    expiring_within: timedelta = timedelta(days=7)

    def wanted(self, privilege: str) -> bool:
        return not self.patterns or any(fnmatchcase(privilege, p) for p in self.patterns)


@dataclass(frozen=True, slots=True)
class PortalNames:
    """How the report names the portal: its Portal document's name, the URL read, and
    the manifests' folder as given."""

    name: str
    url: str
    manifests: str


def access_document(
    live: LiveState,
    portal: PortalNames,
    query: AccessQuery,
    now_ms: int,
    extra_privileges: Sequence[str] = (),
    policy_findings: Sequence[Finding] = (),
) -> Json:
    """The report of one portal (README: the access report's JSON); `policy_findings`:
    the manifests' policies judged on the live state (reconciler.kinds.policy)."""
    roles = holdings(live.roles, live.portal.platform, extra_privileges)
    admins = default_admins(live)
    members: list[Json] = []
    holders: dict[str, int] = {}
    findings: list[Finding] = []
    groups: dict[tuple[str | None, int | None], _Group] = {}
    shown_in: dict[tuple[str | None, int | None], int] = {}
    for username in sorted(live.members):
        member = live.members[username]
        role = roles.get(member.role) if member.role is not None else None
        key = (role.name if role else None, member.level)
        group = groups.get(key) or groups.setdefault(key, _Group.of(member, role, query))
        if role is not None:
            holders[role.name] = holders.get(role.name, 0) + 1
        judged = Judged(member, role, group.administrative, group.disabled_by_level)
        findings += member_findings(judged, admins, now_ms, query.stale_days)
        if query.patterns and not group.pairs:
            continue
        members.append(_member(member, role, group.off))
        shown_in[key] = shown_in.get(key, 0) + 1
    findings += unheld_roles(roles.values(), holders)
    findings += policy_findings
    return {
        "formatVersion": FORMAT_VERSION,
        "report": "access",
        "portal": {"name": portal.name, "url": portal.url, "manifests": portal.manifests},
        "generatedAt": iso_time(now_ms),
        "staleDays": query.stale_days,
        "privilegeFilter": list(query.patterns),
        "findings": _findings(findings, query),
        "roles": [_role(roles[name], holders.get(name, 0)) for name in sorted(roles)],
        "members": members,
        "privileges": _privileges(groups, shown_in),
    }


def _privileges(
    groups: dict[tuple[str | None, int | None], _Group],
    shown_in: dict[tuple[str | None, int | None], int],
) -> list[Json]:
    """Each privilege a listed member holds: how many hold it and how many of them have it
    disabled by their level, in all and through each role."""
    through: dict[str, dict[str, list[int]]] = {}
    for key, count in shown_in.items():
        role = key[0]
        if role is None:
            continue
        for name, disabled in groups[key].pairs:
            counts = through.setdefault(name, {}).setdefault(role, [0, 0])
            counts[0] += count
            counts[1] += count if disabled else 0
    listed = []
    for name in sorted(through):
        by_role = sorted(through[name].items())
        listed.append(
            {
                "name": name,
                "administrative": is_administrative(name),
                "holders": sum(n for _, (n, _) in by_role),
                "disabledByLevel": sum(off for _, (_, off) in by_role),
                "roles": [
                    {"name": role, "holders": n, "disabledByLevel": off}
                    for role, (n, off) in by_role
                ],
            }
        )
    return listed


@dataclass(frozen=True, slots=True)
class _Group:
    """What every member of one role and level holds, worked out once for them all. A
    member lists only `off`, the privileges its level disables (one list for the group):
    the rest is its role's, listed once under `roles`."""

    off: list[str]  # the kept privileges the level disables, as the document lists them
    pairs: tuple[tuple[str, bool], ...]  # (privilege, disabled by level) of `shown`
    administrative: tuple[str, ...]  # usable administrative privileges, all of them
    disabled_by_level: tuple[str, ...]

    @classmethod
    def of(cls, member: Member, role: Holding | None, query: AccessQuery) -> _Group:
        held = member_holds(member, role)
        kept = [h for h in held if query.wanted(h.name)]
        return cls(
            off=[h.name for h in kept if h.disabledByLevel],
            pairs=tuple((h.name, h.disabledByLevel) for h in kept),
            administrative=tuple(
                h.name for h in held if not h.disabledByLevel and is_administrative(h.name)
            ),
            disabled_by_level=tuple(h.name for h in held if h.disabledByLevel),
        )


def _member(member: Member, role: Holding | None, off: list[str]) -> Json:
    last = member.lastLogin
    return {
        "username": member.username,
        "role": role.name if role else member.role,
        "roleType": role.type if role else None,
        "level": member.level,
        "disabled": member.disabled,
        "lastLogin": iso_time(last) if last is not None and last != NEVER_SIGNED_IN else None,
        "disabledByLevel": off,
    }


def _role(role: Holding, holders: int) -> Json:
    return {
        "name": role.name,
        "id": role.id,
        "type": role.type,
        "privileges": sorted(role.privileges),
        "holders": holders,
        "administrative": any(is_administrative(p) for p in role.privileges),
    }


def _findings(findings: list[Finding], query: AccessQuery) -> list[Json]:
    """Sorted by severity, kind and subject; with a privilege filter, a finding keeps
    the matching privileges only, and one left with none is not about them."""
    shown = []
    for finding in sorted(findings, key=Finding.sort_key):
        privileges = [p for p in finding.privileges if query.wanted(p)]
        # A policy's violation is about who may do what, whatever the filter.
        if query.patterns and not privileges and finding.kind != POLICY:
            continue
        shown.append(
            {
                "kind": finding.kind,
                "severity": finding.severity,
                "subject": finding.subject,
                "message": finding.message,
                "member": finding.member,
                "role": finding.role,
                "privileges": sorted(privileges),
            }
        )
    return shown


def iso_time(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))


@dataclass(frozen=True, slots=True)
class FleetEntry:
    """One portal of a fleet's report: its report, or why there is none."""

    name: str
    manifests: str
    report: Json | None
    error: str | None = None


def fleet_document(entries: Sequence[FleetEntry]) -> Json:
    """The report of a fleet: one entry per portal, in the order given."""
    return {
        "formatVersion": FORMAT_VERSION,
        "report": "access-fleet",
        "portals": [
            {
                "name": e.name,
                "manifests": e.manifests,
                "state": "error" if e.report is None else "ok",
                "error": e.error,
                "findings": len(e.report["findings"]) if e.report is not None else 0,
                "report": e.report,
            }
            for e in entries
        ],
    }
