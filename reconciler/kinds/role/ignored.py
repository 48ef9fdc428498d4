"""A role's `spec.ignorePrivileges` (and the Portal's, for every declared role): a live
privilege matching a pattern that the role does not declare is kept. The privilege-setting
call replaces the whole set, so the set orgctl sends is the declared privileges and the
kept ones, and the comparison sees no difference in them. A declared privilege that also
matches a pattern is declared: added when missing, as the manifest says it must be there
(the pattern tolerates what the vendor adds; it never takes away what a role declares).

`metadata.ignoreChanges`, every kind's, is the engine's (`reconciler.plan.ignored`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import replace
from fnmatch import fnmatchcase

from reconciler import catalog
from reconciler.address_forms import ROLE
from reconciler.manifest.ignoring import WILDCARDS
from reconciler.plan.draft import Draft
from reconciler.plan.model import Ignored
from reconciler.state import DesiredState, LiveState, Role

PRIVILEGES = "ignorePrivileges"


def patterns_for(desired: DesiredState, name: str) -> tuple[str, ...]:
    return (*desired.portal.ignorePrivileges, *desired.ignorePrivileges.get(name, ()))


def matching(privileges: Iterable[str], patterns: Iterable[str]) -> dict[str, list[str]]:
    """Each pattern and the privileges it matches (case-sensitive, as privilege ids are)."""
    found: dict[str, list[str]] = {}
    for privilege in sorted(privileges):
        for pattern in patterns:
            if fnmatchcase(privilege, pattern):
                found.setdefault(pattern, []).append(privilege)
    return found


def keep_ignored(desired: DesiredState, live: LiveState) -> tuple[DesiredState, list[Ignored]]:
    """`desired` with each declared role's privileges completed by the live ones its
    patterns keep, and what was kept, per role."""
    roles = dict(desired.roles)
    notes: list[Ignored] = []
    for name, want in desired.roles.items():
        have = live.roles.get(name)
        patterns = patterns_for(desired, name)
        if not patterns or have is None or not _managed(want) or not have.privileges:
            continue
        declared = frozenset(want.privileges or ())
        found = matching(frozenset(have.privileges) - declared, patterns)
        kept = frozenset(p for privileges in found.values() for p in privileges)
        if kept:
            roles[name] = replace(want, privileges=declared | kept)
            notes.append(
                Ignored(
                    ROLE.of(name),
                    PRIVILEGES,
                    privileges=tuple(sorted(kept)),
                    patterns=tuple(found),
                )
            )
    return replace(desired, roles=roles), notes


def _managed(role: Role) -> bool:
    return role.present and role.privileges is not None


def pattern_typos(desired: DesiredState, live: LiveState) -> Iterator[tuple[str, str]]:
    """(address, warning) for each pattern without a wildcard that names no privilege the
    catalog, `extraPrivileges` or any live role knows: most likely a typo."""
    owners = [("Portal", desired.portal.ignorePrivileges)] + [
        (ROLE.of(name), patterns) for name, patterns in sorted(desired.ignorePrivileges.items())
    ]
    if not any(WILDCARDS.isdisjoint(p) for _owner, patterns in owners for p in patterns):
        return
    known = set(catalog.privileges_for(live.portal.platform)) | desired.portal.extraPrivileges
    for role in live.roles.values():
        known.update(role.privileges or ())
    for address, patterns in owners:
        for pattern in patterns:
            if WILDCARDS.isdisjoint(pattern) and pattern not in known:
                hint = difflib.get_close_matches(pattern, sorted(known), n=1, cutoff=0.6)
                yield (
                    address,
                    (
                        f"ignorePrivileges pattern {pattern!r} has no wildcard and names no"
                        " privilege the catalog or the portal knows"
                        + (f" (did you mean {hint[0]!r}?)" if hint else "")
                    ),
                )


def check_privileges(draft: Draft) -> None:
    """Each declared privilege exists on the release the portal runs: the role's privileges
    less the live ones its patterns kept (`draft.ignored`), which are the portal's own,
    whatever the catalog says."""
    platform = draft.live.portal.platform
    extra = draft.desired.portal.extraPrivileges
    kept = {i.address: frozenset(i.privileges) for i in draft.ignored if i.reason == PRIVILEGES}
    for name, role in sorted(draft.desired.roles.items()):
        address = ROLE.of(name)
        for privilege in sorted(frozenset(role.privileges or ()) - kept.get(address, frozenset())):
            problem = catalog.privilege_problem(privilege, platform, extra)
            if problem:
                draft.error(address, problem)
