"""Members: each member's role and level; several Members documents may exist."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import Field
from ruamel.yaml.comments import CommentedMap

from reconciler import address_forms as forms
from reconciler import catalog, state
from reconciler.adopt.addresses import Address
from reconciler.adopt.adopter import added, outcome
from reconciler.adopt.files import ManifestFiles
from reconciler.adopt.merge import merge_declared, merge_fields
from reconciler.errors import UserError
from reconciler.export.documents import Document as Exported
from reconciler.export.documents import document
from reconciler.export.summary import counted
from reconciler.kind import (
    Adopt,
    Export,
    ExportInput,
    ExportPart,
    Identities,
    Kind,
    Unread,
    Write,
    model_reader,
)
from reconciler.kinds.role import absent_roles, known_member_roles, renamed_roles
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, at, gate, source
from reconciler.manifest.grants import GrantSpec, entry_problems, member_grants
from reconciler.manifest.loader import Document
from reconciler.manifest.member_roles import unknown_role
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.manifest.writer import FlowMap, to_node
from reconciler.names import ROLE_NAMES, USERNAMES
from reconciler.operations import OperationName, ReadName, availability_problem
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState

NAME = "Members"
ADDRESS = forms.MEMBER


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
    for username, member in members.items():
        if member.grants or member.level is not None or member.role in misnamed:
            yield from _member_problems(document, username, member, misnamed, context)


def _member_problems(
    document: Document,
    username: str,
    member: MemberSpec,
    misnamed: Mapping[str | None, list[str]],
    context: RuleContext,
) -> Iterator[Problem]:
    where: KeyPath = ("spec", "members", username)
    if member.grants:
        yield from entry_problems(
            document, username, member.role, member.level, member.grants, context.platform
        )
    if member.level is not None:
        yield from gate(
            document, (*where, "level"), OperationName.UPDATE_USER_LEVEL, context.platform
        )
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


def _export(given: ExportInput) -> ExportPart[Exported]:
    document = members_document(given.live)
    return ExportPart(
        [document] if document else [], [], counted(len(given.live.members), "member")
    )


# --- export, adopt ----------------------------------------------------------------------------


def members_document(live: LiveState) -> Exported | None:
    """Every member with its role; `level` only where the platform still has levels."""
    if not live.members:
        return None
    members = {username: member_entry(live, username) for username in sorted(live.members)}
    return document(NAME, {"name": "members"}, {"members": members})


def member_entry(live: LiveState, username: str) -> FlowMap:
    """One member's role, and its level where the platform still has levels."""
    member = live.members[username]
    entry = FlowMap()
    if member.level is not None and not availability_problem(
        OperationName.UPDATE_USER_LEVEL, live.portal.platform
    ):
        entry["level"] = member.level
    if member.role is not None:
        entry["role"] = member.role
    return entry


def _adopt(files: ManifestFiles, live: LiveState, address: Address) -> str:
    username = address.key
    declared = _declaring(files, username)
    if username not in live.members:
        where = f" (declared in {declared[0]})" if declared else ""
        raise UserError(
            f"{address}: not a member of the portal{where}; a manifest cannot declare a"
            " member away, so remove the entry by hand"
        )
    entry = member_entry(live, username)
    if declared is None:
        return added(address, _add_member(files, username, entry))
    path, document = declared
    node = document["spec"]["members"][username]
    if not isinstance(node, CommentedMap):  # `alice:` with nothing declared
        return outcome(address, path, [], files)
    return outcome(address, path, merge_declared(node, entry), files)


def declare_member(files: ManifestFiles, username: str, values: Mapping[str, Any]) -> str:
    """Declare `values` (its role, its level) for the member, whatever its entry declared
    before: set in its entry, or an entry added where members are declared (a
    certification campaign's revocations); a sentence saying what changed."""
    address = Address(ADDRESS.head, (username,))
    declared = _declaring(files, username)
    if declared is None:
        return added(address, _add_member(files, username, FlowMap(values)))
    path, document = declared
    members = document["spec"]["members"]
    if not isinstance(members[username], CommentedMap):  # `alice:` with nothing declared
        members[username] = to_node(FlowMap(values))
        return outcome(address, path, list(values), files)
    node = members[username]
    fresh = [key for key in values if key not in node]
    for key in fresh:
        node[key] = to_node(values[key])
    changed = merge_fields(node, values, [key for key in values if key not in fresh])
    return outcome(address, path, [*fresh, *changed], files)


def _declaring(files: ManifestFiles, username: str) -> tuple[Path, CommentedMap] | None:
    """The Members document that declares `username`, and its file."""
    return next(
        (
            (path, document)
            for path, document in files.documents(NAME)
            if username in ((document.get("spec") or {}).get("members") or {})
        ),
        None,
    )


def _add_member(files: ManifestFiles, username: str, entry: FlowMap) -> Path:
    first = next(iter(files.documents(NAME)), None)
    if first is None:
        return files.append(document(NAME, {"name": "members"}, {"members": {username: entry}}))
    path, declared = first
    declared["spec"]["members"][username] = to_node(entry)
    files.touch(path)
    return path


def _plan(draft: Draft) -> None:
    # Loaded when it runs: validate loads every kind, not its planning (import budget).
    from reconciler.kinds.members.plan import plan_members

    plan_members(draft)


def _annotate(draft: Draft) -> None:
    """For a drift report (`draft.live_admin`), each member change carrying the
    administrative privileges its live role grants and its declared role does not."""
    if draft.live_admin:
        from reconciler.kinds.members.live_admin import with_live_admin  # as in `_plan`

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


def _no_dependents(desired: DesiredState) -> list[str]:
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
    read=None,  # with the other built-in kinds, by live/reader.py
    live=_live,
    defaults={},
    unread=Unread(DETAILS, ReadName.MEMBER, _no_dependents, _forget),
    prepare=None,
    plan=_plan,
    plan_last=None,
    annotate=_annotate,
    writes=_writes,
    export=Export("members.yaml", _export),
    adopt=Adopt(_adopt),
    unadoptable={},
)
