"""Every `ORGCTL_*` variable in one table, read once into a frozen `Settings`.

A row says a variable's name, what it means, how its value is written, its default and
whether its value is a secret. The command line builds one `Settings` from the process's
environment (`Settings.from_process`, the only read of `os.environ` besides `EXCEPTIONS`)
and hands it down: a command passes its fields, or `environ` where a variable's name
depends on the portal (`ORGCTL_<NAME>_TOKEN`) or on the manifests (`Portal.spec.auth`).
`orgctl --help` and the README's table of variables are made from `TABLE`.

A bad value ends the run with one line naming the variable; a secret's value is never
repeated in it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, TypeVar

from reconciler.errors import UserError
from reconciler.values import seconds

KIB = 1024
MIB = 1024 * KIB
LEASE_BOUNDS = (3.0, 3600.0)

# Modules that read os.environ themselves, and why (tests/test_settings.py holds the rest
# of `reconciler/` to reading none).
EXCEPTIONS: dict[str, str] = {
    "reconciler/settings.py": "reads the table's variables, once",
    "reconciler/testing.py": "gives a command run in a test (in this process or a child) this"
    " process's environment, its ORGCTL_* variables dropped",
    "reconciler/live/trust.py": "keys the one default trust store it keeps on the process's"
    " SSL_CERT_FILE and SSL_CERT_DIR, which httpx reads from the process itself",
    "reconciler/agent/source.py": "hands git the process's environment (HOME, SSH agent,"
    " credential helpers); reads no variable itself",
}


def parse_text(text: str) -> str:
    return text


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


Number = TypeVar("Number", int, float)


def positive(parse: Callable[[str], Number]) -> Callable[[str], Number]:
    """`parse`, refusing 0, a negative number and infinity: a limit of them stops all."""

    def checked(text: str) -> Number:
        value = parse(text)
        if not value > 0 or (isinstance(value, float) and not math.isfinite(value)):
            raise ValueError(f"must be more than 0, got {text!r}")
        return value

    return checked


def parse_lease(text: str) -> float:
    period = seconds(text)
    if period is None or not LEASE_BOUNDS[0] <= period <= LEASE_BOUNDS[1]:
        raise ValueError(
            f"{text!r} is not a lease period from {LEASE_BOUNDS[0]:g}s to 1h (like 90s or 10m)"
        )
    return period


@dataclass(frozen=True, slots=True)
class Variable:
    """One row of the table. `field` is the `Settings` field holding its value; None for
    a variable named after a portal (read through `Settings.environ`) or one orgctl
    itself does not read (`reader` says who does)."""

    name: str
    meaning: str
    value: str = "text"  # how the value is written
    default: str = ""  # as shown; empty: unset
    secret: bool = False
    field: str | None = None
    parse: Callable[[str], Any] = parse_text
    reader: str = "orgctl"

    @property
    def pattern(self) -> re.Pattern[str]:
        """The names this row stands for: `<NAME>` is any portal's key."""
        parts = (re.escape(part) for part in self.name.split("<NAME>"))
        return re.compile("[A-Z0-9_]+".join(parts))


CI = "the CI examples (examples/ci/)"

