"""`orgctl certify start|status|close|attach|verify`: a certification campaign (kind:
Campaign) run in Git, from the live access to an evidence bundle an auditor verifies
offline (reconciler.certify)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path

import click

from reconciler.cli import help, options
from reconciler.clock import evaluation_time, rfc3339
from reconciler.shown import safe
from reconciler.state import DesiredState, LiveState
from reconciler.workflow import connect, run, say_on_stderr

_EXAMPLES = [
    "orgctl certify start portals/prod q4-admins   # review files in reviews/q4-admins/",
    "orgctl certify status portals/prod q4-admins  # exit 2: past due with items pending",
    "orgctl certify close portals/prod q4-admins --sign-key ~/.ssh/id_ed25519",
    "orgctl apply portals/prod --journal remediation.jsonl",
    "orgctl certify attach portals/prod/evidence/q4-admins.json --journal remediation.jsonl",
    "orgctl certify verify evidence/q4-admins.json --allowed-signers allowed_signers",
]


_at_option = options.preview_time("the campaign's due date and its members' sign-ins")
_reviews_option = click.option(
    "--reviews",
    "reviews",
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder `certify start --out` wrote the reviews below (default: reviews/"
    " beside the campaign's document).",
)
_sign_key = click.option(
    "--sign-key",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Sign the evidence bundle with this SSH private key (ssh-keygen -Y sign).",
)


@click.group("certify", epilog=help.epilog(_EXAMPLES, help.LIVE))
def command() -> None:
    """Certification campaigns: periodic access reviews decided in Git, with evidence."""


@command.command("start", epilog=help.epilog(_EXAMPLES[:1], help.LIVE))
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.argument("campaign")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the campaign's folder below DIR instead of reviews/ beside its document.",
)
@_at_option
def start(path: Path, campaign: str, out: Path | None, at: dt.datetime | None) -> None:
    """Read the live access of the portal of PATH and write, for the campaign named
    CAMPAIGN, one review file per reviewer (YAML to decide in, HTML to read) and
    scope.json, the snapshot of the scope with its SHA-256."""
    from reconciler.certify import campaigns

    loaded = campaigns.load(path, campaign, options.settings().environ)
    live, now = run(_read_live(loaded.desired, loaded.environ, at))
    violations = _violations(loaded.desired, live, now)
    started = campaigns.start(loaded, live, now, violations, out)
    for warning in started.warnings:
        say_on_stderr(safe(f"Warning: {warning}"))
    shown = ", ".join(f"{name} {count}" for name, count in sorted(started.reviewers.items()))
    click.echo(
        safe(
            f"Campaign {campaign}: {started.items} item(s) for {len(started.reviewers)}"
            f" reviewer(s) ({shown or 'none'}) written to {started.folder.path}."
        )
    )


@command.command("status", epilog=help.epilog(_EXAMPLES[1:2], help.LIVE))
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.argument("campaign")
@_reviews_option
@_at_option
@click.pass_context
def status(
    ctx: click.Context, path: Path, campaign: str, reviews: Path | None, at: dt.datetime | None
) -> None:
    """Show the campaign's progress per reviewer (exit 2 when past its due time with
    items pending)."""
    from reconciler.certify import campaigns

    loaded = campaigns.load(path, campaign, options.settings().environ)
    scope, found = campaigns.progress(loaded, reviews)
    now = run(_portal_time(loaded.desired, loaded.environ, at))
    left = "overdue" if now >= found.due else "due"
    click.echo(
        safe(
            f"Campaign {campaign}: {len(found.decisions)} item(s), {found.pending} pending;"
            f" {left} {scope['due']} (now {rfc3339(now)})."
        )
    )
    for reviewer, counts in sorted(found.by_reviewer().items()):
        done = sum(counts.values()) - counts["pending"]
        click.echo(
            safe(
                f"  {reviewer}: {done} of {sum(counts.values())} decided (keep {counts['keep']},"
                f" revoke {counts['revoke']}, pending {counts['pending']})"
            )
        )
    ctx.exit(2 if found.overdue(now) else 0)


@command.command("close", epilog=help.epilog(_EXAMPLES[2:4], help.LIVE))
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.argument("campaign")
@_sign_key
@_reviews_option
@_at_option
def close(
    path: Path,
    campaign: str,
    sign_key: Path | None,
    reviews: Path | None,
    at: dt.datetime | None,
) -> None:
    """Turn the revocations (and, past the due time, the pending items under noResponse:
    revoke) into Members edits, then plan and apply them as any change; write the
    evidence bundle evidence/CAMPAIGN.json beside the campaign's document."""
    from reconciler.certify import campaigns

    loaded = campaigns.load(path, campaign, options.settings().environ)
    now = run(_portal_time(loaded.desired, loaded.environ, at))
    closed = campaigns.close(loaded, now, sign_key, reviews)
    for line in closed.edited.lines if closed.edited else ():
        click.echo(safe(line))
    signed = " (signed)" if sign_key else ""
    click.echo(
        safe(
            f"Campaign {campaign} closed: {closed.revoked} revoked, {closed.kept} kept."
            f" Evidence written to {closed.bundle}{signed}."
        )
    )
    if closed.edited:
        click.echo("Review the manifest changes, then plan and apply them.")


