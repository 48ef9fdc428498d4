"""Order level changes so that no intermediate step exceeds a level's quota.

A move into a full level must wait for a move out of it (demote before promote). Moves
are simulated greedily in username order; each move that takes a slot freed by another
depends on that move, so independent moves stay free to run in parallel.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from reconciler.address_forms import MEMBER
from reconciler.operations import OperationName, call_key
from reconciler.plan.draft import Draft


@dataclass(frozen=True, slots=True)
class LevelMove:
    username: str
    source: int
    target: int
    role_call: str | None = None  # key of the member's role assignment
    # A built-in role needs level 2 (docs/rules.md §2): a level-1 member rises before taking it.
    # Otherwise the role comes first, so a member entering level 1 already has a custom one.
    role_waits: bool = False


def note_unchecked_quotas(draft: Draft) -> None:
    """Say once that the quotas were not checked when they could not be read: the moves
    are then ordered as if no level were full, and the portal checks each one."""
    why = draft.live.portal.levelQuotasUnread
    if why:
        draft.warn(
            "Portal",
            f"level quotas not checked: {why}; the portal checks each level change when it is sent",
        )


def move_key(move: LevelMove) -> str:
    return call_key(OperationName.UPDATE_USER_LEVEL, MEMBER.of(move.username))


class _Level:
    """Free places at one level: unnamed ones, and ones freed by a planned move."""

    def __init__(self, quota: int | None, count: int) -> None:
        self.quota = quota
        self.count = count
        self.free = None if quota is None else quota - count
        self.freed: deque[str] = deque()

    def can_enter(self) -> bool:
        return self.free is None or self.free > 0 or bool(self.freed)

    def enter(self) -> str | None:
        """Take a place; returns the key of the move that freed it, if one did."""
        self.count += 1
        if self.free is None:
            return None
        if self.free > 0:
            self.free -= 1
            return None
        return self.freed.popleft()

    def leave(self, key: str) -> None:
        self.count -= 1
        if self.free is None:
            return
        if self.free < 0:  # over quota already: leaving only reduces the excess
            self.free += 1
        else:
            self.freed.append(key)


def order_level_moves(
    moves: list[LevelMove], counts: Mapping[int, int], quotas: Mapping[int, int]
) -> tuple[list[tuple[LevelMove, str | None]], list[tuple[LevelMove, str]]]:
    """(moves in a feasible order each with the move it waits for, moves that fit no order
    each with the reason naming the quota)."""
    levels = {
        level: _Level(quotas.get(level), counts.get(level, 0))
        for level in {*counts, *quotas, *(m.target for m in moves), *(m.source for m in moves)}
    }
    pending = sorted(moves, key=lambda m: m.username)
    ordered: list[tuple[LevelMove, str | None]] = []
    while pending:
        waiting: list[LevelMove] = []
        for move in pending:
            if levels[move.target].can_enter():
                freed_by = levels[move.target].enter()
                levels[move.source].leave(move_key(move))
                ordered.append((move, freed_by))
            else:
                waiting.append(move)
        if len(waiting) == len(pending):
            break
        pending = waiting
    else:
        return ordered, []
    stuck = []
    for move in pending:
        level = levels[move.target]
        stuck.append(
            (
                move,
                f"level {move.target} quota of {level.quota} cannot be met: level "
                f"{move.target} stays full ({level.count} members) in every order of the "
                "planned level changes",
            )
        )
    return ordered, stuck
