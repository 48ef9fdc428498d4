"""`orgctl what-if PATH`: who would gain or lose an effective privilege, and which policy
verdicts would change, if the state the manifests produce were changed as the options
say. Reads the portal (its roles and members) and changes nothing."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from reconciler.cli import help, options, session
from reconciler.cli.output import reading
from reconciler.clock import evaluation_time
from reconciler.errors import ManifestError, UserError
from reconciler.live.reader import read_people
from reconciler.manifest.grants import resolved
from reconciler.settings import Settings
from reconciler.shown import safe
from reconciler.state import DesiredState, LiveState
from reconciler.workflow import connect, run, warn_in_ci

if TYPE_CHECKING:
    from reconciler.policy.variables import Access

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Changes:
    remove: tuple[tuple[str, str], ...]  # (role, privilege)
    add: tuple[tuple[str, str], ...]
    roles: tuple[tuple[str, str], ...]  # (username, role)
    levels: tuple[tuple[str, int], ...]  # (username, level)


def _pairs(values: tuple[str, ...], option: str) -> tuple[tuple[str, str], ...]:
    found = []
    for value in values:
        left, sep, right = value.partition("=")
        if not sep or not left or not right:
            raise click.BadParameter(f"{value!r} is not NAME=VALUE", param_hint=option)
        found.append((left, right))
    return tuple(found)


@click.command(
    "what-if",
    epilog=help.epilog(
        [
            "orgctl what-if portals/prod --remove-privilege Analyst=portal:user:shareToGroup",
            "orgctl what-if portals/prod --set-role gina=org_admin --fail-on-new-access",
            "orgctl what-if portals/prod --set-level erin=2 --format json",
            "orgctl what-if portals/prod --against origin/main --fail-on-new-access",
        ],
        help.LIVE,
    ),
)
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--remove-privilege", "remove", multiple=True, metavar="ROLE=PRIV")
@click.option("--add-privilege", "add", multiple=True, metavar="ROLE=PRIV")
@click.option("--set-role", "set_role", multiple=True, metavar="USER=ROLE")
@click.option("--set-level", "set_level", multiple=True, metavar="USER=N")
@click.option(
    "--against",
    "ref",
    metavar="GIT_REF",
    help="Compare with the state the manifests at this revision produce (same path, in the"
    " Git repository holding PATH) instead of naming changes.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text")
@click.option("--fail-on-new-access", is_flag=True, help="Exit 2 when anyone gains a privilege.")
@click.pass_context
def command(
    ctx: click.Context,
    path: Path,
    remove: tuple[str, ...],
    add: tuple[str, ...],
    set_role: tuple[str, ...],
    set_level: tuple[str, ...],
    ref: str | None,
    fmt: str,
    fail_on_new_access: bool,
) -> None:
    """Compare the state the manifests in PATH produce with that state plus the changes
    the options name: each member who gains or loses an effective privilege (with their
    last sign-in) and the policy verdicts that change (exit 0; 2 with
    --fail-on-new-access when anyone gains; 1 on errors). Changes nothing."""
    given = options.settings()
    warn_in_ci(given.environ)
    changes = _changes(remove, add, set_role, set_level)
    if ref is not None and changes != Changes((), (), (), ()):
        raise UserError("--against compares two revisions: name no change beside it")
    desired = session.desired(path, False, given)
    earlier = _at_revision(path, ref, given) if ref is not None else None
    with reading(desired.portal.url):
        live, now = run(_read(desired, given.environ))
    # The manifests' state now: the grants in force at the evaluation time (a revision's
    # too, judged at the same moment).
    judged = evaluation_time(now)
    desired = resolved(desired, judged)
    earlier = resolved(earlier, judged) if earlier is not None else None
    if earlier is None:
        report = what_if(desired, live, changes, now)
    else:
        report = against(desired, earlier, live, now)
        report["against"] = ref
    click.echo(_rendered(report, fmt), nl=False)
    gained = any(m["gained"] for m in report["members"])
    ctx.exit(2 if fail_on_new_access and gained else 0)


def _changes(
    remove: tuple[str, ...],
    add: tuple[str, ...],
    set_role: tuple[str, ...],
    set_level: tuple[str, ...],
) -> Changes:
    levels = []
    for user, level in _pairs(set_level, "--set-level"):
        if level not in ("1", "2"):
            raise click.BadParameter(f"{user}={level}: a level is 1 or 2", param_hint="--set-level")
        levels.append((user, int(level)))
    return Changes(
        _pairs(remove, "--remove-privilege"),
        _pairs(add, "--add-privilege"),
        _pairs(set_role, "--set-role"),
        tuple(levels),
    )


def _at_revision(path: Path, ref: str, given: Settings) -> DesiredState:
    """The desired state of PATH's manifests at `ref`. Their problems name the files as
    the repository holds them, with the revision, not the temporary copy."""
    from reconciler.revision import checked_out

    with checked_out(path, ref) as then:
        try:
            return session.desired(then, False, given)
        except ManifestError as error:
            where = str(then)
            raise ManifestError(
                [f"at {ref}: {line.replace(where, path.as_posix())}" for line in error.problems]
            ) from None


async def _read(desired: DesiredState, environ: Mapping[str, str]) -> tuple[LiveState, float]:
    import time

    async with connect(desired, environ) as client:
        live = await read_people(client)
        return live, client.server_clock or time.time()


def what_if(desired: DesiredState, live: LiveState, changes: Changes, now: float) -> Json:
    """The report: members whose effective privileges differ, and changed verdicts."""
    from reconciler.kinds.members.edits import assignments_edited
    from reconciler.kinds.role.edits import privileges_edited
    from reconciler.policy.variables import planned_access

    base = _produced(desired, live)
    roles = privileges_edited(base, desired, changes.remove, changes.add)
    members = assignments_edited(base, changes.roles, changes.levels)
    based = replace(live, members=dict(base.members))
    final_after = {u: m.role for u, m in members.items()}
    extra = desired.portal.extraPrivileges
    after = planned_access(based, roles, members, final_after, extra)
    return compared(desired, live, base, after, now)


def against(desired: DesiredState, earlier: DesiredState, live: LiveState, now: float) -> Json:
    """The report of `--against`: the state the manifests produced at the revision
    (`earlier`) against the working tree's, both on the live portal read once; verdicts
    by the working tree's policies."""
    return compared(desired, live, _produced(earlier, live), _produced(desired, live), now)


