"""The end of every command's `--help`: examples to copy and the environment it reads.

Each command passes `epilog(examples, variables)` to `click.command`; the `\\b` markers
keep click from rewrapping the lines. A test walks every command of the group, so one
added without examples or without naming its variables fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from reconciler import settings as s
from reconciler.settings import Variable

# (variable, what it means), grouped by what reads them; the names and meanings are the
# settings table's.
Rows = tuple[tuple[str, str], ...]


def rows(*variables: Variable) -> Rows:
    return tuple((variable.name, variable.meaning) for variable in variables)


CREDENTIALS = rows(
    s.OWN_TOKEN, s.OWN_USERNAME, s.OWN_PASSWORD, s.TOKEN, s.USERNAME, s.PASSWORD, *s.OWN_FILES
)
PLAIN_CREDENTIALS = rows(s.TOKEN, s.USERNAME, s.PASSWORD)
URLS = rows(s.OWN_PORTAL_URL, s.OWN_ADMIN_URL, s.PORTAL_URL, s.ADMIN_URL)
CONNECTION = rows(
    s.TRUSTED_ORIGINS,
    s.CA_BUNDLE,
    s.REFERER,
    s.REQUEST_TIMEOUT,
    s.MAX_ANSWER_SIZE,
    s.MAX_JSON_DEPTH,
    s.MAX_PAGES,
)
NOTIFY = rows(s.NOTIFY_URL)
LOCK = rows(s.LOCK_LEASE)
AGENT = rows(s.AGENT_REFRESH_SECRET, s.AGENT_WEBHOOK_SECRET)
SERVE = rows(s.SERVE_CONTROL_SECRET)
LIVE = CREDENTIALS + URLS + CONNECTION
NONE = (("(none)", "this command reads no environment variable"),)


def epilog(examples: Sequence[str], variables: Sequence[tuple[str, str]]) -> str:
    """`Examples:` (one command a line, a `#` comment after it) and `Environment:`."""
    lines = ["\b", "Examples:", *(f"  {example}" for example in examples), ""]
    lines += ["\b", "Environment:"]
    for name, meaning in variables:
        lines += [f"  {name}", f"      {meaning}"]
    return "\n".join(lines)


def environment() -> str:
    """The epilog of `orgctl --help`: every variable orgctl reads, by name and meaning
    (a value is never shown: some are secrets)."""
    read = [row for row in s.TABLE if row.reader == "orgctl"]
    lines = ["\b", "Environment (README: environment variables):"]
    for row in read:
        lines += [f"  {row.name}", f"      {row.meaning}"]
    return "\n".join(lines)
