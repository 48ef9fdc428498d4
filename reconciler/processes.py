"""Work shared among processes: planning a fleet is CPU-bound (loading manifests,
diffing, rendering), so one process's event loop made `--jobs 8` no faster than
`--jobs 1`. Each process takes every n-th item, so slow and fast portals spread evenly."""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def process_count(wanted: int, items: int) -> int:
    """How many processes `wanted` jobs of `items` make use of: no more than the cores."""
    return max(1, min(wanted, items, os.cpu_count() or 1))


def in_processes(items: Sequence[T], processes: int, work: Callable[[list[T]], list[R]]) -> list[R]:
    """`work` on shares of `items` in `processes` processes (here when one), its results
    in the order of `items`. `work` must be a module-level function returning one result
    per item of its share, and items and results must pickle."""
    if processes <= 1:
        return work(list(items))
    shares = [list(range(first, len(items), processes)) for first in range(processes)]
    # One process per share, not a pool: a pool's first idle worker may take every share.
    # What the parent holds unwritten is written now, or each child would write it again.
    sys.stdout.flush()
    sys.stderr.flush()
    running = [_start(work, [items[i] for i in share]) for share in shares]
    found: dict[int, R] = {}
    for share, (process, receiver) in zip(shares, running, strict=True):
        outcome = receiver.recv()
        process.join()
        if isinstance(outcome, BaseException):
            raise outcome
        results, said = outcome
        found.update(zip(share, results, strict=True))
        sys.stderr.write(said)
    return [found[i] for i in range(len(items))]


def _start(
    work: Callable[[list[T]], list[R]], share: list[T]
) -> tuple[multiprocessing.Process, Connection]:
    receiver, sender = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.Process(target=_share, args=(work, share, sender), daemon=True)
    process.start()
    sender.close()  # the child holds its own end
    return process, receiver


def _share(work: Callable[[list[T]], list[R]], share: list[T], sender: Connection) -> None:
    """`work` on `share` in a child process; its results and what it wrote on stderr
    (notes, retries) go back to the parent, which writes them on its own stderr: whoever
    holds the parent's stderr (a pipe, a test's capture) then gets every line. An error
    goes back to be raised there."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            results = work(share)
        sender.send((results, said.getvalue()))
    except BaseException as exc:  # whatever it is, the parent raises it
        sender.send(exc)
    finally:
        sender.close()
