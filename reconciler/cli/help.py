"""The end of every command's `--help`: examples to copy and the environment it reads.

Each command passes `epilog(examples, variables)` to `click.command`; the `\\b` markers
keep click from rewrapping the lines. A test walks every command of the group, so one
added without examples or without naming its variables fails.
"""

from __future__ import annotations

from collections.abc import Sequence

# (variable, what it does), grouped by what reads them.
CREDENTIALS = (
    (
        "ORGCTL_USERNAME, ORGCTL_PASSWORD, ORGCTL_TOKEN",
        "the credentials, under the names the Portal's spec.auth gives",
    ),
)
URLS = (
    ("ORGCTL_PORTAL_URL, ORGCTL_ADMIN_URL", "used instead of spec.url and spec.adminUrl"),
    ("ORGCTL_<NAME>_PORTAL_URL, ORGCTL_<NAME>_ADMIN_URL", "the same for the portal NAME"),
)
CONNECTION = (
    (
        "ORGCTL_TRUSTED_ORIGINS",
        "scheme://host[:port],... (or NAME=origin): the only origins sent credentials",
    ),
    ("ORGCTL_CA_BUNDLE (or SSL_CERT_FILE)", "a PEM file of CA certificates to trust"),
    ("ORGCTL_REFERER", "the Referer a token bound to a referer needs"),
    (
        "ORGCTL_REQUEST_TIMEOUT, ORGCTL_MAX_ANSWER_SIZE, ORGCTL_MAX_JSON_DEPTH, ORGCTL_MAX_PAGES",
        "limits of a portal's answers, when the flags of the same names are not given",
    ),
)
NOTIFY = (("ORGCTL_NOTIFY_URL", "the webhook --notify posts to, when not given"),)
LOCK = (("ORGCTL_LOCK_LEASE", "the apply lock's lease period (default 5m, e.g. 90s)"),)
LIVE = CREDENTIALS + URLS + CONNECTION
NONE = (("(none)", "this command reads no environment variable"),)


def epilog(examples: Sequence[str], variables: Sequence[tuple[str, str]]) -> str:
    """`Examples:` (one command a line, a `#` comment after it) and `Environment:`."""
    lines = ["\b", "Examples:", *(f"  {example}" for example in examples), ""]
    lines += ["\b", "Environment:"]
    for name, meaning in variables:
        lines += [f"  {name}", f"      {meaning}"]
    return "\n".join(lines)