@command.command("attach", epilog=help.epilog(_EXAMPLES[4:5], help.NONE))
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--journal",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The journal of the apply that carried out the remediation (apply --journal).",
)
@_sign_key
def attach(bundle: Path, journal: Path, sign_key: Path | None) -> None:
    """Add the apply journal of the remediation to the evidence BUNDLE, and sign it again
    when given a key (without one, a signature the journal would break is removed)."""
    from reconciler.certify import evidence

    found = evidence.with_journal(evidence.read_bundle(bundle), journal)
    if sign_key is not None:
        found = evidence.signed(found, sign_key)
    elif "signature" in found:
        del found["signature"]
        say_on_stderr("Warning: the bundle's signature no longer covers it and was removed")
    evidence.write_bundle(bundle, found)
    click.echo(safe(f"Journal {journal} attached to {bundle}."))


@command.command("verify", epilog=help.epilog(_EXAMPLES[5:], help.NONE))
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--allowed-signers",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="ssh-keygen's allowed signers file: the bundle must be signed by a key it lists.",
)
@click.option(
    "--require-applied",
    is_flag=True,
    help="The attached journal must have carried out every change of the remediation.",
)
@click.pass_context
def verify(
    ctx: click.Context, bundle: Path, allowed_signers: Path | None, require_applied: bool
) -> None:
    """Check an evidence BUNDLE offline: its digests, its signature, every item decided or
    remediated under noResponse, and with --require-applied the journal (exit 1 naming
    what does not hold)."""
    from reconciler.certify import evidence

    verdict = evidence.verify(evidence.read_bundle(bundle), allowed_signers, require_applied)
    if verdict.fingerprint is not None:
        click.echo(f"Signer's key: {verdict.fingerprint}.")
    for failure in verdict.failures:
        click.echo(safe(f"Error: {failure}"), err=True)
    if verdict.failures:
        click.echo(safe(f"{bundle}: does not verify ({len(verdict.failures)} problem(s))."))
        ctx.exit(1)
    click.echo(safe(f"{bundle}: verifies."))


async def _read_live(
    desired: DesiredState, environ: Mapping[str, str], at: dt.datetime | None
) -> tuple[LiveState, dt.datetime]:
    from reconciler.live.reader import read_people

    async with connect(desired, environ) as client:
        live = await read_people(client)
        now = evaluation_time(client.server_clock, at)
    for _, why in sorted(live.unreadable.items()):
        say_on_stderr(safe(f"Warning: left out of the review: {why}"))
    return live, now


async def _portal_time(
    desired: DesiredState, environ: Mapping[str, str], at: dt.datetime | None
) -> dt.datetime:
    """The evaluation time: the portal's clock is read from one light answer."""
    if at is not None:
        return evaluation_time(None, at)
    async with connect(desired, environ) as client:
        await client.get_json("portals/self")
        return evaluation_time(client.server_clock)


def _violations(desired: DesiredState, live: LiveState, now: dt.datetime) -> dict[str, list[str]]:
    from reconciler.api.live_report import policy_findings
    from reconciler.kinds.policy import live_verdicts

    found: dict[str, list[str]] = {}
    for finding in policy_findings(live_verdicts(desired, live, now)):
        if finding.member is not None:
            found.setdefault(finding.member, []).append(finding.message)
    return found
