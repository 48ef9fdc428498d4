"""`orgctl apply`: plan (or take a saved plan), confirm, send, then verify convergence."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import click

from reconciler import api
from reconciler.api import Manifests
from reconciler.apply import ApplyResult
from reconciler.apply.lock import new_run_id, not_released
from reconciler.apply.saved import SavedPlan
from reconciler.cli import help, options, session
from reconciler.cli.interrupts import Interrupted, Interrupts
from reconciler.cli.output import (
    apply_progress,
    check_writable,
    echo_calls,
    echo_report,
    echo_result,
    is_terminal,
    reading,
)
from reconciler.errors import UserError
from reconciler.notify import Notifier, apply_text, plan_text
from reconciler.plan import Plan
from reconciler.plan.model import Action
from reconciler.settings import Settings
from reconciler.shown import safe
from reconciler.state import DesiredState
from reconciler.windows import window_state
from reconciler.workflow import (
    run,
    target_list,
    warn_in_ci,
)


@dataclass(frozen=True, slots=True)
class Request:
    """What the user asked of this apply."""

    targets: tuple[str, ...]
    allow_deletes: bool
    auto_approve: bool
    dry_run: bool
    parallelism: int
    journal: Path | None
    lock: bool
    lock_timeout: float
    saved: SavedPlan | None
    notifier: Notifier
    settings: Settings = field(repr=False)  # the variables the command read
    verbose: bool = False
    # Names this apply in its journal lines and its lease on the portal.
    run_id: str = field(default_factory=new_run_id)
    label: str = "MANIFESTS"  # the folder (or plan) as given, for commands it suggests


@click.command(
    epilog=help.epilog(
        [
            "orgctl apply portals/prod   # plan, confirm, send, verify",
            "orgctl plan portals/prod -o plan.json && orgctl apply --plan plan.json",
            "orgctl apply portals/prod --dry-run   # print each call, send nothing",
            "orgctl apply portals/prod --auto-approve --journal apply.jsonl   # in CI",
        ],
        help.LIVE + help.NOTIFY + help.LOCK,
    ),
)
@click.argument("manifests", required=False, type=click.Path(path_type=Path))
@click.option(
    "--plan",
    "saved_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Apply exactly this saved plan (from `orgctl plan -o`); refused if stale.",
)
@click.option("--auto-approve", is_flag=True, help="Do not ask for confirmation.")
@click.option("--dry-run", is_flag=True, help="Send nothing; print each call that would be sent.")
@click.option(
    "--parallelism",
    type=click.IntRange(1, 64),
    default=8,
    show_default=True,
    help="How many independent calls may be in flight at once.",
)
@click.option(
    "--journal",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Record each call's start and outcome as JSON lines, as they happen.",
)
@options.allow_deletes
@options.targets
@options.lock
@options.notify
@options.portal_limits
@click.option(
    "-v", "--verbose", is_flag=True, help="List every call in the closing table, not only failures."
)
@click.option(
    "--ignore-windows",
    is_flag=True,
    help="Apply even outside the apply windows the Portal declares.",
)
@click.pass_context
def command(
    ctx: click.Context,
    manifests: Path | None,
    saved_path: Path | None,
    auto_approve: bool,
    dry_run: bool,
    parallelism: int,
    journal: Path | None,
    allow_deletes: bool,
    targets: tuple[str, ...],
    lock: bool,
    lock_timeout: float,
    notify_url: str | None,
    verbose: bool,
    ignore_windows: bool,
) -> None:
    """Converge the portal on MANIFESTS (or on a saved --plan)."""
    given = options.settings()
    warn_in_ci(given.environ)
    label = (manifests or saved_path or Path(".")).as_posix()
    notifier = Notifier.create(notify_url, "apply", label, given)
    with notifier.failures():
        saved = SavedPlan.read(saved_path) if saved_path else None
        if saved is not None and (targets or allow_deletes):
            raise UserError(
                "--target and --allow-deletes shape a plan when it is made: pass them to"
                " `orgctl plan -o`; a saved plan is applied as it was made"
            )
        loaded = session.manifests(_manifests(manifests, saved), False, given)
        if not (dry_run or ignore_windows):
            _inside_window(loaded.desired)
        if journal is not None:
            check_writable(journal, "journal")  # before the plan is shown and confirmed
        scope = saved.plan.targets if saved is not None else target_list(targets)
        request = Request(
            scope,
            allow_deletes,
            auto_approve,
            dry_run,
            parallelism,
            journal,
            lock,
            lock_timeout,
            saved,
            notifier,
            given,
            verbose,
            label=label,
        )
        ok = run(_apply(loaded, request))
    ctx.exit(0 if ok else 1)


def _inside_window(desired: DesiredState) -> None:
    """Refuse, before anything is read or sent, outside the Portal's apply windows."""
    windows = desired.portal.applyWindows
    if not windows:
        return
    state = window_state(windows, datetime.now(UTC))
    if state.open_until is None:
        raise UserError(
            f"refusing to apply outside the Portal's apply windows. {state.sentence()}"
            " Pass --ignore-windows to apply anyway (or --dry-run to only print the calls)."
        )


def _manifests(given: Path | None, saved: SavedPlan | None) -> Path:
    if given is not None:
        return given
    if saved is not None and saved.plan.manifests:
        return Path(saved.plan.manifests)
    if saved is not None:
        raise UserError(f"{saved.path}: the plan does not say which manifests it was made from")
    raise UserError("apply needs a manifests folder, or --plan PLAN.json")


