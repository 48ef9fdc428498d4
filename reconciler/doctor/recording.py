"""What orgctl's readers take from a portal's answers, seen as they take it.

The doctor does not keep its own list of the keys orgctl reads: it runs the readers
themselves (`reconciler.live.reader`) through a client whose answers record each key a
reader asks for, and each key an answer holds. So what the doctor checks is what the
readers use today, whatever they will use tomorrow.

An answer is handed over as `Observed`, a dict that notes every `get`, `[]` and `in`;
the objects and lists inside it are wrapped the same way as they are reached. Keys are
noted by where they sit: the read's path template, then the keys down to it, `[]` for
an entry of a list ("roles[].privileges").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from reconciler.live.client import PortalClient
from reconciler.operations import READS, Path, ReadName, json_kind

Where = tuple[str, ...]  # the read's name, then the keys down to a value


@dataclass(slots=True)
class KeySeen:
    """One key at one place: how often readers asked it, how often it was there, and the
    JSON types it was answered with."""

    asked: int = 0
    present: int = 0
    probed_only: bool = True  # only tested with `in`: the reader takes it when given
    types: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Observations:
    """Every place a reader looked, and every key the answers held there."""

    keys: dict[Where, KeySeen] = field(default_factory=dict)
    held: dict[Where, set[str]] = field(default_factory=dict)  # object place -> its keys
    objects: dict[Where, int] = field(default_factory=dict)  # object place -> how many
    reads: dict[str, int] = field(default_factory=dict)  # read name -> answers

    def answered(self, where: Where, value: Mapping[str, Any]) -> None:
        self.held.setdefault(where, set()).update(str(k) for k in value)
        self.objects[where] = self.objects.get(where, 0) + 1

    def asked(self, where: Where, key: str, value: Any, present: bool, probe: bool) -> None:
        seen = self.keys.setdefault((*where, key), KeySeen())
        seen.asked += 1
        seen.present += present
        seen.probed_only &= probe
        if present:
            seen.types.add(json_kind(value))


class Observed(dict[str, Any]):
    """A JSON object of an answer that tells `Observations` what is asked of it."""

    __slots__ = ("_seen", "_where")

    def __init__(self, raw: Mapping[str, Any], seen: Observations, where: Where) -> None:
        super().__init__(raw)
        self._seen = seen
        self._where = where
        seen.answered(where, raw)

    def _noted(self, key: Any, probe: bool) -> Any:
        present = dict.__contains__(self, key)
        value = dict.get(self, key)
        self._seen.asked(self._where, str(key), value, present, probe)
        return _wrapped(value, self._seen, (*self._where, str(key)))

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._noted(key, probe=False)
        return default if not dict.__contains__(self, key) else value

    def __getitem__(self, key: Any) -> Any:
        if not dict.__contains__(self, key):
            self._noted(key, probe=False)
            raise KeyError(key)
        return self._noted(key, probe=False)

    def __contains__(self, key: object) -> bool:
        self._noted(key, probe=True)
        return dict.__contains__(self, key)


class ObservedList(list[Any]):
    """A JSON array of an answer: its entries are observed as `<place>[]`."""

    __slots__ = ("_seen", "_where")

    def __init__(self, raw: list[Any], seen: Observations, where: Where) -> None:
        super().__init__(raw)
        self._seen = seen
        self._where = where

    def __iter__(self) -> Iterator[Any]:
        for value in list.__iter__(self):
            yield _wrapped(value, self._seen, (*self._where, "[]"))

    def __getitem__(self, index: Any) -> Any:
        value = list.__getitem__(self, index)
        if isinstance(index, slice):
            return ObservedList(value, self._seen, self._where)
        return _wrapped(value, self._seen, (*self._where, "[]"))


def _wrapped(value: Any, seen: Observations, where: Where) -> Any:
    if isinstance(value, dict) and not isinstance(value, Observed):
        return Observed(value, seen, where)
    if isinstance(value, list) and not isinstance(value, ObservedList):
        return ObservedList(value, seen, where)
    return value


def read_of(url: str, client: PortalClient) -> str:
    """The name of the reads-table row a request is: the row whose path template the end
    of the URL's path fits, the longest such (any root: the sharing and admin roots, and
    those a row of another root adds); the URL's path when none fits."""
    path = urlsplit(client.url(url)).path.rstrip("/")
    if path == urlsplit(client.root).path.rstrip("/"):
        return str(ReadName.ROOT)
    segments = [unquote(s) for s in path.split("/") if s]
    fitting = [
        read
        for read in READS.values()
        if read.path.segments and _fits(read.path, segments[-len(read.path.segments) :])
    ]
    if not fitting:
        return path
    return str(max(fitting, key=lambda read: len(read.path.segments)).name)


def _fits(path: Path, segments: list[str]) -> bool:
    return path.match(segments) is not None


class RecordingClient(PortalClient):
    """A `PortalClient` whose answers tell `observations` what the readers take from
    them. It sends exactly what the plain client sends."""

    def __init__(self, root: str, **options: Any) -> None:
        super().__init__(root, **options)
        self.observations = Observations()

    async def get_json(self, path: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        answer = await super().get_json(path, params)
        name = read_of(path, self)
        seen = self.observations
        seen.reads[name] = seen.reads.get(name, 0) + 1
        return Observed(answer, seen, (name,))

    async def unsigned_json(self, read: ReadName) -> dict[str, Any]:
        """A read every portal answers without a token (the root): whether it is there."""
        url = self.url(READS[read].build())
        return await self._request("GET", url, {}, idempotent=True, signed=False)
