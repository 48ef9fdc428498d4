"""Quota-aware level ordering: in every order the dependencies allow, no level ever holds
more members than its quota."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from reconciler.kinds.members.quota import LevelMove, move_key, order_level_moves


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[int], list[int], dict[int, int], int]:
    size = draw(st.integers(1, 12))
    start = draw(st.lists(st.sampled_from([1, 2]), min_size=size, max_size=size))
    target = draw(st.lists(st.sampled_from([1, 2]), min_size=size, max_size=size))
    quotas = {
        level: draw(st.integers(start.count(level), start.count(level) + 3)) for level in (1, 2)
    }
    return start, target, quotas, draw(st.integers(0, 2**32))


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_no_order_allowed_by_the_dependencies_exceeds_a_quota(
    scenario: tuple[list[int], list[int], dict[int, int], int],
) -> None:
    start, target, quotas, seed = scenario
    moves = [
        LevelMove(f"u{i:02d}", s, t)
        for i, (s, t) in enumerate(zip(start, target, strict=True))
        if s != t
    ]
    counts = {level: start.count(level) for level in (1, 2)}
    ordered, stuck = order_level_moves(moves, counts, quotas)
    assert len(ordered) + len(stuck) == len(moves)
    final = {level: sum(1 for t in target if t == level) for level in (1, 2)}
    if all(final[level] <= quotas[level] for level in (1, 2)) and not stuck:
        # A random order among those the dependencies allow.
        waits = {move_key(m): freed for m, freed in ordered}
        pending = [m for m, _ in ordered]
        done: set[str] = set()
        rng = random.Random(seed)
        level_count = dict(counts)
        while pending:
            ready = [m for m in pending if waits[move_key(m)] in (None, *done)]
            assert ready, "dependencies form a cycle"
            move = rng.choice(ready)
            pending.remove(move)
            done.add(move_key(move))
            level_count[move.source] -= 1
            level_count[move.target] += 1
            assert level_count[move.target] <= quotas[move.target]
    if stuck:
        assert all("quota" in reason for _, reason in stuck)
        if all(final[level] <= quotas[level] for level in (1, 2)):
            # Reachable in the end but not step by step: only a swap between full levels.
            assert {m.target for m, _ in stuck} == {1, 2}


def test_a_full_swap_fits_no_order() -> None:
    moves = [LevelMove("a", 1, 2), LevelMove("b", 2, 1)]
    ordered, stuck = order_level_moves(moves, {1: 1, 2: 1}, {1: 1, 2: 1})
    assert ordered == []
    assert [m.username for m, _ in stuck] == ["a", "b"]


def test_a_level_without_a_quota_takes_anyone() -> None:
    moves = [LevelMove(f"u{i}", 2, 1) for i in range(5)]
    ordered, stuck = order_level_moves(moves, {2: 5}, {2: 5})
    assert stuck == [] and all(freed is None for _, freed in ordered)
