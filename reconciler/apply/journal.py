"""The apply journal: JSON lines, one per event, flushed as it happens, so an interrupted
apply can be understood from what reached the disk."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from reconciler.apply.events import CallEvent
from reconciler.files import open_output

# Plans never hold secrets; this guards a hand-edited plan file all the same.
_SECRET_FIELD = re.compile(r"token|password|secret", re.IGNORECASE)
Clock = Callable[[], datetime]


def _now() -> datetime:
    return datetime.now(UTC)


class Journal:
    def __init__(self, path: str | Path, *, run_id: str = "", clock: Clock = _now) -> None:
        self.path = Path(path)
        self.run_id = run_id  # one per apply: a journal appended to by several tells them apart
        self._clock = clock
        # Opened before the first call is sent: a journal that cannot be written stops
        # the apply while nothing has changed yet.
        self._file: IO[str] = open_output(self.path, "journal", "a")

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    def record(self, event: CallEvent) -> None:
        self._write(self.line(event))

    def _write(self, line: dict[str, Any]) -> None:
        self._file.write(json.dumps(line, sort_keys=True) + "\n")
        self._file.flush()

    def _stamp(self) -> dict[str, Any]:
        moment = self._clock().isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return {"time": moment, "run": self.run_id} if self.run_id else {"time": moment}

    def line(self, event: CallEvent) -> dict[str, Any]:
        line: dict[str, Any] = {
            **self._stamp(),
            "seq": event.call.seq,
            "address": event.call.address,
            "operation": event.call.operation,
            "event": str(event.kind),
        }
        if event.params is not None:
            line["params"] = {
                k: "***" if _SECRET_FIELD.search(k) else v for k, v in event.params.items()
            }
        if event.result is not None:
            line["result"] = event.result
        if event.error is not None:
            line["error"] = event.error
        if event.note is not None:
            line["note"] = event.note
        if event.attempt is not None:
            line["attempt"] = event.attempt
        return line
