"""What `validate`, `plan` and `drift` of a fleet print: one section per portal, in the
order of their folders, then one summary line, and the worst exit code.

Kept free of the network stack: `validate` of a fleet imports this, never the client.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import click

from reconciler.errors import UserError
from reconciler.fleet import Target
from reconciler.jsontext import indented
from reconciler.settings import ADMIN_URL, OWN_ADMIN_URL, OWN_PORTAL_URL, PORTAL_URL
from reconciler.shown import safe


@dataclass(frozen=True, slots=True)
class Outcome:
    """One portal's part of a fleet report."""

    target: Target
    status: str  # how the summary counts it: "valid", "drifted", "failed", ...
    code: int  # the exit code the command would have had on this portal alone
    text: str  # its section in the text or Markdown report
    document: Any  # its value in the JSON report
    plan: Any = None  # plan and drift: the portal's Plan, when one was made


def worst(codes: Sequence[int]) -> int:
    """1 (an error: something could not be checked) before 2 (changes) before 0."""
    return 1 if 1 in codes else (2 if 2 in codes else 0)


def summary(outcomes: Sequence[Outcome], order: Sequence[str]) -> str:
    """ "3 portals: 1 drifted, 2 in sync": counts in the order given, zeros left out."""
    counts = {status: sum(o.status == status for o in outcomes) for status in order}
    parts = [f"{count} {status}" for status, count in counts.items() if count]
    total = len(outcomes)
    return f"{total} portal{'s' if total != 1 else ''}: {', '.join(parts)}"


def heading(target: Target) -> str:
    return safe(f"=== {target.name} ({target.path.as_posix()})")


def echo(outcomes: Sequence[Outcome], fmt: str, line: str) -> None:
    """The report on stdout: JSON keyed by portal name (the summary then on stderr, so
    stdout stays one JSON document), else the sections and the summary."""
    if fmt == "json":
        click.echo(rendered(outcomes, fmt, line), nl=False)
        click.echo(line, err=True)
        return
    click.echo(rendered(outcomes, fmt, line), nl=False)


def echo_failures(outcomes: Sequence[Outcome]) -> None:
    """Each failed portal's error on stderr, for a report that is not the terminal's
    (a document on stdout, or a file written with -o)."""
    for o in outcomes:
        if o.status == "failed":
            for error in o.document["error"].splitlines():
                click.echo(safe(f"Error: {o.target.name}: {error}"), err=True)


def rendered(outcomes: Sequence[Outcome], fmt: str, line: str) -> str:
    """The whole report as text; JSON: one object keyed by portal name."""
    if fmt == "json":
        body = {o.target.name: o.document for o in outcomes}
        return indented(body) + "\n"
    if fmt == "markdown":
        return "".join(o.text.rstrip("\n") + "\n\n" for o in outcomes) + f"**{line}**\n"
    sections = [f"{heading(o.target)}\n{o.text.rstrip(chr(10))}\n" for o in outcomes]
    return "\n".join(sections) + f"\n{line}\n"


def refuse_shared_urls(environ: Mapping[str, str]) -> None:
    """A fleet must not be sent to one address: the plain URL overrides would point every
    portal at the same one, so a fleet takes only the portals' own."""
    for shared, own in ((PORTAL_URL, OWN_PORTAL_URL), (ADMIN_URL, OWN_ADMIN_URL)):
        if environ.get(shared.name):
            raise UserError(
                f"{shared.name} is set, which would point every portal of the fleet at one"
                f" address; set each portal's own {own.name} instead (or run one portal folder)"
            )


def note_skipped(files: Sequence[str]) -> None:
    """--verbose: name each file read as no manifest, on stderr."""
    for file in files:
        note = f"note: {file}: no orgctl document (no apiVersion: orgctl/v1), skipped"
        click.echo(safe(note), err=True)
