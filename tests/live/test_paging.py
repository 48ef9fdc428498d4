"""Paged listings: every entry once and in order, whatever the pages asked ahead of the
total turn out to be (beyond the end, paged differently by the server, or failing), each
page converted as soon as it and the pages before it are there."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reconciler.live.errors import LimitExceeded, ServiceError
from reconciler.live.limits import Limits
from reconciler.live.paging import Bounds, as_is, read_pages

Json = dict[str, Any]


class Listing:
    """A server's listing of `size` entries; records each `start` asked, and when page 1
    was answered relative to the other asks."""

    def __init__(self, size: int, *, cap: int = 100, total: bool = True) -> None:
        self.items = [{"n": n} for n in range(size)]
        self.cap, self.total = cap, total
        self.asked: list[int] = []
        self.asked_before_first_answer: list[int] = []

    async def fetch(self, start: int) -> Json:
        self.asked.append(start)
        for _ in range(5):
            await asyncio.sleep(0)  # in flight: others may be asked meanwhile
        if start == 1:
            self.asked_before_first_answer = list(self.asked)
        chunk = self.items[start - 1 : start - 1 + self.cap]
        end = start - 1 + len(chunk)
        page: Json = {"entries": chunk, "nextStart": end + 1 if end < len(self.items) else -1}
        if self.total:
            page["total"] = len(self.items)
        return page


def read(listing: Listing, expected: int) -> list[Json]:
    reading = read_pages(listing.fetch, "entries", as_is, page_size=100, expected=expected)
    return asyncio.run(reading)


def test_the_pages_the_caller_expects_go_out_with_page_1() -> None:
    listing = Listing(250)
    assert read(listing, expected=250) == listing.items
    assert listing.asked_before_first_answer == [1, 101, 201]
    assert sorted(listing.asked) == [1, 101, 201]


def test_ahead_is_bounded_and_the_rest_follow_the_total() -> None:
    listing = Listing(1_000)
    assert read(listing, expected=100_000) == listing.items
    assert listing.asked_before_first_answer == [1, 101, 201, 301]
    assert sorted(listing.asked) == list(range(1, 1_000, 100))


def test_a_guess_too_high_costs_empty_pages_not_entries() -> None:
    listing = Listing(120)
    assert read(listing, expected=400) == listing.items
    assert sorted(listing.asked) == [1, 101, 201, 301]


def test_nothing_expected_waits_for_the_total() -> None:
    listing = Listing(250)
    assert read(listing, expected=0) == listing.items
    assert listing.asked_before_first_answer == [1]


def test_a_server_capping_num_is_stepped_by_its_size_without_gaps() -> None:
    listing = Listing(260, cap=30)
    assert read(listing, expected=260) == listing.items
    assert [s for s in listing.asked if s not in (101, 201)] == list(range(1, 261, 30))


def test_without_a_total_next_start_is_followed_and_pages_asked_ahead_are_used() -> None:
    listing = Listing(250, total=False)
    assert read(listing, expected=250) == listing.items
    assert sorted(listing.asked) == [1, 101, 201]


def test_a_failing_page_ahead_fails_the_listing_with_its_own_error() -> None:
    listing = Listing(250)

    async def failing(start: int) -> Json:
        if start == 201:
            raise ServiceError("https://portal/x", 500, "page 3 failed")
        return await listing.fetch(start)

    with pytest.raises(ServiceError, match="page 3 failed"):
        asyncio.run(read_pages(failing, "entries", as_is, page_size=100, expected=250))


@pytest.mark.parametrize("total", [True, False])
def test_each_page_is_converted_before_the_last_page_is_answered(total: bool) -> None:
    """The last page is answered only once the first has been converted: a reader that
    converted after the last page would wait forever (here: fail on the timeout)."""
    listing = Listing(250, total=total)
    first_converted = asyncio.Event()
    converted: list[int] = []

    async def fetch(start: int) -> Json:
        if start == 201:
            await first_converted.wait()
        return await listing.fetch(start)

    async def convert(entries: list[Json]) -> list[int]:
        first_converted.set()
        converted.append(len(entries))
        return [entry["n"] for entry in entries]

    async def reading() -> list[int]:
        pages = read_pages(fetch, "entries", convert, page_size=100, expected=250)
        return await asyncio.wait_for(pages, timeout=5)

    assert asyncio.run(reading()) == list(range(250))
    assert converted == [100, 100, 50]


@pytest.mark.parametrize("total", [True, False])
def test_a_page_being_converted_does_not_hold_back_the_next_ask(total: bool) -> None:
    """Converting page 1 waits until page 101 has been asked: a reader that asked the
    next pages only after converting would wait forever (here: fail on the timeout)."""
    listing = Listing(150, total=total)
    next_asked = asyncio.Event()

    async def fetch(start: int) -> Json:
        if start == 101:
            next_asked.set()
        return await listing.fetch(start)

    async def convert(entries: list[Json]) -> list[Json]:
        await next_asked.wait()
        return entries

    async def reading() -> list[Json]:
        pages = read_pages(fetch, "entries", convert, page_size=100, expected=0)
        return await asyncio.wait_for(pages, timeout=5)

    assert asyncio.run(reading()) == listing.items


# --- bounds: a listing that pages backwards, never ends, or claims too much -------------


def bounded(fetch: Any, pages: int = 10) -> list[Json]:
    limits = Limits(pages=pages)
    bounds = Bounds("https://portal.example.com/x/roles", limits)
    return asyncio.run(read_pages(fetch, "entries", as_is, page_size=100, bounds=bounds))


def test_a_next_start_that_goes_back_ends_the_listing_naming_it() -> None:
    asked: list[int] = []

    async def backwards(start: int) -> Json:
        asked.append(start)
        return {"entries": [{"n": start}], "nextStart": 1}  # page 1 again, forever

    with pytest.raises(LimitExceeded, match=r"nextStart 1 after the page at 1: .*must move"):
        bounded(backwards)
    assert asked == [1]


def test_a_listing_without_total_that_never_ends_stops_at_the_page_limit() -> None:
    asked: list[int] = []

    async def endless(start: int) -> Json:
        asked.append(start)
        return {"entries": [{"n": start}], "nextStart": start + 100}

    with pytest.raises(LimitExceeded, match=r"x/roles went on listing past .*10 pages"):
        bounded(endless, pages=10)
    assert len(asked) == 10


def test_a_total_beyond_the_page_limit_is_refused_before_the_pages_are_asked() -> None:
    asked: list[int] = []

    async def huge(start: int) -> Json:
        asked.append(start)
        return {"entries": [{"n": 0}] * 100, "total": 10**9, "nextStart": start + 100}

    with pytest.raises(LimitExceeded, match=r"1,000,000,000 entries, 10,000,000 pages of 100"):
        bounded(huge, pages=10_000)
    assert asked == [1]


def test_a_listing_within_the_page_limit_is_read_whole() -> None:
    listing = Listing(1_000, total=False)
    assert len(bounded(listing.fetch, pages=10)) == 1_000


def test_a_long_listing_without_total_is_asked_ahead_and_read_exactly() -> None:
    """Before, one page at a time: 10,000 pages were 10,000 round trips one after
    another. Now several are in flight, and no entry is lost or repeated."""
    listing = Listing(3_000, total=False)
    in_flight, most = 0, 0

    async def fetch(start: int) -> Json:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        try:
            return await listing.fetch(start)
        finally:
            in_flight -= 1

    assert bounded(fetch, pages=100) == listing.items
    assert most == 9  # the page nextStart names and FOLLOW_AHEAD guesses
    extra = sorted(set(listing.asked) - set(range(1, 3_001, 100)))
    assert len(extra) <= 8 and all(s > 3_000 for s in extra), extra
