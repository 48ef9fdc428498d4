"""Role's live side: the converter of the roles listing's entries, and the listing's read
in the reader's one round of requests.

The listing is read once per portal read, whoever asks first (`LiveRead.once`): the
member listing names a custom role by id, so the Members kind's read awaits this one
rather than reading it again.
"""

from __future__ import annotations

from typing import Any

from reconciler.address_forms import ROLE
from reconciler.catalog import PREBUILT_ROLES
from reconciler.kind import Fill, LiveRead
from reconciler.live.records import Json, identity, path_id
from reconciler.operations import ReadName
from reconciler.state import LiveState, Role

_PREBUILT_IDS = frozenset(r.id for r in PREBUILT_ROLES)


def role(raw: Json) -> Role:
    """A role of the listing. Real portals send no `editable`: the pre-built roles, which
    cannot be changed or deleted, are the ones with the vendor's fixed ids."""
    name = identity(raw, "name", "a role")
    role_id = path_id(raw, "id", ROLE.of(name))
    return Role(
        name=name,
        description=str(raw.get("description") or ""),
        privileges=frozenset(str(p) for p in raw.get("privileges") or ()),
        id=role_id,
        editable=role_id not in _PREBUILT_IDS,
    )


async def listed_roles(source: LiveRead) -> list[Role]:
    """Every role with its privileges, each id and each name once."""

    async def convert(page: list[dict[str, Any]]) -> list[Role]:
        return source.kept(page, role)

    params = {"returnPrivileges": "true"}
    expected = len(source.desired.roles) if source.desired is not None else 0
    found = await source.converted_pages(ReadName.ROLES, convert, params, expected=expected)
    # Writes go to a role's id; the manifests and member assignments name it by name.
    found = source.distinct(found, "id", _id, _address)
    return source.distinct(found, "name", _name, _address)


async def read(source: LiveRead) -> Fill:
    roles = await source.once(listed_roles)

    def fill(live: LiveState) -> None:
        live.roles = {r.name: r for r in roles}

    return fill


def _id(role: Role) -> str:
    return str(role.id)


def _name(role: Role) -> str:
    return role.name


def _address(role: Role) -> str:
    return ROLE.of(role.name)
