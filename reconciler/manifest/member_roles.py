"""A member's role that no manifest declares and no portal ships: known offline to be
wrong when the manifests hold every role of the portal (`spec.pruneRoles`), only likely
wrong otherwise (the portal may hold it), and either way said with the closest name.

`org_publishr` or `Feld Analyst` used to pass validate and fail at plan, with nothing to
say what was meant. Role names compare as the portal compares them, regardless of case.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from reconciler import catalog
from reconciler.manifest import models
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.suggestions import did_you_mean


@dataclass(frozen=True, slots=True)
class _Roles:
    """The role names a member may hold, as far as the manifests can tell."""

    offered: tuple[str, ...]  # what a misspelt name is compared with
    known: frozenset[str]  # case-folded: offered, pre-built ids, and every declared name
    complete: bool  # pruneRoles: the portal holds no other custom role after apply


def problems(documents: Iterable[Document], portal: models.PortalSpec | None) -> Iterator[Problem]:
    """One problem per document and unknown role, at the first member holding it: an
    error when the roles are complete, else a warning."""
    documents = tuple(documents)
    roles = _roles(documents, portal)
    for document in documents:
        for role, (username, count) in _unknown_roles(document, roles).items():
            yield _problem(document, username, role, count, roles)


def _roles(documents: tuple[Document, ...], portal: models.PortalSpec | None) -> _Roles:
    from reconciler.kinds.role import Role  # the kinds import the manifest package

    declared = [d.model for d in documents if isinstance(d.model, Role)]
    present = [r.metadata.name for r in declared if r.spec.state == "present"]
    # Absent and previous names are refused by the Members rules already, with their reason.
    named = [r.metadata.name for r in declared]
    named += [previous for r in declared for previous in r.metadata.previousNames]
    complete = bool(portal and portal.pruneRoles)
    kept = list(portal.keepRoles) if complete and portal else []
    prebuilt = [r.name for r in catalog.PREBUILT_ROLES]
    offered = (*catalog.BUILTIN_ROLES, *prebuilt, *present, *kept)
    ids = [r.id for r in catalog.PREBUILT_ROLES]
    known = frozenset(name.casefold() for name in (*offered, *ids, *named))
    return _Roles(offered, known, complete)


def _unknown_roles(document: Document, roles: _Roles) -> dict[str, tuple[str, int]]:
    """Each unknown role of a Members document: its first member, and how many hold it."""
    from reconciler.kinds.members import Members

    if not isinstance(document.model, Members):
        return {}
    found: dict[str, tuple[str, int]] = {}
    for username, member in document.model.spec.members.items():
        role = member.role
        if role is not None and role.casefold() not in roles.known:
            first, count = found.get(role, (username, 0))
            found[role] = (first, count + 1)
    return found


def _problem(document: Document, username: str, role: str, count: int, roles: _Roles) -> Problem:
    held = f" (held by {count:,} members of this document)" if count > 1 else ""
    hint = did_you_mean(role, roles.offered)
    path = ("spec", "members", username, "role")
    if roles.complete:
        return document.problem(
            path,
            f"role {role!r}{held} is neither built-in nor declared, and the Portal's"
            f" pruneRoles deletes every other role{hint}",
        )
    return document.warning(
        path,
        f"role {role!r}{held} is neither built-in nor declared: plan fails unless the portal"
        f" already has it{hint}",
    )
