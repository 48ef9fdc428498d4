"""Options several commands share, declared once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def targets(function: F) -> F:
    return click.option(
        "--target",
        "targets",
        multiple=True,
        metavar="ADDR",
        help="Limit to this resource address (and what it depends on); repeatable.",
    )(function)


def allow_deletes(function: F) -> F:
    return click.option(
        "--allow-deletes",
        is_flag=True,
        help="Allow more deletions than the Portal's safety.maxDeletes.",
    )(function)


def report_format(*choices: str) -> Callable[[F], F]:
    def decorate(function: F) -> F:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(choices),
            default=choices[0],
            show_default=True,
            help="Output format.",
        )(function)

    return decorate


def manifests(function: F) -> F:
    return click.argument("manifests", type=click.Path(path_type=Path))(function)


def output_file(help_text: str) -> Callable[[F], F]:
    def decorate(function: F) -> F:
        return click.option(
            "-o",
            "--out",
            "out",
            type=click.Path(dir_okay=False, path_type=Path),
            help=help_text,
        )(function)

    return decorate


def notify(function: F) -> F:
    return click.option(
        "--notify",
        "notify_url",
        metavar="URL",
        default=None,
        help="Post a summary to this Slack or Teams incoming webhook (or $ORGCTL_NOTIFY_URL).",
    )(function)
