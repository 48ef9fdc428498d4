"""What plan, apply and drift print: one dispatch over the plan renderers, the apply
report, a progress display that appears only on a terminal, and the files they save."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TextIO

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from reconciler.apply import ApplyResult, CallEvent, CallOutcome, EventKind, Status
from reconciler.cli.apply_log import ApplyLog
from reconciler.files import open_output
from reconciler.plan import Mode, Plan, render_json, render_markdown, render_text
from reconciler.shown import safe


def render(plan: Plan, fmt: str, mode: Mode, *, color: bool = False) -> str:
    if fmt == "json":
        return render_json(plan, mode)
    if fmt == "markdown":
        return render_markdown(plan, mode)
    if fmt == "html":
        from reconciler.html import render_html  # loaded for a page only, as it is rare

        return render_html(plan, mode)
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


# Calls of one outcome (failed, not sent, unknown) for the same reason, this many or more,
# are told as one row: a run stopped by a dead portal does not print a thousand rows of
# one reason.
GROUPED_FROM = 3
GROUPED = (Status.FAILED, Status.NOT_SENT, Status.UNKNOWN)
STOPPED = (Status.NOT_SENT, Status.UNKNOWN)  # counted only when there are any


def echo_result(result: ApplyResult, verbose: bool = False) -> None:
    """The closing table: every failed and skipped call in full (calls of one outcome and
    reason as one row), the calls done as one line (each of them with `verbose`), then
    the counts."""
    counts = result.counts()
    rows = [o for o in result.outcomes if verbose or o.status is not Status.DONE]
    click.echo("")
    if rows:
        click.echo(f"{'seq':>4}  {'outcome':<8} {'address':<48} detail")
    for group in _grouped(rows):
        click.echo(safe(_row(group)).rstrip())
    if not verbose and counts["done"]:
        click.echo(f"{counts['done']} done (--verbose lists each).")
    stopped = "".join(f", {counts[s.value]} {s.value}" for s in STOPPED if s.value in counts)
    click.echo(
        f"Apply: {counts['done']} done, {counts['failed']} failed, {counts['skipped']}"
        f" skipped{stopped}."
    )


def _grouped(rows: list[CallOutcome]) -> list[list[CallOutcome]]:
    """Rows in seq order; calls failed, not sent or unknown for one reason, as one group
    where the first of them stood."""

    def key(o: CallOutcome) -> tuple[Status, str]:
        return o.status, o.error or o.note or ""

    sizes = Counter(key(o) for o in rows)
    groups: dict[tuple[Status, str], list[CallOutcome]] = {}
    shown: list[list[CallOutcome]] = []
    for outcome in rows:
        if outcome.status not in GROUPED or sizes[key(outcome)] < GROUPED_FROM:
            shown.append([outcome])
        elif key(outcome) in groups:
            groups[key(outcome)].append(outcome)
        else:
            groups[key(outcome)] = [outcome]
            shown.append(groups[key(outcome)])
    return shown


def _row(group: list[CallOutcome]) -> str:
    first = group[0]
    detail = first.error or first.note or ""
    if len(group) == 1:
        return f"{first.seq:>4}  {first.status.value:<8} {first.address:<48} {detail}"
    named = ", ".join(o.address for o in group[:3])
    more = f" and {len(group) - 3:,} more" if len(group) > 3 else ""
    calls = f"{len(group):,} calls (#{first.seq} to #{group[-1].seq}: {named}{more})"
    return f"{'':>4}  {first.status.value:<8} {calls} {detail}"


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
            if event.kind not in (EventKind.START, EventKind.RETRY):
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


def save_instead_of_printing(path: Path, what: str, text: str, summary: str) -> None:
    """`-o FILE`: the report goes to the file, and stdout keeps one line, its summary and
    where the report is (as Terraform's `-out` says where it saved the plan): a page of a
    3,000-member portal printed again on a terminal or a CI log helps nobody."""
    write_output(path, what, text)
    click.echo(safe(f"{summary} {what.capitalize()} written to {path}."))


def stream_instead_of_printing(
    path: Path, what: str, write: Callable[[IO[str]], None], summary: str
) -> None:
    """`save_instead_of_printing` for a report written as it is made, never one string."""
    with open_output(path, what) as file:
        write(file)
    click.echo(safe(f"{summary} {what.capitalize()} written to {path}."))
