"""A member's role that no manifest declares and no portal ships: known offline to be
wrong when the manifests hold every role of the portal (`spec.pruneRoles`), only likely
wrong otherwise (the portal may hold it), and either way said with the closest name.

`org_publishr` or `Feld Analyst` used to pass validate and fail at plan, with nothing to
say what was meant. Role names compare as the portal compares them, regardless of case.
The Members kind asks, with the names the Role documents declare.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reconciler import catalog
from reconciler.manifest import models
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.suggestions import did_you_mean


@dataclass(frozen=True, slots=True)
class KnownRoles:
    """The role names a member may hold, as far as the manifests can tell."""

    offered: tuple[str, ...]  # what a misspelt name is compared with
    known: frozenset[str]  # case-folded: offered, pre-built ids, and every declared name
    complete: bool  # pruneRoles: the portal holds no other custom role after apply

    def knows(self, role: str) -> bool:
        return role.casefold() in self.known


def known_roles(
    present: Iterable[str], declared: Iterable[str], portal: models.PortalSpec | None
) -> KnownRoles:
    """`present`: the names of roles declared present; `declared`: every name and previous
    name a Role document declares (absent and renamed ones the Members rules refuse with
    their own reason)."""
    complete = bool(portal and portal.pruneRoles)
    kept = list(portal.keepRoles) if complete and portal else []
    prebuilt = [r.name for r in catalog.PREBUILT_ROLES]
    offered = (*catalog.BUILTIN_ROLES, *prebuilt, *present, *kept)
    ids = [r.id for r in catalog.PREBUILT_ROLES]
    known = frozenset(name.casefold() for name in (*offered, *ids, *declared))
    return KnownRoles(offered, known, complete)


def unknown_role(
    document: Document, username: str, role: str, count: int, roles: KnownRoles
) -> Problem:
    """The problem of a role no one declares, at the first of the `count` members of
    `document` holding it: an error when the roles are complete, else a warning."""
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
