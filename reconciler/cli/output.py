"""What plan, apply and drift print: one dispatch over the plan renderers, the apply
report, a progress display that appears only on a terminal, and the files they save."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from reconciler.apply import ApplyResult, CallEvent, EventKind, Status
from reconciler.cli.apply_log import ApplyLog
from reconciler.files import open_output
from reconciler.plan import Mode, Plan, render_json, render_markdown, render_text
from reconciler.shown import safe


def render(plan: Plan, fmt: str, mode: Mode, *, color: bool = False) -> str:
    if fmt == "json":
        return render_json(plan, mode)
    if fmt == "markdown":
        return render_markdown(plan, mode)
    return render_text(plan, mode, color=color)


def is_terminal(stream: TextIO) -> bool:
    return hasattr(stream, "isatty") and stream.isatty()


def echo_report(plan: Plan, fmt: str, mode: Mode) -> None:
    """The report on stdout, in colour only when stdout is a terminal."""
    click.echo(render(plan, fmt, mode, color=is_terminal(sys.stdout)), nl=False)


def echo_calls(plan: Plan) -> None:
    """Every call in send order, with its form fields: what --dry-run shows."""
    click.echo(f"Dry run: nothing was sent. {len(plan.calls)} call(s) would be sent, in order:")
    for call in plan.calls:
        after = f"  (after {', '.join(map(str, call.dependsOn))})" if call.dependsOn else ""
        click.echo(safe(f"{call.seq:>4}. {call.method} {call.url}{after}"))
        for name, value in call.shown_params.items():
            click.echo(safe(f"        {name}={value}"))


def echo_result(result: ApplyResult, verbose: bool = False) -> None:
    """The closing table: every failed and skipped call in full, the calls done as one
    line (each of them with `verbose`), then the counts."""
    counts = result.counts()
    rows = [o for o in result.outcomes if verbose or o.status is not Status.DONE]
    click.echo("")
    if rows:
        click.echo(f"{'seq':>4}  {'outcome':<8} {'address':<48} detail")
    for outcome in rows:
        detail = outcome.error or outcome.note or ""
        click.echo(
            safe(
                f"{outcome.seq:>4}  {outcome.status.value:<8} {outcome.address:<48} {detail}"
            ).rstrip()
        )
    if not verbose and counts["done"]:
        click.echo(f"{counts['done']} done (--verbose lists each).")
    click.echo(
        f"Apply: {counts['done']} done, {counts['failed']} failed, {counts['skipped']} skipped."
    )


@contextmanager
def apply_progress(plan: Plan) -> Iterator[Callable[[CallEvent], None] | None]:
    """A progress bar over the calls on a terminal; in a log, a line per finished
    resource and a count every few seconds (on stderr, beside the report)."""
    if not plan.calls:
        yield None
        return
    if not is_terminal(sys.stderr):
        with ApplyLog(plan, lambda line: click.echo(line, err=True)) as log:
            yield log
        return
    console = Console(stderr=True)
    columns = (TextColumn("applying"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("apply", total=len(plan.calls))

        def advance(event: CallEvent) -> None:
            if event.kind in (EventKind.DONE, EventKind.FAILED, EventKind.SKIPPED):
                progress.advance(task)

        yield advance


@contextmanager
def reading(what: str, doing: str = "reading") -> Iterator[None]:
    """A spinner while the portal is read (or `doing` something else), on a terminal only."""
    if not is_terminal(sys.stderr):
        yield
        return
    with Console(stderr=True).status(f"{doing} {what}"):
        yield


def check_writable(path: Path, what: str) -> None:
    """Fail now if `path` cannot be written, before the portal is read and anything is
    printed. Appending proves it without touching an earlier file; a file made only to
    prove it is removed, so a run that fails later leaves nothing behind."""
    existed = os.path.lexists(path)  # a dangling symlink is the user's, not ours to remove
    open_output(path, what, "a").close()
    if not existed:
        path.unlink()


def write_output(path: Path, what: str, text: str) -> None:
    with open_output(path, what) as file:
        file.write(text)
