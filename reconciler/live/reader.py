"""Read a live portal into a `LiveState` (docs/rules.md §A) with as few round trips as possible.

Only what the manifests need is read: each kind's read reads only what its declarations
need (the tasks whose runs a retention policy keeps, a collaboration's workspaces).
Independent reads are gathered, every kind's own `read` in the same round; a listing two
kinds need is read once (`_Reader.once`); the client's semaphore bounds them.
`Scope.EVERYTHING` reads the whole portal, for `export`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Any, TypeVar

from reconciler.errors import LiveRecordError, UserError
from reconciler.kind import AnyKind, registered
from reconciler.live import records
from reconciler.live.client import PortalClient
from reconciler.live.concurrency import first_failure
from reconciler.live.errors import ForbiddenError
from reconciler.live.paging import Convert, as_is
from reconciler.live.repeats import without_repeats
from reconciler.operations import READS, ReadName
from reconciler.state import DesiredState, LiveState, PortalInfo

T = TypeVar("T")
X = TypeVar("X")
Json = dict[str, Any]


class Scope(StrEnum):
    DESIRED = "desired"  # what the manifests manage
    EVERYTHING = "everything"  # the whole portal (export)


async def read_live(
    client: PortalClient, desired: DesiredState | None, scope: Scope = Scope.DESIRED
) -> LiveState:
    """The live state the planner diffs `desired` against (or the whole portal)."""
    return await _read(_Reader(client, scope is Scope.EVERYTHING, desired), registered())


async def _read(reader: _Reader, kinds: Iterable[AnyKind]) -> LiveState:
    # portals/self and the listings addressed by `self` go out together; the first
    # failure cancels the other reads and is reported alone.
    try:
        async with asyncio.TaskGroup() as group:
            reader.group = group
            reader.reading_portal = group.create_task(reader.portal_info())
            # Every kind reads its own resources, in the same round of requests.
            reading_kinds = [group.create_task(kind.read(reader)) for kind in kinds if kind.read]
    except BaseExceptionGroup as failed:
        raise first_failure(failed) from None
    live = LiveState(
        portal=reader.reading_portal.result(),
        unreadable=reader.unreadable,
        unread=reader.unread,
    )
    for reading in reading_kinds:
        reading.result()(live)
    return live


async def read_people(client: PortalClient) -> LiveState:
    """Only `portals/self` and the kinds that say who holds what (`Kind.people`: the roles
    and the members): what an access review needs, with none of the other reads a plan
    makes. A refused listing fails as a plan's does, saying who may read it (the reads
    table's access)."""
    people = [kind for kind in registered() if kind.people]
    return await _read(_Reader(client, False, None), people)


class _Reader:
    """The `LiveRead` every kind's read gets: `portals/self`, the reads table's listings
    and the bookkeeping every read shares."""

    def __init__(
        self, client: PortalClient, everything: bool, desired: DesiredState | None
    ) -> None:
        self.client = client
        self.desired = desired
        self.everything = everything
        self.unreadable: dict[str, str] = {}  # resource -> what the portal answered wrong
        self.unread: dict[str, str] = {}  # part -> why the signed-in member may not read it
        self.group: asyncio.TaskGroup  # set by `_read`: where every read runs
        self.reading_portal: asyncio.Task[PortalInfo]  # set by `_read` as the first read
        self.shared: dict[Callable[..., Any], asyncio.Task[Any]] = {}  # by `once`

    def once(self, read: Callable[[_Reader], Coroutine[Any, Any, T]]) -> Awaitable[T]:
        """What `read` finds, started by the first read to ask for it and awaited by the
        others, among the reads of `_read`'s group: one failure fails them all."""
        found = self.shared.get(read)
        if found is None:
            found = self.shared[read] = self.group.create_task(read(self))
        return found

    async def portal(self) -> PortalInfo:
        return await self.reading_portal

    async def portal_info(self) -> PortalInfo:
        raw = await self.client.get_json(READS[ReadName.PORTAL].build(portalId="self"))
        portal = records.portal_info(raw, self.client.root)
        if not portal.id:
            raise UserError(f"portal at {self.client.root} answered portals/self without an id")
        return portal

    async def portal_id(self) -> str:
        return (await self.reading_portal).id

    async def path(self, read: ReadName, arguments: dict[str, str]) -> str:
        """The read's path; the portal's id is waited for only when the path needs it."""
        listing = READS[read]
        portal_id = await self.portal_id() if listing.needs_portal_id else "self"
        return listing.build(**{"portalId": portal_id, **arguments})

    async def pages(
        self, read: ReadName, params: dict[str, str] | None = None, **arguments: str
    ) -> list[dict[str, Any]]:
        """Every entry of a paged listing of the reads table."""
        return await self.converted_pages(read, as_is, params, arguments=arguments)

    async def converted_pages(
        self,
        read: ReadName,
        convert: Convert[T],
        params: dict[str, str] | None = None,
        *,
        expected: int = 0,
        arguments: dict[str, str] | None = None,
    ) -> list[T]:
        """What `convert` makes of each page of a listing of the reads table, page by page
        as they come (`expected`: how many entries the manifests suggest, so that the
        first pages go out at once; `arguments`: the path's)."""
        path = await self.path(read, arguments or {})
        entries = READS[read].entries or ""
        with _who_may(read):
            return await self.client.get_pages(
                path, entries, params, convert=convert, expected=expected
            )

    async def one(
        self, read: ReadName, params: dict[str, Any] | None = None, **arguments: str
    ) -> dict[str, Any]:
        path = await self.path(read, arguments)
        with _who_may(read):
            return await self.client.get_json(path, params)

    def readable(self, convert: Callable[[], T]) -> T | None:
        """The record `convert` makes, or None when the portal answered a value orgctl
        cannot read: then the resource is kept in `unreadable`, for the plan to show as
        an error of that resource while the rest is read and planned."""
        try:
            return convert()
        except LiveRecordError as error:
            self.unreadable[error.resource] = str(error)
            return None

    async def permitted(self, part: str, read: Awaitable[T], fallback: T) -> T:
        """The read's answer, or `fallback` when the signed-in member may not make it
        (403): then `part` is kept in `unread` with the portal's reason, and the plan says
        what it could not compare instead of failing as a whole."""
        try:
            return await read
        except ForbiddenError as refused:
            self.unread[part] = refused.message
            return fallback

    def kept(self, entries: Iterable[X], convert: Callable[[X], T]) -> list[T]:
        """`readable` over a listing; a loop, as a listing may hold 100,000 entries."""
        found = []
        for entry in entries:
            try:
                found.append(convert(entry))
            except LiveRecordError as error:
                self.unreadable[error.resource] = str(error)
        return found

    def distinct(
        self, found: list[T], field: str, key: Callable[[T], str], address: Callable[[T], str]
    ) -> list[T]:
        """`found` less the entries whose `field` another entry of the listing repeats
        (`repeats.without_repeats`): those are unreadable, each naming the others."""
        return without_repeats(found, field, key, address, self.unreadable)


@contextmanager
def _who_may(read: ReadName) -> Iterator[None]:
    """A refused read (403) says who may make it, as the reads table does: a real portal's
    message names no privilege, and the fix is an account that holds one."""
    try:
        yield
    except ForbiddenError as refused:
        needed = f"reading it needs {READS[read].access.text}"
        raise ForbiddenError(
            refused.url,
            refused.code,
            refused.message,
            refused.messageCode,
            (*refused.details, needed),
        ) from None
