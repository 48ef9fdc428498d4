"""Options several commands share, declared once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from reconciler.settings import Settings
from reconciler.values import seconds

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


def fail_on(function: F) -> F:
    """The access review's finding kinds as a gate, for `access` and `drift` alike."""
    # Imported here: the access package holds the planner and every renderer, which the
    # commands without this option (validate, render, schema) never use.
    from reconciler.access.findings import FINDING_KINDS

    return click.option(
        "--fail-on",
        "fail_on",
        multiple=True,
        type=click.Choice(FINDING_KINDS),
        help="Exit 2 when the portal has an access-review finding of this kind"
        " (orgctl access); repeatable.",
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


def manifest_paths(function: F) -> F:
    return click.argument(
        "paths", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="PATH..."
    )(function)


def jobs(function: F) -> F:
    return click.option(
        "-j",
        "--jobs",
        type=click.IntRange(1, 64),
        default=4,
        show_default=True,
        help="How many portals of a fleet are read at once.",
    )(function)


def verbose(function: F) -> F:
    return click.option(
        "-v", "--verbose", is_flag=True, help="Also name the files skipped as no manifest."
    )(function)


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


_SETTINGS = __name__ + ".settings"
_FLAGS = __name__ + ".flags"


def settings() -> Settings:
    """The ORGCTL_* variables, read once per command line and shared by what it runs, with
    the flags that stand over some of them (`portal_limits`). Read on first use, so
    `--help` and a command that reads none never fail on a bad value."""
    root = click.get_current_context().find_root()
    found = root.meta.get(_SETTINGS)
    if not isinstance(found, Settings):
        found = root.meta[_SETTINGS] = Settings.from_process(root.meta.get(_FLAGS, {}))
    return found


def notify(function: F) -> F:
    return click.option(
        "--notify",
        "notify_url",
        metavar="URL",
        default=None,
        help="Post a summary to this Slack or Teams incoming webhook (or $ORGCTL_NOTIFY_URL).",
    )(function)


# click 8.5 made ParamType generic; 8.1, which we support, cannot be subscripted.
class Seconds(click.ParamType):  # type: ignore[type-arg]
    """A wait like Terraform's `-lock-timeout`: `0`, `90s`, `2m`, `1h30m` (as seconds)."""

    name = "duration"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float):
            return value
        parsed = seconds(str(value))
        if parsed is None:
            self.fail(f"{value!r} is not a duration like 0, 30s, 2m or 1h30m", param, ctx)
        return parsed


def portal_limits(function: F) -> F:
    """The limits of what a portal may answer (`live/limits.py`), for a command that
    talks to one; each flag, when given, wins over its ORGCTL_* variable."""
    # Imported here, by the commands that read a portal: `validate` and `--help` load no
    # network stack (reconciler.live brings httpx and asyncio).
    from reconciler.live.limits import DEFAULTS, LIMITS

    helps = {
        "request_seconds": ("DURATION", "Give up on a request not answered in full within this."),
        "answer_bytes": ("SIZE", "Refuse an answer larger than this (e.g. 64MiB, 500KB)."),
        "json_depth": ("N", "Refuse an answer whose JSON nests deeper than this."),
        "pages": ("N", "Refuse a listing of more pages than this."),
    }
    for limit in reversed(LIMITS):
        metavar, text = helps[limit.field]
        function = click.option(
            limit.flag,
            metavar=metavar,
            expose_value=False,
            callback=_chooser(limit.field),
            help=f"{text} [default: {limit.show(getattr(DEFAULTS, limit.field))}]",
        )(function)
    return function


def _chooser(field: str) -> Callable[[click.Context, click.Parameter, str | None], None]:
    # The flag is kept with this command line's context, as the variable it stands over:
    # the settings it reads carry it, and nothing outlives the run.
    def record(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
        if value is None:
            return
        from reconciler.live.limits import flag_given

        name, text = flag_given(field, value)
        root = ctx.find_root()
        root.meta.setdefault(_FLAGS, {})[name] = text
        root.meta.pop(_SETTINGS, None)  # read again, with the flag

    return record


def lock(function: F) -> F:
    function = click.option(
        "--lock-timeout",
        type=Seconds(),
        default="0",
        help="How long to wait for another apply's lock on the portal (e.g. 2m).",
    )(function)
    return click.option(
        "--lock/--no-lock",
        default=True,
        show_default=True,
        help="Hold the portal's apply lock while sending (README: the apply lock).",
    )(function)


def preview_time(why: str) -> Callable[[F], F]:
    """`--at TIME`: judge at TIME (RFC 3339, or a date: its start, UTC) instead of now,
    a preview; `why` finishes its help. Parsed by the one rule deadlines are read by
    (reconciler.clock.moment)."""

    def at(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
        from reconciler.clock import moment

        try:
            return moment(value)
        except ValueError:
            raise click.BadParameter(f"{value!r} is neither RFC 3339 nor a date") from None

    return click.option(
        "--at",
        "at",
        metavar="TIME",
        callback=at,
        help=f"A preview: judge {why} at TIME (RFC 3339, or a date: its start, UTC)"
        " instead of now.",
    )


def evaluation_time(function: F) -> F:
    """`--at` and `--expiring-within` (README: Temporary access), for the commands that
    judge grants: plan, drift and access. `apply` never takes `--at`."""

    def within(_ctx: click.Context, _param: click.Parameter, value: str) -> Any:
        from reconciler.windows import WindowError, parse_duration

        try:
            return parse_duration(value)
        except WindowError as exc:
            raise click.BadParameter(str(exc)) from None

    function = click.option(
        "--expiring-within",
        "expiring_within",
        default="7d",
        show_default=True,
        metavar="DURATION",
        callback=within,
        help="Name the time-bound grants that end within this long (e.g. 12h, 7d, 30d).",
    )(function)
    return preview_time("the grants (apply --plan refuses a plan made so)")(function)