async def _apply(manifests: Manifests, request: Request) -> bool:
    interrupts = Interrupts()
    return await interrupts.run(_apply_connected(manifests, request, interrupts))


async def _apply_connected(manifests: Manifests, request: Request, interrupts: Interrupts) -> bool:
    url = manifests.desired.portal.url
    connection = session.connection(request.settings)
    applying = api.Applying(
        manifests, connection, parallelism=request.parallelism, run_id=request.run_id
    )
    async with applying:
        if request.dry_run or not request.lock:
            return await _apply_planned(applying, request, interrupts)
        if request.saved is not None:
            # Taking the lock is a write: an account that may not make the plan's calls
            # (a reviewer's, say) is refused before it, naming them.
            await _replan_saved(applying, request.saved)
        with reading(url, "taking the apply lock of"):
            await applying.lock(request.lock_timeout)
        try:
            return await _apply_planned(applying, request, interrupts)
        finally:
            await _release(applying, request.label)


async def _release(applying: api.Applying, label: str) -> None:
    """Give the lock back; when that fails (the portal stopped answering), say what holds
    it and how to break it, as the last thing printed."""
    lease = applying.lease
    try:
        await applying.release()
    except UserError as exc:
        if lease is not None:
            click.echo(safe(not_released(lease, exc, label)), err=True)


async def _apply_planned(applying: api.Applying, request: Request, interrupts: Interrupts) -> bool:
    """Plan (under the lock, so no other apply changes what the plan was made on), show,
    confirm, send and verify."""
    plan = await _plan_to_apply(applying, request)
    echo_report(plan, "text", "plan")
    if plan.errors:
        request.notifier.send(plan_text(plan))
        return False
    if plan.empty:
        request.notifier.send(apply_text(plan.portal.url, None, converged=True))
        return True
    if request.dry_run:
        echo_calls(plan)
        return True
    with interrupts.at_prompt():
        _confirm(plan, applying.manifests.desired.portal.name, request.auto_approve)
    result = await _send(applying, plan, request, interrupts)
    echo_result(result, request.verbose)
    if interrupts.received is not None:
        raise Interrupted(
            interrupts.received, f"{interrupts.reason()}; run apply again to converge"
        )
    if result.stopped:
        click.echo("Stopped before every call was sent (why: above); the portal was not verified.")
        request.notifier.send(apply_text(plan.portal.url, result, converged=False))
        return False
    converged = await _verify(applying, request)
    request.notifier.send(apply_text(plan.portal.url, result, converged))
    return converged and result.ok


async def _plan_to_apply(applying: api.Applying, request: Request) -> Plan:
    if request.saved is None:
        return await _plan_now(applying, request)
    return await _replan_saved(applying, request.saved)


async def _plan_now(applying: api.Applying, request: Request) -> Plan:
    with reading(applying.manifests.desired.portal.url):
        return await applying.plan(targets=request.targets, allow_deletes=request.allow_deletes)


async def _replan_saved(applying: api.Applying, saved: SavedPlan) -> Plan:
    """The saved plan as made now, when the file agrees with it: refused for another
    portal, planned on another state, edited, or with calls the signed-in account may
    not make."""
    with reading(applying.manifests.desired.portal.url):
        return await applying.replan(saved)


def _confirm(plan: Plan, portal_name: str, auto_approve: bool) -> None:
    """Ask on the terminal, naming the portal and what changes; a plan that deletes
    anything is confirmed by typing the portal's name (a reflexive `y` is not enough)."""
    if auto_approve:
        return
    if not is_terminal(sys.stdin):
        raise UserError(
            "refusing to apply without confirmation: no terminal to ask on;"
            " pass --auto-approve (or --dry-run to only print the calls)"
        )
    click.echo(safe(confirmation_summary(plan)))
    deletes = [c.address for c in plan.changes if c.action is Action.DELETE]
    if not deletes:
        if not click.confirm("Apply these calls?", default=False):
            raise UserError("apply cancelled; nothing was sent")
        return
    shown = ", ".join(deletes[:10]) + (
        f" and {len(deletes) - 10} more" if len(deletes) > 10 else ""
    )
    click.echo(safe(f"This deletes {len(deletes)}: {shown}."))
    typed = click.prompt(
        f"Delete and apply? Type the portal's name ({safe(portal_name)}) to confirm",
        default="",
        show_default=False,
    )
    if typed.strip() != portal_name:
        raise UserError("apply cancelled: the portal's name was not typed; nothing was sent")


def confirmation_summary(plan: Plan) -> str:
    """`Apply to URL: 1 to create, 2 to update, 1 to delete (5 calls).`"""
    counts = plan.summary()
    return (
        f"Apply to {plan.portal.url}: {counts['create']} to create, {counts['update']} to"
        f" update, {counts['delete']} to delete ({counts['calls']} calls)."
    )


async def _send(
    applying: api.Applying, plan: Plan, request: Request, interrupts: Interrupts
) -> ApplyResult:
    with interrupts.sending(), apply_progress(plan) as progress:
        return await applying.send(
            plan,
            journal=request.journal,
            on_event=progress,
            guard=interrupts.reason,
            abandon=interrupts.abandon,
        )


async def _verify(applying: api.Applying, request: Request) -> bool:
    """Read the portal again: an apply has converged only when nothing is left to do."""
    after = await _plan_now(applying, request)
    if after.empty and not after.errors:
        click.echo("Converged: the portal matches the manifests.")
        return True
    click.echo("Not converged: the portal still differs from the manifests:")
    echo_report(after, "text", "plan")
    return False
