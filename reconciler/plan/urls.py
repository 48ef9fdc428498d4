"""Which catalog operation a call's URL names, for plans read back from a file (the plan
file keeps the contract's keys, and the URL identifies the operation)."""

from __future__ import annotations

import re
from functools import cache

from reconciler import catalog


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    found = []
    for name, op in catalog.OPERATIONS.items():
        # Ids (and unresolved ${...} placeholders) are single path segments.
        pattern = re.sub(r"\\\{[A-Za-z]+\\\}", r"[^/]+(?:/[^}]*\\})?", re.escape(op.path))
        found.append((name, re.compile(f"/{pattern}$")))
    return tuple(found)


def operation_of(url: str) -> str:
    """The catalog operation `url` calls; ValueError when none matches."""
    matching = [name for name, pattern in _patterns() if pattern.search(url)]
    if len(matching) != 1:
        raise ValueError(f"URL {url!r} names no known operation")
    return matching[0]
