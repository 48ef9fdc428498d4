"""Every entry of a paged listing (`start`/`num`, answered with `total` or `nextStart`), with
as few round trips one after another as the listing allows.

Page 1 tells `total`, so the remaining pages are fetched concurrently. When the caller
expects many entries (the members its manifests name), the first pages go out together
with page 1 instead of waiting a round trip for the total; a guess too high costs a few
empty pages, never a wrong answer: every page is placed by its `start`, and pages fetched
ahead are dropped when the server pages differently than asked.

Each page's entries are handed to `convert` as soon as that page and every page before it
are there, so a listing of 100,000 members is made into records while later pages are
still on the wire, and no page's raw JSON outlives its conversion.

A listing is bounded (`Bounds`): the pages its `total` and page size call for, or that
`nextStart` leads to, may not exceed the page limit, and `nextStart` must move forward, so
a portal that pages backwards or never stops ends the read with one line, not a loop.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from reconciler.live.concurrency import first_failure
from reconciler.live.errors import LimitExceeded
from reconciler.live.limits import DEFAULTS, Limits

Json = dict[str, Any]
T = TypeVar("T")
Fetch = Callable[[int], Coroutine[Any, Any, Json]]  # start -> that page
Convert = Callable[[list[Json]], Awaitable[list[T]]]  # a page's entries -> their records
PAGE_SIZE = 100
AHEAD = 4  # pages asked before the total is known, at most: half of the default concurrency
FOLLOW_AHEAD = 8  # pages asked ahead of a long listing without a total, at most


@dataclass(frozen=True, slots=True)
class Bounds:
    """The listing's URL, for messages, and the limits it is read under."""

    url: str = "the listing"
    limits: Limits = DEFAULTS

    def check_total(self, total: int, step: int) -> None:
        pages = -(-total // step)
        if pages > self.limits.pages:
            raise LimitExceeded(
                f"portal at {self.url} says its listing holds {total:,} entries, {pages:,}"
                f" pages of {step}: more than the limit of {self.limits.told('pages')}"
            )

    def check_next(self, pages: int, start: int, following: int) -> None:
        """Before asking page `pages + 1`, at `following`, after the page at `start`."""
        if following <= start:
            raise LimitExceeded(
                f"portal at {self.url} answered nextStart {following} after the page at"
                f" {start}: a listing's nextStart must move forward, or it never ends"
            )
        if pages >= self.limits.pages:
            raise LimitExceeded(
                f"portal at {self.url} went on listing past the limit of"
                f" {self.limits.told('pages')}"
            )


async def as_is(entries: list[Json]) -> list[Json]:
    """The `convert` of a caller that wants the entries themselves."""
    return entries


async def read_pages(
    fetch: Fetch,
    key: str,
    convert: Convert[T],
    *,
    page_size: int,
    expected: int = 0,
    bounds: Bounds = Bounds(),
) -> list[T]:
    """What `convert` makes of the entries under `key` of every page, in server order."""
    try:
        async with asyncio.TaskGroup() as group:
            ahead = max(1, min(AHEAD, -(-expected // page_size)))
            early = {s: group.create_task(fetch(s)) for s in range(1, ahead * page_size, page_size)}
            first = await early.pop(1)
            total = first.get("total")
            if not isinstance(total, int) or isinstance(total, bool):
                return await _follow(group, fetch, key, convert, first, early, bounds)
            listed = entries(first, key)
            # A server that caps `num` below our ask shows it on page 1: step by its size.
            step = len(listed) if 0 < len(listed) < min(page_size, total) else page_size
            bounds.check_total(total, step)
            starts = range(1 + step, total + 1, step)
            tasks = {s: early.pop(s) if s in early else group.create_task(fetch(s)) for s in starts}
            for unused in early.values():  # beyond the total, or paged differently
                unused.cancel()
            items = await convert(listed)  # while the other pages are on their way
            for start in starts:
                items.extend(await convert(entries(await tasks.pop(start), key)))
            return items
    except BaseExceptionGroup as failed:
        raise first_failure(failed) from None


async def _follow(
    group: asyncio.TaskGroup,
    fetch: Fetch,
    key: str,
    convert: Convert[T],
    page: Json,
    early: dict[int, asyncio.Task[Json]],
    bounds: Bounds,
) -> list[T]:
    """A listing without `total`, followed page by page through `nextStart` (a page asked
    ahead is used when `nextStart` points at it); the next page is asked before this one
    is converted. A listing that goes on past its third page is asked ahead at the
    stride it pages by, more pages the longer it goes (up to `FOLLOW_AHEAD`): a long
    listing then costs about a round trip per `FOLLOW_AHEAD` pages, not one per page; a
    wrong guess costs a few requests, never an entry."""
    items: list[T] = []
    start, pages, window = 1, 1, 0
    while True:
        listed = entries(page, key)
        following_start = next_start(page) if listed else None
        following = None
        if following_start is not None:
            bounds.check_next(pages, start, following_start)
            stride = following_start - start
            start, pages = following_start, pages + 1
            following = early.pop(start, None)
            if following is None:  # not where a guess put it: every guess is off
                _cancel(early)
                following = group.create_task(fetch(start))
            window = min(window * 2 or int(pages > 3), FOLLOW_AHEAD)
            ahead = (start + n * stride for n in range(1, window + 1))
            for guess in itertools.islice(ahead, max(0, bounds.limits.pages - pages)):
                if guess not in early:
                    early[guess] = group.create_task(fetch(guess))
        items.extend(await convert(listed))
        if following is None:
            break
        page = await following
    _cancel(early)
    return items


def _cancel(early: dict[int, asyncio.Task[Json]]) -> None:
    for unused in early.values():
        unused.cancel()
    early.clear()


def entries(page: Json, key: str) -> list[Json]:
    found = page.get(key) or []
    return [item for item in found if isinstance(item, dict)]


def next_start(page: Json) -> int | None:
    value = page.get("nextStart")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None