# Credentials: the portal's own first, then those Portal.spec.auth names, then the plain.
OWN_TOKEN = Variable("ORGCTL_<NAME>_TOKEN", "the token of the portal NAME", secret=True)
OWN_USERNAME = Variable("ORGCTL_<NAME>_USERNAME", "the member the portal NAME is signed in as")
OWN_PASSWORD = Variable("ORGCTL_<NAME>_PASSWORD", "that member's password", secret=True)
TOKEN = Variable(
    "ORGCTL_TOKEN",
    "a token, when neither the portal's own nor spec.auth's variables are set",
    secret=True,
    field="token",
)
USERNAME = Variable(
    "ORGCTL_USERNAME", "the member to sign in as, with the password", field="username"
)
PASSWORD = Variable("ORGCTL_PASSWORD", "that member's password", secret=True, field="password")
# A cluster mounts secrets as files: each file wins over its variable, and is read anew.
OWN_FILES = tuple(
    Variable(f"{row.name}_FILE", f"a file holding the portal NAME's {what}", "path")
    for row, what in ((OWN_TOKEN, "token"), (OWN_USERNAME, "username"), (OWN_PASSWORD, "password"))
)
PORTAL_URL = Variable("ORGCTL_PORTAL_URL", "used instead of spec.url", "URL", field="portal_url")
ADMIN_URL = Variable("ORGCTL_ADMIN_URL", "used instead of spec.adminUrl", "URL", field="admin_url")
OWN_PORTAL_URL = Variable(
    "ORGCTL_<NAME>_PORTAL_URL", "used instead of spec.url of the portal NAME", "URL"
)
OWN_ADMIN_URL = Variable(
    "ORGCTL_<NAME>_ADMIN_URL", "used instead of spec.adminUrl of the portal NAME", "URL"
)
TRUSTED_ORIGINS = Variable(
    "ORGCTL_TRUSTED_ORIGINS",
    "the only origins sent credentials (or NAME=origin: only the portal NAME's)",
    "scheme://host[:port],...",
    "any origin",
    field="trusted_origins",
)
CA_BUNDLE = Variable(
    "ORGCTL_CA_BUNDLE",
    "a PEM file of CA certificates to trust (else SSL_CERT_FILE)",
    "path",
    "the system's",
    field="ca_bundle",
)
REFERER = Variable(
    "ORGCTL_REFERER",
    "the Referer a token bound to a referer needs",
    "URL",
    "the portal URL",
    field="referer",
)
REQUEST_TIMEOUT = Variable(
    "ORGCTL_REQUEST_TIMEOUT",
    "one request's deadline (--request-timeout wins)",
    "duration",
    "45s",
    field="request_timeout",
    parse=positive(parse_seconds),
)
MAX_ANSWER_SIZE = Variable(
    "ORGCTL_MAX_ANSWER_SIZE",
    "one answer's largest body (--max-answer-size wins)",
    "size",
    "16MiB",
    field="max_answer_size",
    parse=positive(parse_size),
)
MAX_JSON_DEPTH = Variable(
    "ORGCTL_MAX_JSON_DEPTH",
    "one answer's deepest nesting (--max-json-depth wins)",
    "count",
    "64",
    field="max_json_depth",
    parse=positive(parse_count),
)
MAX_PAGES = Variable(
    "ORGCTL_MAX_PAGES",
    "one listing's most pages (--max-pages wins)",
    "count",
    "6000",
    field="max_pages",
    parse=positive(parse_count),
)
NOTIFY_URL = Variable(
    "ORGCTL_NOTIFY_URL",
    "the webhook --notify posts to, when not given",
    "URL",
    secret=True,
    field="notify_url",
)
LOCK_LEASE = Variable(
    "ORGCTL_LOCK_LEASE",
    "the apply lock's lease period",
    "duration, 3s to 1h",
    "5m",
    field="lock_lease",
    parse=parse_lease,
)
AGENT_REFRESH_SECRET = Variable(
    "ORGCTL_AGENT_REFRESH_SECRET",
    "turns on the agent's POST /api/v1/refresh (Bearer token)",
    secret=True,
    field="agent_refresh_secret",
)
AGENT_WEBHOOK_SECRET = Variable(
    "ORGCTL_AGENT_WEBHOOK_SECRET",
    "turns on the agent's POST /hooks/git (X-Hub-Signature-256)",
    secret=True,
    field="agent_webhook_secret",
)
SERVE_CONTROL_SECRET = Variable(
    "ORGCTL_SERVE_CONTROL_SECRET",
    "the bearer token of orgctl serve's control API",
    default="made at start",
    secret=True,
    field="serve_control_secret",
)

