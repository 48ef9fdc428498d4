"""A fleet's portals are shared among processes, and come back in their own order."""

from __future__ import annotations

import os

from reconciler.processes import in_processes, process_count


def _with_pid(items: list[int]) -> list[tuple[int, int]]:
    return [(item, os.getpid()) for item in items]


def test_work_runs_in_other_processes_and_keeps_the_order() -> None:
    results = in_processes(list(range(7)), 2, _with_pid)
    assert [item for item, _pid in results] == list(range(7))
    pids = {pid for _item, pid in results}
    assert len(pids) == 2 and os.getpid() not in pids


def test_one_process_works_here() -> None:
    assert {pid for _item, pid in in_processes([1, 2], 1, _with_pid)} == {os.getpid()}


def test_no_more_processes_than_items_or_cores() -> None:
    cores = os.cpu_count() or 1
    assert process_count(8, 50) == min(8, cores)
    assert process_count(8, 1) == 1
    assert process_count(1, 50) == 1
