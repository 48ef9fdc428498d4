"""Live roles filed under the names the manifests give them, by the one identity rule for
role names (`reconciler.names.ROLE_NAMES`: regardless of case, as the portal compares them).

- A declared role whose live counterpart still has one of its `previousNames` is renamed
  in place.
- A role declared absent is the live role of the same name in any case: `Role/alpha`
  declared absent deletes the live `Alpha`.

The plan sees the live state as the manifests name it: each such live role, still carrying
its own name, is filed under the declared name, and so are its holders' roles. Everything
downstream (the role's update, members' assignments, holders, deletions, pruning) then
treats it as the declared role, and the roles planner, seeing a live name that differs,
renames it with the role update operation, which keeps its id and so every member who
holds it. A present role whose live twin differs only in case and is no previous name is
not filed: the roles planner asks for the live spelling or a previous name.
"""

from __future__ import annotations

from dataclasses import replace

from reconciler import catalog
from reconciler.address_forms import ROLE
from reconciler.names import ROLE_NAMES, Spellings
from reconciler.plan.draft import Draft
from reconciler.state import LiveState, Role


def resolve_renames(draft: Draft) -> None:
    """File each renamed or absent-declared live role under its declared name
    (`draft.live` becomes a copy); two live roles matching one declaration are an error
    naming both."""
    filed: dict[str, str] = {}  # live name -> declared name
    live = ROLE_NAMES.spelled(draft.live.roles)
    for name, want in sorted(draft.desired.roles.items()):
        previous = draft.desired.previousNames.get(name, ()) if want.present else ()
        matches = _matches(name, previous, live)
        if name in matches:
            matches = [name, *(m for m in matches if not ROLE_NAMES.same(m, name))]
        if len(matches) > 1:
            ambiguous = _ambiguous(name, matches, draft.live.roles, bool(previous))
            draft.error(ROLE.of(name), ambiguous)
        elif matches and matches[0] != name and _filed(name, matches[0], previous, want.present):
            filed[matches[0]] = name
    draft.filed = {ROLE.of(old): ROLE.of(new) for old, new in filed.items()}
    if filed:
        draft.live = renamed_live(draft.live, filed)
    _spell_member_roles(draft)


def _spell_member_roles(draft: Draft) -> None:
    """Each declared member's custom role spelled as the role is known, declared or else
    live: `role: field analyst` is the role `Field Analyst` (`draft.desired` becomes a
    copy when one differs), so the comparison with the live assignment sees one name."""
    desired = draft.desired
    declared, live = ROLE_NAMES.spelled(desired.roles), ROLE_NAMES.spelled(draft.live.roles)
    respelled = {}
    # By role as written: ten thousand members share a thousand roles, most declared as
    # written (then the role is its own spelling, and nothing is looked up).
    known_as: dict[str, str | None] = {}
    for username, member in desired.members.items():
        role = member.role
        if role is None or role in desired.roles or role in catalog.BUILTIN_ROLES:
            continue
        if role not in known_as:
            known_as[role] = declared.resolve(role) or live.resolve(role)
        known = known_as[role]
        if known is not None and known != role:
            respelled[username] = replace(member, role=known)
    if respelled:
        draft.desired = replace(desired, members={**desired.members, **respelled})


def _filed(name: str, live_name: str, previous: tuple[str, ...], present: bool) -> bool:
    """Whether live role `live_name`, matching declared role `name`, is that role: a
    previous name of it, or any spelling of a role declared absent. (A case twin of a
    present role that is no previous name is left to the roles planner, which reports it.)"""
    return not present or ROLE_NAMES.key(live_name) in ROLE_NAMES.keys(previous)


def _matches(name: str, previous: tuple[str, ...], live: Spellings) -> list[str]:
    """The live roles named like `name` or one of its `previous` names under the identity
    rule: a rename to a name the portal holds in another case would be refused, so such a
    role matches too."""
    return sorted({found for spelled in (name, *previous) for found in live.of(spelled)})


def _ambiguous(name: str, matches: list[str], live: dict[str, Role], renaming: bool) -> str:
    named = " and ".join(f"{found!r} (id {live[found].id})" for found in matches)
    if not renaming:
        return (
            f"the portal has {len(matches)} roles named {name!r} in some case: {named}; role"
            " names ignore case, so orgctl cannot tell which one is meant: delete or rename"
            " the others on the portal"
        )
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
