"""Role: a custom role, its description and privileges, or `state: absent` to delete it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

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
    Write,
    model_reader,
)
from reconciler.kinds.role.document import ADDRESS, NAME, role_document
from reconciler.kinds.role.grants import GRANTS, TemporaryPrivilegesSpec, role_grants, role_problems
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, at, source, text
from reconciler.manifest.ignoring import pattern_problems
from reconciler.manifest.loader import Document
from reconciler.manifest.member_roles import KnownRoles, known_roles
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.names import ROLE_NAMES
from reconciler.operations import OperationName
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState

if TYPE_CHECKING:
    from reconciler.adopt.addresses import Address
    from reconciler.adopt.files import ManifestFiles


# Every write of a role, which the next change to a Role document may send.
WRITES = (
    OperationName.CREATE_ROLE,
    OperationName.UPDATE_ROLE,
    OperationName.SET_PRIVILEGES,
    OperationName.DELETE_ROLE,
)


# --- manifest ----------------------------------------------------------------------------------


class RoleSpec(models.Strict):
    description: str | None = Field(None, max_length=catalog.ROLE_DESCRIPTION_MAX)
    # In the schema, one of the catalog's privileges (editors complete and check them);
    # validate also accepts the Portal's extraPrivileges, which one document cannot see.
    privileges: Annotated[
        list[str] | None, models.string_set(nullable=True, item=models.PRIVILEGE_MARK)
    ] = None
    state: models.Presence = "present"
    ignorePrivileges: models.StringSet = models.empty(description=models.IGNORE_PRIVILEGES)
    temporaryPrivileges: list[TemporaryPrivilegesSpec] = models.empty(
        description="time-bound privileges beside the declared ones, each until a deadline"
    )


class RoleMetadata(models.DocumentMetadata):
    previousNames: list[Annotated[str, Field(min_length=1)]] = models.empty(
        description="names the role had before: a live role of one of them (any case) is"
        " renamed to this name in place, keeping its id and every member who holds it",
    )
    owners: list[models.Username] = models.empty(
        description="usernames of the members who answer for the role: a certification"
        " campaign (kind: Campaign) sends them the review of its holders",
    )


class Role(models.Document):
    kind: Literal["Role"]
    metadata: RoleMetadata
    spec: RoleSpec = RoleSpec()


_model = model_reader(Role)


def _identities(document: Document) -> Iterator[Identities[Document]]:
    yield Identities.named("role", document, ("metadata", "name"), document.name, ROLE_NAMES.key)


def absent_roles(context: RuleContext) -> dict[str, Document]:
    """The roles the manifest set declares absent, by `ROLE_NAMES` key (a member may not
    hold one, in any spelling)."""
    found = context.memo.get("absent roles")
    if found is None:
        found = context.memo["absent roles"] = {
            ROLE_NAMES.key(d.name): d
            for d in context.documents
            if isinstance(d.model, Role) and d.model.spec.state == "absent"
        }
    return found


def renamed_roles(context: RuleContext) -> dict[str, Document]:
    """The declared roles by the `ROLE_NAMES` key of each of their previous names."""
    found = context.memo.get("renamed roles")
    if found is None:
        found = context.memo["renamed roles"] = {}
        for d in context.documents:
            if isinstance(d.model, Role):
                for previous in d.model.metadata.previousNames:
                    found.setdefault(ROLE_NAMES.key(previous), d)
    return found


def known_member_roles(context: RuleContext) -> KnownRoles:
    """The roles a member may be given, as far as the manifests tell (a campaign's
    revokeTo asks too)."""
    found = context.memo.get("known roles")
    if found is None:
        declared = [d.model for d in context.documents if isinstance(d.model, Role)]
        present = [r.metadata.name for r in declared if r.spec.state == "present"]
        named = [r.metadata.name for r in declared]
        named += [previous for r in declared for previous in r.metadata.previousNames]
        found = context.memo["known roles"] = known_roles(present, named, context.portal)
    assert isinstance(found, KnownRoles)
    return found


def _declared_roles(context: RuleContext) -> dict[str, Document]:
    """The declared roles by the `ROLE_NAMES` key of their name."""
    found = context.memo.get("declared roles")
    if found is None:
        found = context.memo["declared roles"] = {
            ROLE_NAMES.key(d.name): d for d in context.documents if isinstance(d.model, Role)
        }
    return found


def _previous_names(document: Document, context: RuleContext) -> Iterator[Problem]:
    """Each previous name names one live role that only this declaration may claim: not
    the role's own name, not another declaration's name or previous name."""
    name = document.name
    seen: set[str] = set()
    for index, previous in enumerate(_model(document).metadata.previousNames):
        where = ("metadata", "previousNames", index)
        folded = ROLE_NAMES.key(previous)
        other = _declared_roles(context).get(folded)
        claimed = renamed_roles(context).get(folded)
        if previous == name:
            yield document.problem(where, f"{previous!r} is the role's own name")
        elif folded in seen:
            yield document.problem(where, f"{previous!r} is listed twice (names ignore case)")
        elif other is not None and other is not document:
            yield document.problem(
                where,
                f"{previous!r} is the name of {other.resource} (at {at(other)}): a role"
                " still declared cannot be renamed; rename one or drop the previous name",
            )
        elif claimed is not None and claimed is not document:
            yield document.problem(
                where,
                f"{previous!r} is also a previous name of {claimed.resource} (at"
                f" {at(claimed)}): one live role cannot become two",
            )
        elif previous != previous.strip() or len(previous) > catalog.ROLE_NAME_MAX:
            yield document.problem(
                where, f"{previous!r} cannot be a role's name (trimmed, up to 128 characters)"
            )
        seen.add(folded)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    model = _model(document)
    name = model.metadata.name
    yield from _previous_names(document, context)
    yield from listed_once(document, ("metadata", "owners"), model.metadata.owners, "owner")
    if len(name) > catalog.ROLE_NAME_MAX:
        yield document.problem(
            ("metadata", "name"),
            f"role name is {len(name)} characters, at most {catalog.ROLE_NAME_MAX} allowed",
        )
    if model.spec.description is not None:
        yield from text(document, ("spec", "description"), model.spec.description, True)
    if name != name.strip():
        # The service trims names: the role would be created as another name, never matched.
        trimmed = f"; write {name.strip()!r}" if name.strip() else ""
        yield document.problem(
            ("metadata", "name"),
            f"role name {name!r} starts or ends with white space, which the service trims{trimmed}",
        )
    if model.spec.state == "absent" and (
        model.spec.description is not None or model.spec.privileges is not None
    ):
        yield document.problem(
            ("spec", "state"),
            "a role declared absent cannot also declare a description or privileges",
        )
    if model.spec.state == "absent" and model.metadata.previousNames:
        yield document.problem(
            ("metadata", "previousNames"),
            "a role declared absent has nothing to rename: drop previousNames",
        )
    if model.spec.state == "absent" and model.spec.ignorePrivileges:
        yield document.problem(
            ("spec", "ignorePrivileges"),
            "a role declared absent keeps no privileges: drop ignorePrivileges",
        )
    yield from pattern_problems(document, ("spec", "ignorePrivileges"), model.spec.ignorePrivileges)
    temporary = model.spec.temporaryPrivileges
    yield from role_problems(document, model.spec.privileges, model.spec.state, temporary)
    if context.platform is None:
        return
    listed: list[tuple[KeyPath, str]] = [
        (("spec", "privileges", i), p) for i, p in enumerate(model.spec.privileges or ())
    ]
    listed += [
        (("spec", "temporaryPrivileges", i, "privileges", j), p)
        for i, grant in enumerate(temporary)
        for j, p in enumerate(grant.privileges)
    ]
    for path, privilege in listed:
        problem = catalog.privilege_problem(privilege, context.platform, context.extra_privileges)
        if problem:
            yield document.problem(path, problem)


def listed_once(
    document: Document, where: KeyPath, usernames: Sequence[str], what: str
) -> Iterator[Problem]:
    """A username listed twice (usernames compare exactly) is a slip, never two people."""
    seen: set[str] = set()
    for index, username in enumerate(usernames):
        if username in seen:
            yield document.problem((*where, index), f"{what} {username!r} is listed twice")
        seen.add(username)


def owners(documents: Iterable[Document]) -> dict[str, tuple[str, ...]]:
    """Each declared role's owners (metadata.owners), by the role's name."""
    return {
        d.name: tuple(d.model.metadata.owners)
        for d in documents
        if isinstance(d.model, Role) and d.model.metadata.owners
    }


def _desired(desired: DesiredState, document: Document) -> None:
    spec = _model(document).spec
    privileges = frozenset(spec.privileges) if spec.privileges is not None else None
    role = state.Role(document.name, spec.description, privileges, present=spec.state == "present")
    previous = _model(document).metadata.previousNames
    if previous:
        desired.previousNames[document.name] = tuple(previous)
    desired.roles[document.name] = role
    if spec.ignorePrivileges:
        desired.ignorePrivileges[document.name] = tuple(spec.ignorePrivileges)
    desired.sources[ADDRESS.of(document.name)] = source(document)
    if spec.temporaryPrivileges:
        address = ADDRESS.of(document.name)
        desired.grants[address] = role_grants(document, address, spec.temporaryPrivileges)


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    for name, role in live.roles.items():
        yield ADDRESS.of(name), role


def _privileges(live: LiveState) -> Iterator[tuple[str, frozenset[str]]]:
    """Each live role's privileges, by name."""
    for name, role in sorted(live.roles.items()):
        yield ADDRESS.of(name), role.privileges or frozenset()


