"""Which agent replica owns which portal: consistent hashing with bounded loads, grown one
shard at a time so that both bounds hold for any fleet, not only on average.

A ring of random points (Mirrokni, Thorup and Zadimoghaddam's bounded loads, as Argo CD
shards) moves about 1/(N+1) of the portals from N to N+1 shards, but only in expectation:
from 1 to 2 shards a small fleet keeps half of its portals on their shard only half of the
time. Here shard k is added to the assignment of k shards: it takes from each earlier
shard its portals whose hash with k ranks lowest, just enough that every shard ends with
⌊n/(k+1)⌋ or ⌈n/(k+1)⌉ portals. So a step moves portals only onto the new shard, exactly
⌊n/(k+1)⌋ of them (at least half stay), and the largest shard holds ⌈mean⌉ ≤ ⌈1.25 × mean⌉.
The outcome depends only on the names and the count: every replica computes it alone.
"""

from __future__ import annotations

import hashlib
import re
import socket
from collections.abc import Iterable

from reconciler.errors import UserError


def _score(shard: int, name: str) -> tuple[int, str]:
    digest = hashlib.sha256(f"{shard}\0{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big"), name


def assign(names: Iterable[str], shards: int) -> dict[str, int]:
    """Each name's shard, 0 … shards-1."""
    if shards < 1:
        raise UserError(f"--shards: must be 1 or more, got {shards}")
    owned: list[list[str]] = [sorted(set(names))]
    for new in range(1, shards):
        owned.append(_taken_by(new, owned))
    return {name: shard for shard, held in enumerate(owned) for name in held}


def _taken_by(new: int, owned: list[list[str]]) -> list[str]:
    """Shard `new`'s portals, taken from the shards before it (which keep the rest)."""
    total = sum(len(held) for held in owned)
    share, extra = divmod(total - total // (new + 1), new)
    # The fullest shards keep one more (`extra` of them), ties to the lower index.
    fullest = sorted(range(new), key=lambda s: (-len(owned[s]), s))[:extra]
    taken: list[str] = []
    for shard, held in enumerate(owned):
        keep = share + (1 if shard in fullest else 0)
        ranked = sorted(held, key=lambda name: _score(new, name))
        given = max(0, len(held) - keep)
        taken += ranked[:given]
        owned[shard] = sorted(ranked[given:])
    return sorted(taken)


def by_shard(placed: dict[str, int], shards: int) -> dict[str, list[str]]:
    """`{"0": [names…], …}`: every shard, names sorted, an empty shard included."""
    grouped: dict[str, list[str]] = {str(shard): [] for shard in range(shards)}
    for name, shard in placed.items():
        grouped[str(shard)].append(name)
    return {shard: sorted(names) for shard, names in grouped.items()}


def shard_from_hostname(shards: int, hostname: str | None = None) -> int:
    """A StatefulSet pod's ordinal, the suffix of its host name (`orgctl-agent-2` -> 2)."""
    host = hostname if hostname is not None else socket.gethostname()
    found = re.search(r"-(\d+)$", host.split(".", 1)[0])
    if found is None:
        raise UserError(
            f"--shard-from-hostname: the host name {host!r} does not end in -<ordinal>"
            " (as a StatefulSet's pods do); pass --shard K instead"
        )
    return checked_shard(int(found.group(1)), shards, "--shard-from-hostname")


def checked_shard(shard: int, shards: int, where: str = "--shard") -> int:
    if not 0 <= shard < shards:
        raise UserError(
            f"{where}: shard {shard} is not between 0 and {shards - 1} (--shards {shards})"
        )
    return shard
