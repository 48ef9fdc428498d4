"""A Markdown report of a plan or drift check that could not be made.

Markdown output is posted as it is (a pull-request comment, an issue): when the manifests
are invalid or the portal cannot be read, an empty output would be posted as an empty
comment, so the reason is printed in its place. The message of a `UserError` never holds
a secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import click

from reconciler.errors import UserError
from reconciler.plan import Mode


@contextmanager
def markdown_failure(fmt: str, mode: Mode, where: str) -> Iterator[None]:
    """With `--format markdown`, a `UserError` also prints a Markdown report saying why
    nothing could be compared; the error then ends the command as before (exit 1)."""
    try:
        yield
    except UserError as exc:
        if fmt == "markdown":
            click.echo(failure_markdown(mode, where, str(exc)), nl=False)
        raise


def failure_markdown(mode: Mode, where: str, message: str) -> str:
    fence = "`" * max(3, _longest_backtick_run(message) + 1)
    what = "planned" if mode == "plan" else "checked for drift"
    return (
        f"## orgctl {mode}: {where}\n\n"
        f"**Failed: the portal could not be {what}; nothing was compared.**\n\n"
        f"{fence}text\n{message}\n{fence}\n"
    )


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
