"""Roles renamed in place: a declared role whose live counterpart still has one of its
`previousNames` (compared regardless of case, as the portal compares role names).

The plan sees the live state as the manifests name it: the live role, still carrying its
old name, is filed under the declared name, and so are its holders' roles. Everything
downstream (the role's update, members' assignments, holders, deletions) then treats it
as the declared role, and the roles planner, seeing a live name that differs, renames it
with the role update operation, which keeps its id and so every member who holds it.
"""

from __future__ import annotations

from dataclasses import replace

from reconciler.plan.draft import Draft
from reconciler.plan.roles import role_address
from reconciler.state import LiveState, Role


def resolve_renames(draft: Draft) -> None:
    """File each renamed live role under its declared name (`draft.live` becomes a copy);
    two live roles matching one declaration are an error naming both."""
    renames: dict[str, str] = {}  # live name -> declared name
    for name, previous in sorted(draft.desired.previousNames.items()):
        want = draft.desired.roles.get(name)
        if want is None or not want.present:
            continue
        folded = {spelled.casefold() for spelled in previous}
        matches = _matches(name, folded, draft.live.roles)
        if len(matches) > 1:
            draft.error(role_address(name), _ambiguous(name, matches, draft.live.roles))
        elif matches and matches[0] != name and matches[0].casefold() in folded:
            renames[matches[0]] = name
        # else: the declared name itself, or a case twin of it that is no previous name,
        # which the roles planner reports (the portal would refuse a second such name)
    if renames:
        draft.live = renamed_live(draft.live, renames)


def _matches(name: str, previous: set[str], live: dict[str, Role]) -> list[str]:
    """The live roles named like `name` or one of its `previous` names (case-folded),
    regardless of case: a rename to a name the portal holds in another case would be
    refused, so such a role matches too."""
    folded = {name.casefold(), *previous}
    return sorted(live_name for live_name in live if live_name.casefold() in folded)


def _ambiguous(name: str, matches: list[str], live: dict[str, Role]) -> str:
    named = " and ".join(f"{found!r} (id {live[found].id})" for found in matches)
    return (
        f"the portal has {len(matches)} roles matching this role and its previousNames:"
        f" {named}; only one can be renamed to {name!r}: delete or rename the other on"
        " the portal, or drop the previous name once a rename is done"
    )


def renamed_live(live: LiveState, renames: dict[str, str]) -> LiveState:
    """`live` with each renamed role (its record unchanged, so its old name stays known)
    and each of its holders' role filed under the new name."""
    roles = {renames.get(name, name): role for name, role in live.roles.items()}
    members = {
        username: replace(member, role=renames[member.role]) if member.role in renames else member
        for username, member in live.members.items()
    }
    return replace(live, roles=roles, members=members)
