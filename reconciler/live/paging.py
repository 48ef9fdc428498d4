"""Every entry of a paged listing (`start`/`num`, answered with `total` or `nextStart`), with
as few round trips one after another as the listing allows.

Page 1 tells `total`, so the remaining pages are fetched concurrently. When the caller
expects many entries (the members its manifests name), the first pages go out together
with page 1 instead of waiting a round trip for the total; a guess too high costs a few
empty pages, never a wrong answer: every page is placed by its `start`, and pages fetched
ahead are dropped when the server pages differently than asked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from reconciler.live.concurrency import first_failure

Json = dict[str, Any]
Fetch = Callable[[int], Coroutine[Any, Any, Json]]  # start -> that page
PAGE_SIZE = 100
AHEAD = 4  # pages asked before the total is known, at most: half of the default concurrency


async def read_pages(fetch: Fetch, key: str, *, page_size: int, expected: int = 0) -> list[Json]:
    """The entries under `key` of every page, in server order."""
    try:
        async with asyncio.TaskGroup() as group:
            ahead = max(1, min(AHEAD, -(-expected // page_size)))
            early = {s: group.create_task(fetch(s)) for s in range(1, ahead * page_size, page_size)}
            first = await early.pop(1)
            items = entries(first, key)
            total = first.get("total")
            if not isinstance(total, int) or isinstance(total, bool):
                return await _follow(fetch, key, first, items, early)
            # A server that caps `num` below our ask shows it on page 1: step by its size.
            step = len(items) if 0 < len(items) < min(page_size, total) else page_size
            starts = range(1 + step, total + 1, step)
            tasks = {s: early.pop(s) if s in early else group.create_task(fetch(s)) for s in starts}
            for unused in early.values():  # beyond the total, or paged differently
                unused.cancel()
            for start in starts:
                items.extend(entries(await tasks[start], key))
            return items
    except BaseExceptionGroup as failed:
        raise first_failure(failed) from None


async def _follow(
    fetch: Fetch,
    key: str,
    page: Json,
    items: list[Json],
    early: dict[int, asyncio.Task[Json]],
) -> list[Json]:
    """A listing without `total`, followed page by page through `nextStart` (a page asked
    ahead is used when `nextStart` points at it)."""
    while (start := next_start(page)) is not None and entries(page, key):
        ahead = early.pop(start, None)
        page = await ahead if ahead is not None else await fetch(start)
        items.extend(entries(page, key))
    for unused in early.values():
        unused.cancel()
    return items


def entries(page: Json, key: str) -> list[Json]:
    found = page.get(key) or []
    return [item for item in found if isinstance(item, dict)]


def next_start(page: Json) -> int | None:
    value = page.get("nextStart")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None