def _export(given: ExportInput) -> ExportPart[Exported]:
    roles, twins = _exported_roles(given.live)
    documents = [role_document(role) for role in roles]
    fixed = sorted(r.name for r in given.live.roles.values() if not r.editable)
    notes = (
        [f"pre-built roles that cannot be edited, left out: {', '.join(fixed)}"] if fixed else []
    )
    if twins:
        notes.append(
            "roles whose names differ only in case are one role to the portal (ROLE_1001),"
            f" so one document each; left out: {', '.join(twins)}"
        )
    return ExportPart(documents, notes, counted(len(documents), "role"))


# --- export, adopt ----------------------------------------------------------------------------


def _exported_roles(live: LiveState) -> tuple[list[state.Role], list[str]]:
    """The editable custom roles, by name, and those left out: of live roles that are one
    under the identity rule (which a portal should never hold), the first by name, as
    the manifests can declare one (validate refuses the others)."""
    kept: dict[str, state.Role] = {}
    twins = []
    for role in sorted(live.roles.values(), key=lambda r: r.name):
        key = ROLE_NAMES.key(role.name)
        if not role.editable:
            continue
        if key in kept:
            twins.append(f"{role.name!r} (as {kept[key].name!r})")
        else:
            kept[key] = role
    return list(kept.values()), twins


