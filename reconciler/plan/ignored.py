"""What a plan leaves alone by the manifests' ignore rules, and says it did.

`spec.ignorePrivileges` (the Portal's, for every declared role, and a Role's own): a live
privilege matching a pattern that the role does not declare is kept. The privilege-setting
call replaces the whole set, so the set orgctl sends is the declared privileges and the
kept ones, and the comparison sees no difference in them. A declared privilege that also
matches a pattern is declared: added when missing, as the manifest says it must be there
(the pattern tolerates what the vendor adds; it never takes away what a role declares).

`metadata.ignoreChanges` is applied to the manifests (`reconciler.manifest.ignoring`);
here it is reported, with the resources whose live value differs in an ignored field.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase

from reconciler import catalog
from reconciler.address_forms import ROLE
from reconciler.kind import owner, registered
from reconciler.manifest.ignoring import WILDCARDS
from reconciler.plan.draft import Draft
from reconciler.plan.model import Action, Change, Hidden, Ignored
from reconciler.state import DesiredState, IgnoredPaths, LiveState, Role

PRIVILEGES = "ignorePrivileges"
CHANGES = "ignoreChanges"


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


def ignored_changes(
    desired: DesiredState, live: LiveState, now_ms: int, planned: Sequence[Change]
) -> list[Ignored]:
    """One entry per document with ignoreChanges, naming the resources whose live value
    differs in the ignored fields: what a plan of the documents as declared would change
    that the plan without those fields (`planned`) does not."""
    if not desired.ignoring:
        return []
    differs = _differs_by_document(desired.ignoring, _hidden(desired, live, now_ms, planned))
    return [
        Ignored(address, CHANGES, paths=ignored.paths, differs=tuple(differs[address]))
        for address, ignored in sorted(desired.ignoring.items())
    ]


def _differs_by_document(
    ignoring: Mapping[str, IgnoredPaths], hidden: Sequence[Hidden]
) -> dict[str, list[Hidden]]:
    """Each hidden difference filed under the documents it belongs to, in one pass over
    the differences (a plan of 10,000 roles with ignoreChanges has 10,000 of each): the
    documents declaring its address, or, for an address no document declares (what a
    policy deletes), every document of the kind that owns it."""
    by_address: dict[str, list[str]] = {}
    by_kind: dict[str, list[str]] = {}
    for document, ignored in ignoring.items():
        by_kind.setdefault(ignored.kind, []).append(document)
        for address in ignored.addresses:
            by_address.setdefault(address, []).append(document)
    differs: dict[str, list[Hidden]] = {document: [] for document in ignoring}
    for found in hidden:
        for document in by_address.get(found.address) or _owners(found.address, by_kind):
            differs[document].append(found)
    return differs


def _owners(address: str, by_kind: Mapping[str, list[str]]) -> list[str]:
    kind = owner(address.split("/", 1)[0])
    return [] if kind is None else by_kind.get(kind[0].name, [])


def _hidden(
    desired: DesiredState, live: LiveState, now_ms: int, planned: Sequence[Change]
) -> list[Hidden]:
    if desired.declared is None:
        return []
    # Only the documents with ignoreChanges, planned as declared; their calls and errors
    # are of no use (the real plan has its own), only their differences.
    keeping, _kept = keep_ignored(desired.declared, live)
    draft = Draft(keeping, live, now_ms)
    for kind in registered():
        kind.plan(draft)
    shown = {change.address: _fields(change) for change in planned}
    found = []
    for change in draft.changes:
        if change.action is Action.CREATE or change.address in live.unreadable:
            continue  # a resource orgctl creates is created as declared
        if change.action is Action.DELETE:
            if change.address not in shown:  # a policy's field (OrganizationWebhooks' absent)
                found.append(Hidden(change.address, (), deleted=True))
            continue
        fields = sorted(_fields(change) - shown.get(change.address, set()))
        if fields:
            found.append(Hidden(change.address, tuple(fields)))
    return sorted(found, key=lambda h: h.address)


def _fields(change: Change) -> set[str]:
    """The fields an update changes, a nested record's by sub-field (`schedule.startTime`)."""
    names: set[str] = set()
    for name, value in (change.after or {}).items():
        if isinstance(value, Mapping) and value:
            names.update(f"{name}.{sub}" for sub in value)
        else:
            names.add(name)
    return names


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
