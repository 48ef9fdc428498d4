"""How much a portal's answers may cost orgctl: time, bytes, nesting and pages.

Every answer is untrusted. A portal (or whatever stands between) that answers one byte
every two seconds, an endless or 100 MB body, JSON nested 100,000 deep, or a listing whose
`nextStart` loops or whose `total` is 10**9, would otherwise hang orgctl or exhaust its
memory. Each limit ends the run with one line naming the URL and the limit; the defaults
are beyond what a portal of 500,000 members answers (a page is 100 entries, at most a few
hundred KB; the largest listing 5,000 pages).

Each is set by a flag of the commands that talk to a portal, else its ORGCTL_* variable,
else the default (README: limits of a portal's answers). A flag given is carried as its
variable in the command's settings (reconciler/cli/options.py), so the limits are read
from one mapping, with no state kept between calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from reconciler import settings
from reconciler.errors import UserError
from reconciler.settings import KIB, MIB, Variable


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit: its flag, its variable (whose parser reads the flag too), how to show it."""

    field: str
    flag: str
    row: Variable
    show: Callable[[Any], str]

    @property
    def variable(self) -> str:
        return self.row.name


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
        """The limits `environ`'s variables set, else the defaults; a bad value names its
        variable."""
        values: dict[str, Any] = {}
        for limit in LIMITS:
            value = settings.setting(limit.row, environ)
            if value is not None:
                values[limit.field] = value
        return cls(**values)

    def told(self, field: str) -> str:
        """The limit as a message names it: its value and how to change it."""
        limit = _BY_FIELD[field]
        return f"{limit.show(getattr(self, field))} ({limit.flag} or {limit.variable})"


def show_size(size: int) -> str:
    for unit, factor in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", KIB)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size:,} bytes"


def show_seconds(seconds: float) -> str:
    return f"{seconds:g} s"


LIMITS = (
    Limit("request_seconds", "--request-timeout", settings.REQUEST_TIMEOUT, show_seconds),
    Limit("answer_bytes", "--max-answer-size", settings.MAX_ANSWER_SIZE, show_size),
    Limit("json_depth", "--max-json-depth", settings.MAX_JSON_DEPTH, str),
    Limit("pages", "--max-pages", settings.MAX_PAGES, lambda n: f"{n:,} pages"),
)
_BY_FIELD = {limit.field: limit for limit in LIMITS}
DEFAULTS = Limits()
assert set(_BY_FIELD) == {f.name for f in fields(Limits)}


def flag_given(field: str, text: str) -> tuple[str, str]:
    """A limit's flag as the variable it stands over, `(name, text)`: checked here, so a
    bad value names the flag rather than the variable."""
    limit = _BY_FIELD[field]
    try:
        limit.row.parse(text)
    except ValueError as exc:
        raise UserError(f"{limit.flag}: {exc}") from None
    return limit.variable, text
