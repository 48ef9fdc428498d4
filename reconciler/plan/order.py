"""Number the calls in a deterministic order.

Calls come in the order of their operations' `Phase`; inside a phase, by address, then by
the operation's rank. A call is never placed before one it depends on (level changes
chained for a quota may reorder within their phase). `dependsOn` keeps only real
dependencies, so independent calls may be sent in parallel.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from reconciler.operations import OPERATIONS
from reconciler.plan.draft import PendingCall
from reconciler.plan.model import Call


def _sort_key(call: PendingCall) -> tuple[int, str, int]:
    # Within one address the operations table's rank decides: create before privileges,
    # info before links before schedules.
    operation = OPERATIONS[call.operation]
    return (int(operation.phase), call.address, operation.rank)


def order_calls(pending: Mapping[str, PendingCall]) -> tuple[Call, ...]:
    """A topological order that is the sort order wherever dependencies allow."""
    waiting_on = {key: {k for k in call.after if k in pending} for key, call in pending.items()}
    dependents: dict[str, list[str]] = {key: [] for key in pending}
    for key, needs in waiting_on.items():
        for need in needs:
            dependents[need].append(key)
    ready = [(_sort_key(pending[k]), k) for k, needs in waiting_on.items() if not needs]
    heapq.heapify(ready)
    seqs: dict[str, int] = {}
    calls: list[Call] = []
    while ready:
        _, key = heapq.heappop(ready)
        call = pending[key]
        seqs[key] = len(calls) + 1
        depends = tuple(sorted(seqs[k] for k in call.after if k in seqs))
        calls.append(
            Call(
                seqs[key],
                call.address,
                call.operation,
                call.root,
                call.arguments,
                call.params,
                depends,
            )
        )
        for dependent in dependents[key]:
            waiting_on[dependent].discard(key)
            if not waiting_on[dependent]:
                heapq.heappush(ready, (_sort_key(pending[dependent]), dependent))
    if len(calls) != len(pending):  # a dependency cycle: a planner bug, never user input
        raise RuntimeError(f"calls depend on each other in a cycle: {sorted(waiting_on)}")
    return tuple(calls)
