"""`orgctl validate DIR`: every offline check, with every problem reported at once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from reconciler.manifest import Problem
from reconciler.manifest.validation import check
from reconciler.shown import safe


def _text(problems: list[Problem]) -> str:
    if not problems:
        return "valid: no problems found"
    count = len(problems)
    lines = [safe(str(p)) for p in problems]
    lines.append(f"{count} problem{'s' if count != 1 else ''} found")
    return "\n".join(lines)


def _json(problems: list[Problem]) -> str:
    body = {"valid": not problems, "problems": [p.as_json() for p in problems]}
    return json.dumps(body, indent=2)


def _github(problems: list[Problem]) -> str:
    # GitHub workflow commands; the annotation itself carries the file and line.
    return "\n".join(
        f"::error file={_escape_property(p.file)},line={p.line}::{_escape(p.without_place())}"
        for p in problems
    )


def _escape(text: str) -> str:
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return safe(escaped)


def _escape_property(text: str) -> str:
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


_FORMATS = {"text": _text, "json": _json, "github": _github}


@click.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(list(_FORMATS)),
    default="text",
    show_default=True,
    help="How to print the problems.",
)
@click.option("-v", "--verbose", is_flag=True, help="Also name the files skipped as no manifest.")
def command(path: Path, output_format: str, verbose: bool) -> None:
    """Check the manifests in PATH (a folder, recursively, or one file) without the network."""
    checked = check(path)
    problems = checked.problems
    if verbose:
        for file in checked.loaded.ignored:
            click.echo(
                safe(f"note: {file}: no orgctl document (no apiVersion: orgctl/v1), skipped"),
                err=True,
            )
    output = _FORMATS[output_format](problems)
    if output:
        click.echo(output)
    sys.exit(1 if problems else 0)
