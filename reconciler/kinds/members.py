"""Members: each member's role and level; several Members documents may exist."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import Field

from reconciler import catalog, state
from reconciler.adopt import adopter
from reconciler.export import documents as docs
from reconciler.export.summary import counted
from reconciler.kinds.registry import (
    AddressForm,
    Adopt,
    Export,
    ExportInput,
    ExportPart,
    Identity,
    Kind,
)
from reconciler.kinds.role import absent_roles
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, at, gate, source
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.operations import OperationName
from reconciler.plan.members import plan_members
from reconciler.state import DesiredState, LiveState

ADDRESS = AddressForm("Member", ("username",))


# --- manifest ----------------------------------------------------------------------------------


class MemberSpec(models.Strict):
    level: Literal[1, 2] | None = None
    role: str | None = Field(None, min_length=1)


class MembersSpec(models.Strict):
    members: dict[str, MemberSpec]


class Members(models.Document):
    kind: Literal["Members"]
    metadata: models.DocumentMetadata
    spec: MembersSpec


def _model(document: Document) -> Members:
    assert isinstance(document.model, Members)  # the registry routes by kind
    return document.model


def _identities(document: Document) -> Iterator[Identity]:
    for username in _model(document).spec.members:
        yield Identity("username", document, ("spec", "members", username), username)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    absent = absent_roles(context)
    for username, member in _model(document).spec.members.items():
        where: KeyPath = ("spec", "members", username)
        if member.level is not None:
            yield from gate(
                document, (*where, "level"), OperationName.UPDATE_USER_LEVEL, context.platform
            )
        if member.level == 1 and member.role in catalog.BUILTIN_ROLES:
            yield document.problem(
                (*where, "level"),
                f"level 1 needs a custom role; built-in role {member.role!r} is always level 2",
            )
        if member.role in absent:
            yield document.problem(
                (*where, "role"),
                f"role {member.role!r} is declared absent (at {at(absent[member.role])})",
            )


def _desired(desired: DesiredState, document: Document) -> None:
    for username, member in _model(document).spec.members.items():
        desired.members[username] = state.Member(username, member.role, member.level)
        desired.sources[ADDRESS.of(username)] = source(document, "spec", "members", username)


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    for user, member in live.members.items():
        yield ADDRESS.of(user), (member, live.memberDetails.get(user))


def _export(given: ExportInput) -> ExportPart:
    document = docs.members_document(given.live)
    return ExportPart(
        [document] if document else [], [], counted(len(given.live.members), "member")
    )


KIND = Kind(
    name="Members",
    model=Members,
    singleton=False,
    addresses=(ADDRESS,),
    set_fields=(),
    identities=_identities,
    rules=_rules,
    desired=_desired,
    read=None,  # with the other built-in kinds, by live/reader.py
    live=_live,
    plan=plan_members,
    plan_last=None,
    export=Export("members.yaml", _export),
    adopt=Adopt(adopter.adopt_member),
    unadoptable={},
)
