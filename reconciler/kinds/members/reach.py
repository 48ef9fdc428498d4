"""How the members stand to the roles the plan changes: who a change of a role's
privileges reaches, and the moves a role's deletion waits for. The Members kind states
both, standing above the Role kind.

Who a change reaches: the members holding the role once the plan is applied, by level,
and the added privileges that stay disabled for its level-1 holders (the service
disables every privilege beyond the level-1 set, docs/rules.md §2).

Counted from the live member listing the plan already read, with the plan's own member
changes applied on top: a member the plan moves onto the role counts, one it moves off
does not, and a level change counts at the new level. A role the plan creates is held by
the members the plan moves onto it. Computed once, while planning; the renderers only
show `Change.holders`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace

from reconciler.address_forms import MEMBER, ROLE
from reconciler.catalog import LEVEL_ONE_PRIVILEGES
from reconciler.operations import OperationName, call_key
from reconciler.plan.draft import Draft
from reconciler.plan.elements import field_elements, granted_privileges
from reconciler.plan.model import Action, Change, Holders
from reconciler.state import LiveState

ROLE_HEAD = f"{ROLE.head}/"
MEMBER_HEAD = f"{MEMBER.head}/"

# A member's role (a built-in role id or a custom role's name) and level after the plan.
Place = tuple[str | None, int | None]


def with_holders(changes: Iterable[Change], live: LiveState) -> list[Change]:
    """`changes`, each one that adds or removes privileges of a role carrying its holders."""
    changes = list(changes)
    if not any(added_privileges(c) is not None for c in changes):
        return changes
    by_role: dict[str | None, list[tuple[str, int | None]]] = {}
    for username, (role, level) in sorted(final_places(changes, live).items()):
        by_role.setdefault(role, []).append((username, level))
    reached = []
    for change in changes:
        added = added_privileges(change)
        if added is not None:
            holders = by_role.get(change.address.removeprefix(ROLE_HEAD), [])
            change = replace(change, holders=count_holders(holders, added))
        reached.append(change)
    return reached


def added_privileges(change: Change) -> frozenset[str] | None:
    """The privileges a role change adds (all of a created role's), or None when the
    change neither adds nor removes any."""
    if not change.address.startswith(ROLE_HEAD):
        return None
    granted = frozenset(granted_privileges(change))
    if granted or "privileges" in field_elements(change):
        return granted
    return None


def final_places(changes: Iterable[Change], live: LiveState) -> dict[str, Place]:
    """Each live member's role and level once the plan's member changes are applied."""
    moved: dict[str, Mapping[str, object]] = {
        c.address.removeprefix(MEMBER_HEAD): c.after or {}
        for c in changes
        if c.address.startswith(MEMBER_HEAD) and c.action is Action.UPDATE
    }
    places: dict[str, Place] = {}
    for username, member in live.members.items():
        after = moved.get(username, {})
        role = after.get("role", member.role)
        level = after.get("level", member.level)
        places[username] = (
            role if isinstance(role, str) else None,
            level if isinstance(level, int) else None,
        )
    return places


def count_holders(holders: list[tuple[str, int | None]], added: frozenset[str]) -> Holders:
    """The count by level (members whose level the portal does not report count in the
    total only) and, for the level-1 holders, the added privileges they will not get."""
    levels = Counter(str(level) for _, level in holders if level is not None)
    at_level_one = sorted(username for username, level in holders if level == 1)
    disabled = sorted(added - LEVEL_ONE_PRIVILEGES) if at_level_one else []
    return Holders(
        total=len(holders),
        byLevel=dict(sorted(levels.items())),
        disabledPrivileges=tuple(disabled),
        disabledFor=tuple(at_level_one) if disabled else (),
    )


# --- the moves a role's deletion waits for: the portal refuses to delete a role still
# assigned -----------------------------------------------------------------------------


def role_deletions_after_moves(draft: Draft) -> None:
    """Each deleteRole waits for the updateUserRole of every live member of the role,
    in username order; one pass over the members, whatever the number of deletions."""
    deletions = {
        call.address.removeprefix(ROLE_HEAD): key
        for key, call in draft.calls.items()
        if call.operation is OperationName.DELETE_ROLE
    }
    if not deletions:
        return
    for username in sorted(draft.live.members):
        deletion = deletions.get(draft.live.members[username].role or "")
        if deletion is None:
            continue
        move = call_key(OperationName.UPDATE_USER_ROLE, MEMBER.of(username))
        if move in draft.calls:
            draft.wait_for(deletion, move)
