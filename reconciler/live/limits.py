"""How much a portal's answers may cost orgctl: time, bytes, nesting and pages.

Every answer is untrusted. A portal (or whatever stands between) that answers one byte
every two seconds, an endless or 100 MB body, JSON nested 100,000 deep, or a listing whose
`nextStart` loops or whose `total` is 10**9, would otherwise hang orgctl or exhaust its
memory. Each limit ends the run with one line naming the URL and the limit; the defaults
are beyond what a portal of 500,000 members answers (a page is 100 entries, at most a few
hundred KB; the largest listing 5,000 pages).

Each is set by a flag of the commands that talk to a portal, else its ORGCTL_* variable,
else the default (README: limits of a portal's answers).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from reconciler.errors import UserError
from reconciler.values import seconds

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit: its flag, its variable, how to read it and how to show it."""

    field: str
    flag: str
    variable: str
    parse: Callable[[str], float | int]
    show: Callable[[Any], str]


@dataclass(frozen=True, slots=True)
class Limits:
    # Connect to last byte of one request; a healthy portal answers a page in seconds.
    request_seconds: float = 45.0
    # A page of 100 roles with their privileges is under 1 MB.
    answer_bytes: int = 16 * MIB
    # Answers nest a handful of levels (a workspace's group link's config).
    json_depth: int = 64
    # 500,000 members are 5,000 pages of 100; a listing that never ends stops at 600,000
    # entries, whose records take about 300 MB.
    pages: int = 6_000

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Limits:
        """The limits the flags given to this command (`choose`) set, else the
        environment's variables, else the defaults; a bad value names its variable."""
        values: dict[str, Any] = {}
        for limit in LIMITS:
            if _chosen.get(limit.field) is not None:
                values[limit.field] = _chosen[limit.field]
                continue
            text = (environ.get(limit.variable) or "").strip()
            if text:
                values[limit.field] = _parsed(limit, text, limit.variable)
        return cls(**values)

    def told(self, field: str) -> str:
        """The limit as a message names it: its value and how to change it."""
        limit = _BY_FIELD[field]
        return f"{limit.show(getattr(self, field))} ({limit.flag} or {limit.variable})"


def parse_seconds(text: str) -> float:
    """`45`, `45s`, `2m`, `1m30s`, `0.5` (seconds), read by the one duration rule."""
    parsed = seconds(text)
    if parsed is None:
        raise ValueError(f"{text!r} is not a duration like 45s, 2m or 1m30s")
    return parsed


_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "k": KIB,
    "kib": KIB,
    "m": MIB,
    "mib": MIB,
    "g": 1024 * MIB,
    "gib": 1024 * MIB,
}


def parse_size(text: str) -> int:
    """`16MiB`, `500KB`, `1048576` (bytes)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([a-z]*)", text.strip().lower())
    if not match or match.group(2) not in _SIZE_UNITS:
        raise ValueError(f"{text!r} is not a size like 16MiB, 500KB or 1048576")
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2)])


def parse_count(text: str) -> int:
    if not text.strip().isdigit():
        raise ValueError(f"{text!r} is not a whole number")
    return int(text)


def show_size(size: int) -> str:
    for unit, factor in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", KIB)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size:,} bytes"


def show_seconds(seconds: float) -> str:
    return f"{seconds:g} s"


LIMITS = (
    Limit(
        "request_seconds",
        "--request-timeout",
        "ORGCTL_REQUEST_TIMEOUT",
        parse_seconds,
        show_seconds,
    ),
    Limit("answer_bytes", "--max-answer-size", "ORGCTL_MAX_ANSWER_SIZE", parse_size, show_size),
    Limit("json_depth", "--max-json-depth", "ORGCTL_MAX_JSON_DEPTH", parse_count, str),
    Limit("pages", "--max-pages", "ORGCTL_MAX_PAGES", parse_count, lambda n: f"{n:,} pages"),
)
_BY_FIELD = {limit.field: limit for limit in LIMITS}
DEFAULTS = Limits()
assert set(_BY_FIELD) == {f.name for f in fields(Limits)}

# What the flags of the running command set (None: not given). The command line sets
# every entry each time a command that talks to a portal starts (`choose`).
_chosen: dict[str, float | int | None] = {}


def choose(field: str, text: str | None) -> None:
    """Record a flag's value (None: not given) for `Limits.from_env` to prefer."""
    limit = _BY_FIELD[field]
    _chosen[field] = None if text is None else _parsed(limit, text, limit.flag)


def _parsed(limit: Limit, text: str, where: str) -> float | int:
    try:
        value = limit.parse(text)
    except ValueError as exc:
        raise UserError(f"{where}: {exc}") from None
    if not value > 0 or (isinstance(value, float) and not math.isfinite(value)):
        raise UserError(f"{where}: must be more than 0, got {text!r}")
    return value