def _produced(desired: DesiredState, live: LiveState) -> Access:
    """The access the manifests produce on the live portal: declared roles and
    privileges, each live member at its declared role and level."""
    from reconciler.policy.variables import planned_access

    final = {
        u: d.role for u, d in desired.members.items() if d.role is not None and u in live.members
    }
    extra = desired.portal.extraPrivileges
    return planned_access(live, desired.roles, desired.members, final, extra)


def compared(
    desired: DesiredState, live: LiveState, base: Access, after: Access, now: float
) -> Json:
    """Each member whose effective privileges differ between `base` and `after`, and the
    verdicts of the manifests' policies and the built-ins that change between them."""
    from reconciler.kinds.policy import declared, rule_of
    from reconciler.policy.builtin import BUILTINS
    from reconciler.policy.variables import access_subjects, portal_variable
    from reconciler.policy.verdicts import compiled, judge

    rules = [rule_of(p) for p in declared(desired)]
    rules += [
        compiled(p.name, p.enforcement, p.subject, p.match, p.rule, p.message, ()) for p in BUILTINS
    ]
    name = desired.portal.name
    was_subjects = access_subjects(base, base)
    was_subjects["portal"] = [portal_variable(name, live, base)]
    will = access_subjects(base, after)
    will["portal"] = [portal_variable(name, live, after, base)]
    moment = dt.datetime.fromtimestamp(now, dt.UTC)
    verdicts = [
        v.to_json()
        for v in judge(rules, was_subjects, will, moment, {})
        if str(v.status) != "existing"
    ]
    return {"portal": name, "members": _differing(base, after), "policies": verdicts}


def _differing(base: Access, after: Access) -> list[Json]:
    from reconciler.policy.variables import timestamp

    shown = []
    for username in sorted(after.members):
        member = after.members[username]
        was = base.members.get(username)
        now_ = set(after.effective(member))
        before = set(base.effective(was)) if was is not None else set()
        if now_ != before:
            last = timestamp(member.lastLogin)
            shown.append(
                {
                    "username": username,
                    "role": member.role,
                    "lastLogin": None if last is None else last.isoformat(),
                    "gained": sorted(now_ - before),
                    "lost": sorted(before - now_),
                }
            )
    return shown


def _rendered(report: Json, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report, indent=2) + "\n"
    markdown = fmt == "markdown"
    versus = f", against {report['against']}" if "against" in report else ""
    lines = [f"{'## ' if markdown else ''}What if: {report['portal']}{versus}", ""]
    if not report["members"]:
        lines.append("Nobody gains or loses an effective privilege.")
    for m in report["members"]:
        last = m["lastLogin"] or "never or unknown"
        head = f"{m['username']} ({m['role']}, last sign-in {last})"
        lines.append(f"- {head}" if markdown else head)
        for word, key in (("gains", "gained"), ("loses", "lost")):
            if m[key]:
                listed = ", ".join(f"`{p}`" if markdown else p for p in m[key])
                lines.append(f"  - {word} {listed}" if markdown else f"  {word} {listed}")
    lines.append("")
    if not report["policies"]:
        lines.append("No policy verdict changes.")
    for v in report["policies"]:
        status = "violated" if v["status"] == "introduced" else "cured"
        line = (
            f"policy {v['policy']} ({v['enforcement']}) {status} at {v['subject']}: {v['message']}"
        )
        lines.append(f"- {line}" if markdown else line)
    return "\n".join(safe(line) for line in lines) + "\n"
