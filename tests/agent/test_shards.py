"""Consistent hashing with bounded loads: the largest shard holds at most ⌈1.25 × mean⌉
portals, one more shard keeps at least half of the portals where they were, and every
replica computes the same assignment."""

from __future__ import annotations

import math

import pytest

from reconciler.agent.shards import assign, by_shard, shard_from_hostname
from reconciler.errors import UserError

SIZES = [1, 7, 40, 333, 1000]


@pytest.mark.parametrize("portals", SIZES)
@pytest.mark.parametrize("shards", [1, 2, 3, 4, 5, 8, 13])
def test_no_shard_holds_more_than_its_bound(portals: int, shards: int) -> None:
    names = [f"portal-{i}" for i in range(portals)]
    placed = assign(names, shards)
    assert sorted(placed) == sorted(names)
    loads = [list(placed.values()).count(shard) for shard in range(shards)]
    assert max(loads) <= math.ceil(1.25 * portals / shards)


@pytest.mark.parametrize("portals", [40, 333, 1000])
@pytest.mark.parametrize("shards", range(1, 10))
def test_one_more_shard_keeps_at_least_half_in_place(portals: int, shards: int) -> None:
    names = [f"org-{i:05d}" for i in range(portals)]
    before, after = assign(names, shards), assign(names, shards + 1)
    kept = sum(before[name] == after[name] for name in names)
    assert kept >= portals / 2


def test_the_assignment_depends_only_on_names_and_count() -> None:
    names = [f"p{i}" for i in range(100)]
    assert assign(names, 4) == assign(list(reversed(names)), 4)
    grouped = by_shard(assign(names, 4), 4)
    assert list(grouped) == ["0", "1", "2", "3"]
    assert sorted(n for names in grouped.values() for n in names) == sorted(names)


def test_the_shard_of_a_statefulset_pod_is_its_ordinal() -> None:
    assert shard_from_hostname(4, "orgctl-agent-3") == 3
    assert shard_from_hostname(4, "orgctl-agent-0.orgctl-agent.ns.svc") == 0
    with pytest.raises(UserError, match="does not end in -<ordinal>"):
        shard_from_hostname(4, "laptop")
    with pytest.raises(UserError, match="not between 0 and 3"):
        shard_from_hostname(4, "orgctl-agent-4")
    with pytest.raises(UserError, match="--shards: must be 1 or more"):
        assign(["a"], 0)
