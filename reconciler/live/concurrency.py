"""Concurrent reads that fail as one: the first failure cancels its siblings and is
raised alone, so nothing keeps running against a client that is about to close (which
asyncio would report, with a traceback, as "Task exception was never retrieved")."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


async def gather(*reads: Awaitable[T]) -> list[T]:
    """Each read's result, in order; on a failure, the first one raised, the rest cancelled."""
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_coroutine(read)) for read in reads]
    except BaseExceptionGroup as failed:
        raise first_failure(failed) from None
    return [task.result() for task in tasks]


def first_failure(group: BaseExceptionGroup[Any]) -> BaseException:
    """The failure to report: the first of the group, looking inside nested groups (it
    keeps its own traceback and cause)."""
    found: BaseException = group.exceptions[0]
    while isinstance(found, BaseExceptionGroup):
        found = found.exceptions[0]
    return found


async def _coroutine(read: Awaitable[T]) -> T:
    return await read
