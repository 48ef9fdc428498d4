"""`orgctl validate PATH...`: every offline check, with every problem reported at once;
of one portal folder, or of each portal of a fleet."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

import click

from reconciler.api import Connection, validate
from reconciler.cli import fleet_report, help, options
from reconciler.cli.fleet_report import Outcome
from reconciler.errors import UserError
from reconciler.fleet import Target, affected, find_targets, select
from reconciler.manifest import Problem
from reconciler.manifest.problems import total
from reconciler.shown import safe


def _text(problems: list[Problem], warnings: list[Problem]) -> str:
    lines = [safe(str(p)) for p in sorted(problems + warnings)]
    count, warning_count = total(problems), total(warnings)
    warned = f"{warning_count:,} warning{'s' if warning_count != 1 else ''}"
    if not problems:
        lines.append("valid: no problems found" + (f" ({warned})" if warnings else ""))
    else:
        found = f"{count:,} problem{'s' if count != 1 else ''} found"
        lines.append(found + (f", {warned}" if warnings else ""))
    return "\n".join(lines)


def _json(problems: list[Problem], warnings: list[Problem]) -> str:
    return json.dumps(_json_body(problems, warnings), indent=2)


def _json_body(problems: list[Problem], warnings: list[Problem]) -> dict[str, object]:
    return {
        "valid": not problems,
        "problems": [p.as_json() for p in problems],
        "warnings": [p.as_json() for p in warnings],
    }


def _github(problems: list[Problem], warnings: list[Problem]) -> str:
    # GitHub workflow commands; the annotation itself carries the file and line.
    return "\n".join(
        f"::{'warning' if p.warning else 'error'} file={_escape_property(p.file)},line={p.line}"
        f"::{_escape(p.without_place().removeprefix('warning: '))}"
        for p in sorted(problems + warnings)
    )


def _escape(text: str) -> str:
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return safe(escaped)


def _escape_property(text: str) -> str:
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


_FORMATS = {"text": _text, "json": _json, "github": _github}


@click.command(
    "validate",
    epilog=help.epilog(
        [
            "orgctl validate portals/prod",
            "orgctl validate portals/ --format github   # annotations in a pull request",
            "orgctl validate --changed portals/base/roles.yaml   # the portals a change concerns",
        ],
        help.URLS + help.CREDENTIALS,
    ),
)
@options.manifest_paths
@click.option(
    "--format",
    "output_format",
    type=click.Choice(list(_FORMATS)),
    default="text",
    show_default=True,
    help="How to print the problems.",
)
@options.verbose
@click.option(
    "--changed",
    is_flag=True,
    help="PATH... are changed files: check the portals below --root they concern.",
)
@click.option(
    "--root",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="With --changed: the fleet root whose portals are mapped.",
)
def command(
    paths: tuple[Path, ...], output_format: str, verbose: bool, changed: bool, root: Path
) -> None:
    """Check the manifests in PATH (a folder, recursively, or one file) without the network.

    Several paths, or a fleet root holding several portal folders, check each portal on
    its own and end with a summary. With --changed (the pre-commit hook), PATH... are the
    changed files, and the portals they concern are checked: those holding one, and
    those whose Portal includes a folder holding one."""
    environ = options.settings().environ
    if changed:
        sys.exit(_changed(root, paths, output_format, verbose, environ))
    targets = select(paths)
    if targets is not None:
        sys.exit(_fleet(targets, output_format, verbose, environ))
    found = validate(paths[0], Connection(environ))
    if verbose:
        fleet_report.note_skipped(found.skipped)
    problems = list(found.problems)
    output = _FORMATS[output_format](problems, list(found.warnings))
    if output:
        click.echo(output)
    sys.exit(1 if problems else 0)  # warnings never fail


def _fleet(
    targets: list[Target], output_format: str, verbose: bool, environ: Mapping[str, str]
) -> int:
    outcomes = [_portal(target, output_format, verbose, environ) for target in targets]
    if output_format == "github":
        annotations = [o.text for o in outcomes if o.text]
        if annotations:
            click.echo("\n".join(annotations))
    else:
        line = fleet_report.summary(outcomes, ("invalid", "valid"))
        fleet_report.echo(outcomes, output_format, line)
    return fleet_report.worst([o.code for o in outcomes])


def _portal(
    target: Target, output_format: str, verbose: bool, environ: Mapping[str, str]
) -> Outcome:
    warnings: list[Problem] = []
    try:
        found = validate(target.path, Connection(environ))
    except UserError as exc:  # a folder that cannot be listed
        problems = [Problem(target.path.as_posix(), 1, 1, "", "", line) for line in exc.lines]
    else:
        problems, warnings = list(found.problems), list(found.warnings)
        if verbose:
            fleet_report.note_skipped(found.skipped)
    status, code = ("invalid", 1) if problems else ("valid", 0)
    shown = (_github if output_format == "github" else _text)(problems, warnings)
    document = {"path": target.path.as_posix(), **_json_body(problems, warnings)}
    return Outcome(target, status, code, shown, document)


def _changed(
    root: Path,
    files: tuple[Path, ...],
    output_format: str,
    verbose: bool,
    environ: Mapping[str, str],
) -> int:
    targets = affected(find_targets(root), files)
    if not targets:
        if output_format != "github":
            click.echo(f"no portal below {root.as_posix()} is concerned by the changed files")
        return 0
    return _fleet(targets, output_format, verbose, environ)
