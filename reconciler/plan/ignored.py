"""What a plan leaves alone by the manifests' ignore rules, and says it did.

`metadata.ignoreChanges` is applied to the manifests (`reconciler.manifest.ignoring`);
here it is reported, with the resources whose live value differs in an ignored field.
What a kind's own rules keep (a role's `spec.ignorePrivileges`, kinds/role/ignored.py) the
kind reports in `Draft.ignored` when it prepares the plan.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reconciler.kind import owner, registered
from reconciler.plan.draft import Draft
from reconciler.plan.model import Action, Change, Hidden, Ignored
from reconciler.state import DesiredState, IgnoredPaths, LiveState

CHANGES = "ignoreChanges"


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
    draft = Draft(desired.declared, live, now_ms, as_declared=True)
    kinds = registered()
    for kind in kinds:
        if kind.prepare is not None:
            kind.prepare(draft)
    for kind in kinds:
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
