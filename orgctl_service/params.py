"""Typed access to a request's form and query fields, with the spec's error envelope on
bad input, and the Sharing API paging convention (start 1-based, num <= 100).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from orgctl_service.errors import bad_request

MAX_FIELD_CHARS = 100_000
PAGE_DEFAULT = 10
PAGE_MAX = 100
# Numbers as a form writes them, in ASCII: Python's int() and float() also take "1_000",
# other scripts' digits ("٣") and "infinity", which no client means to send.
_INTEGER = re.compile(r"[+-]?[0-9]{1,30}", re.ASCII)
_NUMBER = re.compile(r"[+-]?([0-9]{1,30}(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?", re.ASCII)


class Params:
    def __init__(self, fields: Mapping[str, str]) -> None:
        self.fields = dict(fields)

    def raw(self, name: str) -> str | None:
        value = self.fields.get(name)
        if value is not None and len(value) > MAX_FIELD_CHARS:
            raise bad_request(f"{name} is longer than {MAX_FIELD_CHARS} characters")
        return value

    def given(self, name: str) -> bool:
        """A field counts as given when present and not blank."""
        value = self.fields.get(name)
        return value is not None and value.strip() != ""

    def text(self, name: str, required: bool = False) -> str | None:
        value = self.raw(name)
        if value is None or (required and not value.strip()):
            if required:
                raise bad_request(f"'{name}' is required")
            return None
        return value

    def integer(self, name: str, required: bool = False) -> int | None:
        if not self.given(name):
            if required:
                raise bad_request(f"'{name}' is required")
            return None
        text = (self.raw(name) or "").strip()
        if not _INTEGER.fullmatch(text):
            raise bad_request(f"'{name}' must be an integer, got {text[:40]!r}")
        return int(text)

    def number(self, name: str) -> float | None:
        if not self.given(name):
            return None
        text = (self.raw(name) or "").strip()
        if not _NUMBER.fullmatch(text):
            raise bad_request(f"'{name}' must be a number, got {text[:40]!r}")
        value = float(text)
        if not math.isfinite(value):
            raise bad_request(f"'{name}' must be a finite number, got {text[:40]!r}")
        return value

    def boolean(self, name: str) -> bool | None:
        if not self.given(name):
            return None
        text = (self.raw(name) or "").strip().lower()
        if text not in ("true", "false"):
            raise bad_request(f"'{name}' must be true or false, got {text[:40]!r}")
        return text == "true"

    def json_value(self, name: str, required: bool = False) -> Any:
        text = self.text(name, required=required)
        if text is None or not text.strip():
            return None
        try:
            return json.loads(text)
        except ValueError as exc:
            raise bad_request(f"'{name}' is not valid JSON: {exc}") from None
        except RecursionError:
            raise bad_request(f"'{name}' is nested too deeply") from None


def page(
    params: Params, rows: Sequence[Any], key: str, view: Callable[[Any], Any] | None = None
) -> dict[str, Any]:
    """One page of `rows` under `key`, with total, start, num and nextStart (-1 at end).

    `view` shapes each row of the page only, so a long listing costs one page of work.
    """
    start = params.integer("start") or 1
    num = params.integer("num")
    num = PAGE_DEFAULT if num is None else num
    if start < 1:
        raise bad_request(f"'start' must be 1 or more, got {start}")
    if num < 0:
        raise bad_request(f"'num' must be 0 or more, got {num}")
    num = min(num, PAGE_MAX)
    chunk = list(rows[start - 1 : start - 1 + num])
    if view is not None:
        chunk = [view(row) for row in chunk]
    after = start + len(chunk)
    next_start = after if after <= len(rows) and num > 0 else -1
    return {"total": len(rows), "start": start, "num": num, "nextStart": next_start, key: chunk}
