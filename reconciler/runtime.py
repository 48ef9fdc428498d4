"""How the orgctl process runs, set once at its start."""

from __future__ import annotations

import gc
from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

T = TypeVar("T")

# A plan of a large organization makes millions of small objects (documents, positions,
# live records) that live until the process ends, and the cyclic collector walked them
# again every 700 allocations: a third of loading 100,000 members' manifests. Reference
# counting frees nearly all garbage (manifests and records hold no cycles); the collector
# now runs after 50,000 allocations instead.
YOUNG_GENERATION = 50_000


def tune_garbage_collector() -> None:
    """Collect cycles less often; the older generations keep their default ratios."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_GENERATION, middle, old)


def leave_memory_to_the_system() -> None:
    """Spare the interpreter's last collections at exit: they walk every object still
    tracked (the modules, their classes and models, a plan's documents), 60 ms of the
    450 ms a process spends importing what `drift` needs, where the system reclaims the
    memory at once. Frozen objects are never collected, so this comes after the work:
    `atexit` handlers and finalizers still run; only garbage cycles left at exit are
    not collected, and nothing orgctl writes is left to one."""
    gc.freeze()


class _Outcome(Generic[T]):
    """A coroutine's result, carried out of the event loop in a box with a short repr.

    `asyncio.run` looks its SIGINT handler up again on the way out, and that lookup
    formats the handler, which names the finished main task, whose repr holds the
    result's: a 100,000-member live state or plan made a 0.1-0.2 s string, thrown away."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value


async def _boxed(coroutine: Coroutine[Any, Any, T]) -> _Outcome[T]:
    return _Outcome(await coroutine)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coroutine)`, without formatting its result."""
    import asyncio  # here: `validate` and `--help` start without the event loop's modules

    return asyncio.run(_boxed(coroutine)).value
