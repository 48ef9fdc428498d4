"""Members: each member's role and level; several Members documents may exist."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from reconciler import catalog, state
from reconciler.export.documents import Document as Exported
from reconciler.export.summary import counted
from reconciler.kind import (
    Adopt,
    Export,
    ExportInput,
    ExportPart,
    Fill,
    Identities,
    Kind,
    LiveRead,
    Unread,
    Write,
    model_reader,
)
from reconciler.kinds.members.grants import GRANTS, GrantSpec, entry_problems, member_grants
from reconciler.kinds.members.names import ADDRESS, NAME
from reconciler.kinds.role import absent_roles, known_member_roles, renamed_roles
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, at, source
from reconciler.manifest.loader import Document
from reconciler.manifest.member_roles import unknown_role
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.names import ROLE_NAMES, USERNAMES
from reconciler.operations import OperationName, ReadName, availability_problem
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState

if TYPE_CHECKING:
    from reconciler.adopt.addresses import Address
    from reconciler.adopt.files import ManifestFiles


# --- manifest ----------------------------------------------------------------------------------


class MemberSpec(models.Strict):
    level: Literal[1, 2] | None = None
    role: str | None = Field(None, min_length=1)
    # None rather than []: a copied empty list per member cost 100,000 members a quarter
    # of a second to validate.
    grants: list[GrantSpec] | None = Field(
        None, description="time-bound access: the entry's own role and level are its fallback"
    )


class MembersSpec(models.Strict):
    members: dict[str, MemberSpec]


class Members(models.Document):
    kind: Literal["Members"]
    metadata: models.DocumentMetadata
    spec: MembersSpec


_model = model_reader(Members)


def _identities(document: Document) -> Iterator[Identities[Document]]:
    members = _model(document).spec.members
    yield Identities.under("username", document, ("spec", "members"), members, USERNAMES.key)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    members = _model(document).spec.members
    # Each role is judged once, then only its holders are visited: 100,000 members hold a
    # handful of roles, and a check per member cost a fifth of a second.
    held = {member.role for member in members.values() if member.role is not None}
    yield from _unknown_roles(document, members, held, context)
    misnamed = _misnamed_roles(held, context)
    # The release's answer on levels is the same for every member: asked once, and a
    # member declaring level 2 where levels can be set is then passed over (23,000
    # members asked it each, in a generator of their own: 35-40 ms of validating them).
    levels = _level_gate(context)
    for username, member in members.items():
        level = member.level is not None and (levels is not None or member.level == 1)
        if member.grants or level or member.role in misnamed:
            yield from _member_problems(document, username, member, misnamed, levels, context)


def _level_gate(context: RuleContext) -> str | None:
    """What the portal's release lacks to set a member's level, or None."""
    if context.platform is None:
        return None
    return availability_problem(OperationName.UPDATE_USER_LEVEL, context.platform)


def _member_problems(
    document: Document,
    username: str,
    member: MemberSpec,
    misnamed: Mapping[str | None, list[str]],
    levels: str | None,
    context: RuleContext,
) -> Iterator[Problem]:
    where: KeyPath = ("spec", "members", username)
    if member.grants:
        yield from entry_problems(
            document, username, member.role, member.level, member.grants, context.platform
        )
    if member.level is not None and levels is not None:
        yield document.problem((*where, "level"), levels)
    if member.level == 1 and member.role in catalog.BUILTIN_ROLES:
        yield document.problem(
            (*where, "level"),
            f"level 1 needs a custom role; built-in role {member.role!r} is always level 2",
        )
    for message in misnamed.get(member.role, ()):
        yield document.problem((*where, "role"), message)


def _misnamed_roles(held: set[str], context: RuleContext) -> dict[str | None, list[str]]:
    """What is wrong with each role a member holds by a name the manifests retire: one
    declared absent, or a previous name of a renamed role."""
    absent, renamed = absent_roles(context), renamed_roles(context)
    found: dict[str | None, list[str]] = {}
    for role in held:
        key = ROLE_NAMES.key(role)
        if key in absent:
            message = f"role {role!r} is declared absent (at {at(absent[key])})"
            found.setdefault(role, []).append(message)
        new = renamed.get(key)
        if new is not None and role != new.name:
            message = (
                f"role {role!r} is renamed to {new.name!r} (previousNames at"
                f" {at(new)}): name it by its new name"
            )
            found.setdefault(role, []).append(message)
    return found


def _unknown_roles(
    document: Document, members: Mapping[str, MemberSpec], held: set[str], context: RuleContext
) -> Iterator[Problem]:
    """Each role of the document that is neither built-in nor declared, once, at the
    first member holding it."""
    roles = known_member_roles(context)
    unknown = {role for role in held if not roles.knows(role)}
    if not unknown:
        return
    found: dict[str, tuple[str, int]] = {}  # role -> its first member, and how many
    for username, member in members.items():
        if member.role in unknown:
            first, count = found.get(member.role, (username, 0))
            found[member.role] = (first, count + 1)
    for role, (username, count) in found.items():
        yield unknown_role(document, username, role, count, roles)


def _desired(desired: DesiredState, document: Document) -> None:
    for username, member in _model(document).spec.members.items():
        desired.members[username] = state.Member(username, member.role, member.level)
        address = ADDRESS.of(username)
        if member.grants:
            desired.grants[address] = member_grants(document, username, address, member.grants)
        desired.sources[address] = source(document, "spec", "members", username)


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    # Only what a plan depends on, encoded as the record was before it grew the access
    # report's fields: a sign-in (lastLogin) or an account disabled between plan and apply
    # leaves a saved plan as good as it was.
    for user, member in live.members.items():
        planned = {"username": member.username, "role": member.role, "level": member.level}
        yield ADDRESS.of(user), (planned, live.memberDetails.get(user))


# --- export, adopt: loaded when they run, as validate loads every kind but writes no YAML


def _export(given: ExportInput) -> ExportPart[Exported]:
    from reconciler.kinds.members.writing import members_document

    document = members_document(given.live)
    return ExportPart(
        [document] if document else [], [], counted(len(given.live.members), "member")
    )


def _adopt(files: ManifestFiles, live: LiveState, address: Address) -> str:
    from reconciler.kinds.members.writing import adopt_member

    return adopt_member(files, live, address)


async def _read(source: LiveRead) -> Fill:
    # Loaded when a portal is read: validate loads the kind, not its read's asyncio.
    from reconciler.kinds.members.live import read

    return await read(source)


def _plan(draft: Draft) -> None:
    # Loaded when it runs: validate loads every kind, not its planning (import budget).
    from reconciler.kinds.members.plan import plan_members

    plan_members(draft)


def _plan_last(draft: Draft) -> None:
    """Once every role's deletion is planned (the Role kind's `plan_last`, before this
    one): each waits for the moves of its members off it."""
    from reconciler.kinds.members.reach import role_deletions_after_moves  # as in `_plan`

    role_deletions_after_moves(draft)


def _annotate(draft: Draft) -> None:
    """Each role change that adds or removes privileges carrying its holders once the plan
    is applied (counted on the live state as the plan names it: renamed roles by their
    new names) and, for a drift report (`draft.live_admin`), each member change carrying
    the administrative privileges its live role grants and its declared role does not."""
    from reconciler.kinds.members.reach import with_holders  # as in `_plan`

    draft.changes = with_holders(draft.changes, draft.live)
    if draft.live_admin:
        from reconciler.kinds.members.live_admin import with_live_admin

        draft.changes = with_live_admin(draft.changes, draft.live, draft.desired)


def _writes(desired: DesiredState, live: LiveState) -> Iterator[Write]:
    """A member's role change, and its level change once any level is declared."""
    if desired.members:
        yield Write(OperationName.UPDATE_USER_ROLE, NAME)
        if any(m.level is not None for m in desired.members.values()):
            yield Write(OperationName.UPDATE_USER_LEVEL, NAME)


# A member's details (what decides whether a level change is refused) the planning account
# may not read, one part per member: a warning, as the portal checks the change when it
# is sent; a saved plan's applier compares without them too.
DETAILS = f"{ADDRESS.head}/"


def _no_dependents(desired: DesiredState, part: str) -> list[str]:
    return []


def _forget(live: LiveState, parts: Mapping[str, str]) -> LiveState:
    details = {part.removeprefix(DETAILS) for part in parts}
    kept = {u: d for u, d in live.memberDetails.items() if u not in details}
    return replace(live, memberDetails=kept)


KIND = Kind(
    name=NAME,
    model=Members,
    singleton=False,
    addresses=(ADDRESS,),
    set_fields=(),
    identities=_identities,
    rules=_rules,
    desired=_desired,
    read=_read,
    people=True,
    live=_live,
    defaults={},
    unread=Unread(DETAILS, ReadName.MEMBER, _no_dependents, _forget),
    grants=GRANTS,
    prepare=None,
    plan=_plan,
    plan_last=_plan_last,
    annotate=_annotate,
    writes=_writes,
    privileges=None,
    export=Export("members.yaml", _export),
    adopt=Adopt(_adopt),
    unadoptable={},
)
