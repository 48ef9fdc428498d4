"""Member role assignments and level changes, with the failures the service would
answer predicted from live data (docs/rules.md §3, §7)."""

from __future__ import annotations

from dataclasses import dataclass

from reconciler import catalog
from reconciler.address_forms import MEMBER
from reconciler.kinds.members.quota import LevelMove, note_unchecked_quotas, order_level_moves
from reconciler.kinds.role.plan import role_creation, role_reference
from reconciler.operations import OperationName
from reconciler.plan.diff import diff_record
from reconciler.plan.draft import Draft
from reconciler.state import Member


def member_address(username: str) -> str:
    return MEMBER.of(username)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where a member ends up after this plan."""

    role: str | None
    level: int | None
    role_call: str | None  # key of its updateUserRole, if any


def plan_members(draft: Draft) -> None:
    """Plan every declared member; `draft.final_roles` holds each live member's final role."""
    final_roles = {user: m.role for user, m in draft.live.members.items()}
    moves: list[LevelMove] = []
    for username in sorted(draft.desired.members):
        want = draft.desired.members[username]
        have = draft.live.members.get(username)
        address = member_address(username)
        if have is None:
            draft.error(address, "no such member on the portal (orgctl does not add members)")
            continue
        outcome = _plan_member(draft, address, want, have)
        final_roles[username] = outcome.role
        move = _level_move(draft, address, want, have, outcome)
        if move is not None:
            moves.append(move)
        _warn_disabled_privileges(draft, username, have, outcome)
    _plan_level_calls(draft, moves)
    draft.final_roles = final_roles


def _level_move(
    draft: Draft, address: str, want: Member, have: Member, outcome: Outcome
) -> LevelMove | None:
    """The member's level change if it is possible; otherwise report why not. (`address`,
    the member's, built once per member by the caller: this runs for each of 100,000.)"""
    if want.level is not None and have.level is None:
        draft.error(address, "the portal reports no level for this member to change")
        return None
    if have.level is None or outcome.level is None or outcome.level == have.level:
        if outcome.level == 1 and outcome.role_call and outcome.role in catalog.BUILTIN_ROLES:
            draft.error(
                address,
                f"a level 1 member needs a custom role; {outcome.role!r} is built-in "
                "(built-in roles are level 2)",
            )
        return None
    if not _level_allowed(draft, want.username, outcome):
        return None
    role_waits = outcome.level == 2 and outcome.role in catalog.BUILTIN_ROLES
    return LevelMove(want.username, have.level, outcome.level, outcome.role_call, role_waits)


def _plan_member(draft: Draft, address: str, want: Member, have: Member) -> Outcome:
    role = want.role if want.role is not None else have.role
    level = want.level if want.level is not None else have.level
    change = diff_record(
        address, {"role": have.role, "level": have.level}, {"role": want.role, "level": want.level}
    )
    if change is None:
        return Outcome(role, level, None)
    draft.changes.append(change)
    assert change.after is not None
    role_call = None
    if "role" in change.after and want.role is not None:
        role_call = _assign_role(draft, address, want.username, want.role)
    return Outcome(role, level, role_call)


def _assign_role(draft: Draft, address: str, username: str, role: str) -> str | None:
    reference = role_reference(draft, role)
    if reference is None:
        declared = draft.desired.roles.get(role)
        if declared is not None and not declared.present:
            draft.error(address, f"role {role!r} is declared absent and cannot be assigned")
        else:
            draft.error(
                address,
                f"role {role!r} exists neither in the manifests, nor on the portal, "
                "nor as a built-in role",
            )
        return None
    creation = role_creation(role)
    after = (creation,) if creation in draft.calls else ()
    return draft.call(
        address,
        OperationName.UPDATE_USER_ROLE,
        {"user": username, "role": reference},
        after=after,
    )


def _level_allowed(draft: Draft, username: str, outcome: Outcome) -> bool:
    """Report every rule the level change would break; True when none is predicted."""
    address = member_address(username)
    target = outcome.level
    problems: list[str] = []
    if target == 1 and (outcome.role is None or outcome.role in catalog.BUILTIN_ROLES):
        problems.append(f"level 1 needs a custom role, but the member's role is {outcome.role!r}")
    detail = draft.live.memberDetails.get(username)
    if detail is not None:
        if target == 1 and detail.ownedItems:
            problems.append(
                f"level 1 is refused while the member owns {detail.ownedItems} item(s) "
                "(ORG_1084); reassign them first"
            )
        if target == 1 and detail.ownedGroups:
            problems.append(
                f"level 1 is refused while the member owns {detail.ownedGroups} group(s) "
                "(ORG_1084); reassign them first"
            )
    for problem in problems:
        draft.error(address, problem)
    return not problems


def _warn_disabled_privileges(draft: Draft, username: str, have: Member, outcome: Outcome) -> None:
    if outcome.level != 1 or outcome.role is None or outcome.role in catalog.BUILTIN_ROLES:
        return
    declared = draft.desired.roles.get(outcome.role)
    live_role = draft.live.roles.get(outcome.role)
    privileges_change = (
        declared is not None
        and declared.privileges is not None
        and (live_role is None or live_role.privileges != declared.privileges)
    )
    if outcome.role == have.role and have.level == 1 and not privileges_change:
        return  # nothing this plan does makes a difference to the member
    privileges = draft.final_privileges(outcome.role) or frozenset()
    extra = sorted(privileges - catalog.LEVEL_ONE_PRIVILEGES)
    if extra:
        draft.warn(
            member_address(username),
            f"level 1 member with role {outcome.role!r}: privileges beyond the level-1 set "
            f"will be disabled: {', '.join(extra)}",
        )


def _plan_level_calls(draft: Draft, moves: list[LevelMove]) -> None:
    counts: dict[int, int] = {}
    for member in draft.live.members.values():
        if member.level is not None:
            counts[member.level] = counts.get(member.level, 0) + 1
    if moves:
        note_unchecked_quotas(draft)
    ordered, stuck = order_level_moves(moves, counts, draft.live.portal.levelQuotas)
    for move, freed_by in ordered:
        role_first = None if move.role_waits else move.role_call
        level_call = draft.call(
            member_address(move.username),
            OperationName.UPDATE_USER_LEVEL,
            {"user": move.username, "level": str(move.target)},
            after=tuple(k for k in (role_first, freed_by) if k),
        )
        if move.role_waits and move.role_call:
            draft.wait_for(move.role_call, level_call)
    for move, reason in stuck:
        draft.error(member_address(move.username), reason)
