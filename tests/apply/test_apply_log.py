"""What apply prints to a log: a line per resource when its last call finishes and a
count every few seconds while calls are in flight."""

from __future__ import annotations

import threading

from reconciler.apply import CallEvent, EventKind
from reconciler.cli.apply_log import ApplyLog
from tests.apply.test_engine import assign, create_role, plan, set_privileges


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_resource_is_told_once_its_last_call_finishes() -> None:
    create, privileges, bob = (
        create_role(1, "A"),
        set_privileges(2, "A", (1,)),
        assign(3, "bob", "org_user"),
    )
    lines: list[str] = []
    clock = Clock()
    log = ApplyLog(plan(create, privileges, bob), lines.append, clock=clock)
    log(CallEvent(create, EventKind.START))
    log(CallEvent(create, EventKind.DONE))
    assert lines == []  # Role/A still has a call to go
    clock.now += 1.25
    log(CallEvent(privileges, EventKind.FAILED, error={"message": "403"}))
    log(CallEvent(bob, EventKind.SKIPPED, error={"message": "skipped"}))
    assert lines == ["Role/A: failed, 2 calls in 1.2s", "Member/bob: skipped, 1 call in 0.0s"]
    assert log.count_line() == "apply: 3/3 calls finished (1 done, 1 failed, 1 skipped), 1s elapsed"


def test_the_count_is_printed_every_few_seconds_while_calls_run() -> None:
    told = threading.Event()
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        told.set()

    with ApplyLog(plan(create_role(1, "A")), say, every=0.01):
        assert told.wait(5), "no count line while the apply ran"
    assert lines[0].startswith("apply: 0/1 calls finished (0 done, 0 failed, 0 skipped)")
    count = len(lines)
    told.clear()
    assert not told.wait(0.05) and len(lines) == count, "the count goes on after the apply"
