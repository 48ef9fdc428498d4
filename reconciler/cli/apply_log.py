"""What apply prints while it sends, when no one watches a terminal (a CI log).

A progress bar means nothing in a log, and silence for minutes looks like a hang. So
each resource is told when its last call finishes (`Role/Field Analyst: done, 2 calls
in 0.4s`), and a line every few seconds counts what has finished so far.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

from reconciler.apply import CallEvent, EventKind
from reconciler.plan import Plan
from reconciler.shown import safe

FINISHED = {
    EventKind.DONE: "done",
    EventKind.FAILED: "failed",
    EventKind.SKIPPED: "skipped",
    EventKind.NOT_SENT: "not sent",
    EventKind.UNKNOWN: "unknown",
}
# Outcomes of a run that stopped: told once, grouped, in the closing table, not per resource.
UNTOLD = {"not sent", "unknown"}
# How often the count is printed while calls are in flight.
EVERY_SECONDS = 5.0


class ApplyLog:
    """Called with each event of the run (from the event loop); prints through `say`."""

    def __init__(
        self,
        plan: Plan,
        say: Callable[[str], None],
        every: float = EVERY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.say = say
        self.every = every
        self.clock = clock
        self.total = len(plan.calls)
        self.left = Counter(call.address for call in plan.calls)
        self.outcomes: dict[str, Counter[str]] = {}
        # Every key present from the start: the ticker thread sums it while it grows.
        self.finished: Counter[str] = Counter(dict.fromkeys(FINISHED.values(), 0))
        self.started_at = clock()
        self.first_start: dict[str, float] = {}
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, daemon=True)

    def __enter__(self) -> ApplyLog:
        self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._ticker.join()

    def __call__(self, event: CallEvent) -> None:
        address = event.call.address
        self.first_start.setdefault(address, self.clock())
        outcome = FINISHED.get(event.kind)
        if outcome is None:
            return
        self.finished[outcome] += 1
        self.outcomes.setdefault(address, Counter())[outcome] += 1
        self.left[address] -= 1
        if self.left[address] == 0 and outcome not in UNTOLD:
            self.say(self.resource_line(address))

    def resource_line(self, address: str) -> str:
        outcomes = self.outcomes[address]
        calls = sum(outcomes.values())
        verdict = "failed" if outcomes["failed"] else "skipped" if outcomes["skipped"] else "done"
        seconds = self.clock() - self.first_start[address]
        plural = "call" if calls == 1 else "calls"
        return safe(f"{address}: {verdict}, {calls} {plural} in {seconds:.1f}s")

    def count_line(self) -> str:
        done = sum(self.finished.values())
        elapsed = self.clock() - self.started_at
        stopped = "".join(f", {self.finished[o]} {o}" for o in sorted(UNTOLD) if self.finished[o])
        return (
            f"apply: {done}/{self.total} calls finished ({self.finished['done']} done,"
            f" {self.finished['failed']} failed, {self.finished['skipped']} skipped{stopped}),"
            f" {elapsed:.0f}s elapsed"
        )

    def _tick(self) -> None:
        while not self._stop.wait(self.every):
            self.say(self.count_line())