TABLE: tuple[Variable, ...] = (
    OWN_TOKEN,
    OWN_USERNAME,
    OWN_PASSWORD,
    TOKEN,
    USERNAME,
    PASSWORD,
    *OWN_FILES,
    OWN_PORTAL_URL,
    OWN_ADMIN_URL,
    PORTAL_URL,
    ADMIN_URL,
    TRUSTED_ORIGINS,
    CA_BUNDLE,
    REFERER,
    REQUEST_TIMEOUT,
    MAX_ANSWER_SIZE,
    MAX_JSON_DEPTH,
    MAX_PAGES,
    NOTIFY_URL,
    LOCK_LEASE,
    AGENT_REFRESH_SECRET,
    AGENT_WEBHOOK_SECRET,
    SERVE_CONTROL_SECRET,
    Variable(
        "ORGCTL_REQUIREMENT", "the pip requirement the CI jobs install orgctl from", reader=CI
    ),
    Variable(
        "ORGCTL_DRIFT_PULL_REQUEST",
        "false: the drift workflows only report, opening no pull request",
        "true or false",
        "true",
        reader=CI,
    ),
    *(
        Variable(
            f"ORGCTL{own}_{part}_READ",
            f"{whose} read-only {part.lower()}, for plan and drift",
            secret=part != "USERNAME",
            reader=CI,
        )
        for own, whose in (("", "the job's portal's"), ("_<NAME>", "the portal NAME's"))
        for part in ("TOKEN", "USERNAME", "PASSWORD")
    ),
    Variable(
        "ORGCTL_TEST_CHROMIUM",
        "the Chromium the HTML report tests drive",
        "path",
        "/usr/bin/chromium",
        reader="the test suite",
    ),
)
READ = tuple(row for row in TABLE if row.field is not None)


@dataclass(frozen=True, slots=True)
class Settings:
    """The environment as orgctl reads it. Secrets stay out of the repr."""

    environ: Mapping[str, str] = field(default_factory=dict, repr=False)
    token: str | None = field(default=None, repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    portal_url: str | None = None
    admin_url: str | None = None
    trusted_origins: str | None = None
    ca_bundle: str | None = None
    referer: str | None = None
    request_timeout: float | None = None
    max_answer_size: int | None = None
    max_json_depth: int | None = None
    max_pages: int | None = None
    notify_url: str | None = field(default=None, repr=False)
    lock_lease: float | None = None
    agent_refresh_secret: str | None = field(default=None, repr=False)
    agent_webhook_secret: str | None = field(default=None, repr=False)
    serve_control_secret: str | None = field(default=None, repr=False)

    @classmethod
    def read(cls, environ: Mapping[str, str]) -> Settings:
        """Every row's value (None: unset or empty); a bad one is a UserError naming it."""
        values = {row.field: setting(row, environ) for row in READ if row.field}
        return cls(MappingProxyType(dict(environ)), **values)

    @classmethod
    def from_process(cls, flags: Mapping[str, str] | None = None) -> Settings:
        """The process's environment, with `flags` (a command line's options, by the
        variable each stands over) winning over it."""
        return cls.read({**os.environ, **(flags or {})})


def setting(row: Variable, environ: Mapping[str, str]) -> Any:
    """`row`'s value in `environ`, parsed; None when it is unset or blank."""
    text = (environ.get(row.name) or "").strip()
    if not text:
        return None
    try:
        return row.parse(text)
    except ValueError as exc:
        # A secret's value stays out of the message, as everywhere else.
        said = f"not a valid {row.value}" if row.secret else str(exc)
        raise UserError(f"{row.name}: {said}") from None


def is_row(name: str) -> bool:
    """Whether `name` is a variable of the table (one named after a portal included)."""
    return any(row.pattern.fullmatch(name) for row in TABLE)


# The README's table stands between these lines (scripts/settings_table.py writes it).
README_START = "<!-- made from reconciler/settings.py by scripts/settings_table.py -->"
README_END = "<!-- end of the settings table -->"


def markdown_table() -> str:
    """The README's table of variables (tests/test_settings.py keeps the two equal)."""
    lines = [
        "| variable | meaning | value | default | secret | read by |",
        "|---|---|---|---|---|---|",
    ]
    for row in TABLE:
        cells = (
            f"`{row.name}`",
            row.meaning,
            row.value,
            f"`{row.default}`" if row.default and row.default[0].isdigit() else row.default,
            "yes" if row.secret else "",
            row.reader,
        )
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


# Each variable orgctl reads has its field, and each field its variable.
assert {row.field for row in READ} == {f.name for f in fields(Settings)} - {"environ"}
