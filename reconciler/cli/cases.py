"""`orgctl test [PATH]`: run the `kind: Test` documents below PATH, each against its own
`orgctl serve`, and say as pytest does which passed; `--junit FILE` for CI."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from reconciler.cli import help
from reconciler.cli.output import check_writable, write_output
from reconciler.shown import safe


@click.command(
    "test",
    epilog=help.epilog(
        [
            "orgctl test   # the Test documents below tests/",
            "orgctl test examples/tests --junit orgctl-tests.xml",
        ],
        help.NONE,
    ),
)
@click.argument("path", type=click.Path(path_type=Path), default=Path("tests"))
@click.option(
    "--junit",
    "junit_file",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Also write the outcome as JUnit XML to FILE.",
)
@click.pass_context
def command(ctx: click.Context, path: Path, junit_file: Path | None) -> None:
    """Run the kind: Test documents below PATH (default: tests): each plans its manifests,
    with its patches, against its own reference service seeded from its state, and
    compares the plan (and, with converges, the apply) with what it expects. Exit 1 when
    a test fails or a document is invalid."""
    from reconciler.cases import report
    from reconciler.cases.document import read_cases
    from reconciler.cases.run import run_case

    found = read_cases(path)
    errors = [p for p in found.problems if not p.warning]
    for problem in found.problems:
        click.echo(safe(str(problem)), err=True)
    if errors:
        count = len(errors)
        click.echo(f"{count} problem{'s' if count != 1 else ''} found: no test run", err=True)
        sys.exit(1)
    if not found.cases:
        click.echo(safe(f"{path.as_posix()}: no kind: Test document found"), err=True)
        sys.exit(1)
    if junit_file is not None:
        check_writable(junit_file, "JUnit report")
    started = time.monotonic()
    outcomes = []
    for case in found.cases:
        outcome = run_case(case)
        click.echo(report.line(outcome))
        outcomes.append(outcome)
    seconds = time.monotonic() - started
    for text in report.failures(outcomes):
        click.echo(text)
    click.echo(report.summary(outcomes, seconds))
    if junit_file is not None:
        write_output(junit_file, "JUnit report", report.junit(outcomes, seconds))
    ctx.exit(0 if all(o.passed for o in outcomes) else 1)
