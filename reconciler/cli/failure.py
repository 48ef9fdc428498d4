"""A Markdown report of a plan, drift check or access report that could not be made.

Markdown output is posted as it is (a pull-request comment, an issue): when the manifests
are invalid or the portal cannot be read, an empty output would be posted as an empty
comment, so the reason is printed in its place. The message of a `UserError` never holds
a secret.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from reconciler.errors import UserError
from reconciler.shown import longest_backtick_run, safe


@contextmanager
def markdown_failure(fmt: str, mode: str, where: str) -> Iterator[None]:
    """With `--format markdown`, a `UserError` also prints a Markdown report saying why
    nothing could be compared; the error then ends the command as before (exit 1)."""
    try:
        yield
    except UserError as exc:
        if fmt == "markdown":
            click.echo(failure_markdown(mode, where, exc.lines), nl=False)
        elif fmt == "html":  # a page in its place, as the Markdown report
            # The page's renderers load only for a page: every plan and drift passes here.
            from reconciler.html import render_failure_html

            title = f"orgctl {mode}: {where}"
            click.echo(render_failure_html(title, failed_sentence(mode), exc.lines), nl=False)
        raise


# What each command could not do, for the report's "Failed:" line.
_NOT_DONE = {"plan": "planned", "drift": "checked for drift", "access": "read for access"}


def failed_sentence(mode: str) -> str:
    """What the failure report says first, in every format."""
    return f"Failed: the portal could not be {_NOT_DONE.get(mode, 'read')}; nothing was compared."


def failure_markdown(mode: str, where: str, lines: list[str]) -> str:
    """The report: each line of the error escaped as every other output escapes it, so
    a line break in a role name cannot start a line of its own inside the fence."""
    message = "\n".join(safe(line) for line in lines)
    fence = "`" * max(3, longest_backtick_run(message) + 1)
    return (
        f"## orgctl {mode}: {safe(where)}\n\n"
        f"**{failed_sentence(mode)}**\n\n"
        f"{fence}text\n{message}\n{fence}\n"
    )