def _adopt(files: ManifestFiles, live: LiveState, address: Address) -> str:
    # Loaded when it runs: validate loads every kind, not the editing of files.
    from reconciler.kinds.role.adopt import adopt_role

    return adopt_role(files, live, address)


async def _read(source: LiveRead) -> Fill:
    # Loaded when a portal is read: validate loads the kind, not its read's asyncio.
    from reconciler.kinds.role.live import read

    return await read(source)


def _plan(draft: Draft) -> None:
    # Loaded when it runs: validate loads every kind, not its planning (import budget).
    from reconciler.kinds.role.plan import plan_roles

    plan_roles(draft)


def _plan_deletions(draft: Draft) -> None:
    from reconciler.kinds.role.plan import plan_role_deletions  # as in `_plan`

    plan_role_deletions(draft)


def _prepare(draft: Draft) -> None:
    """Each renamed live role filed under its declared name (not when the documents are
    planned as declared); then the roles' privileges as they are to be sent: declared, and
    the live ones their ignorePrivileges patterns keep (of a renamed role too: the live
    state names it as the manifests do)."""
    from reconciler.kinds.role.ignored import keep_ignored  # as in `_plan`
    from reconciler.kinds.role.renames import resolve_renames

    if not draft.as_declared:
        resolve_renames(draft)
    draft.desired, kept = keep_ignored(draft.desired, draft.live)
    draft.ignored.extend(kept)


def _annotate(draft: Draft) -> None:
    """A warning when the plan takes from the member that applies it what its later
    calls need; an error for each declared privilege the portal's release lacks; a warning for
    each ignorePrivileges pattern that looks like a typo; for a drift report
    (`draft.live_admin`), each role change carrying the administrative privileges it holds
    live that the manifests do not declare, with who holds them. A role change's holders
    once the plan is applied are counted by the Members kind (`kinds/members/reach.py`)."""
    from reconciler.kinds.role.caller import check_caller_keeps  # as in `_plan`
    from reconciler.kinds.role.ignored import check_privileges, pattern_typos
    from reconciler.kinds.role.live_admin import with_live_admin

    if draft.applying is not None:
        check_caller_keeps(draft, *draft.applying)
    check_privileges(draft)
    for address, typo in pattern_typos(draft.desired, draft.live):
        draft.warn(address, typo)
    if draft.live_admin:
        draft.changes = with_live_admin(draft.changes, draft.live)


def _writes(desired: DesiredState, live: LiveState) -> Iterator[Write]:
    """Every role write, once any role is declared: the next change to a Role document
    may send any of them."""
    if desired.roles:
        yield from (Write(op, NAME) for op in WRITES)


KIND = Kind(
    name=NAME,
    model=Role,
    singleton=False,
    addresses=(ADDRESS,),
    set_fields=(("spec", "privileges"), ("spec", "ignorePrivileges")),
    identities=_identities,
    rules=_rules,
    desired=_desired,
    read=_read,
    people=True,
    live=_live,
    defaults={},
    unread=None,
    grants=GRANTS,
    prepare=_prepare,
    plan=_plan,
    plan_last=_plan_deletions,
    annotate=_annotate,
    writes=_writes,
    privileges=_privileges,
    export=Export("roles.yaml", _export),
    adopt=Adopt(_adopt),
    unadoptable={},
)
