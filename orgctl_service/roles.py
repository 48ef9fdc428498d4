"""Custom roles: listing and reads; createRole, setPrivileges (docs/rules.md §4.2, §4.3) and the
update/delete extension writes. Names are unique per portal, case-insensitively.
"""

from __future__ import annotations

import secrets
from typing import Any

from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, not_found
from orgctl_service.params import page
from orgctl_service.rules import check_portal_id
from orgctl_service.wire import privileges_field, role_id_field
from orgctl_service.world import Doc, portal_platform
from reconciler.catalog import ROLE_DESCRIPTION_MAX, ROLE_NAME_MAX, privilege_problem
from reconciler.text_rules import text_problem


def role_view(role: Doc, with_privileges: bool) -> dict[str, Any]:
    # No `editable`: real portals do not send it; clients know the pre-built roles by id.
    view = {k: role[k] for k in ("id", "name", "description", "created", "modified")}
    if with_privileges:
        view["privileges"] = list(role["privileges"])
    return view


def list_roles(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    with_privileges = bool(ctx.params.boolean("returnPrivileges"))
    roles = sorted(ctx.portal["roles"].values(), key=lambda r: (r["created"], r["id"]))
    return page(ctx.params, roles, "roles", lambda r: role_view(r, with_privileges))


def one_role(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    return role_view(_role(ctx), with_privileges=False)


def role_privileges(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    return {"privileges": list(_role(ctx)["privileges"])}


def create_role(ctx: Ctx) -> dict[str, Any]:
    name = _name(ctx, ctx.params.text("name", required=True) or "", None)
    description = _description(ctx.params.text("description") or "")
    role_id = secrets.token_hex(8)
    ctx.portal["roles"][role_id] = {
        "id": role_id,
        "name": name,
        "description": description,
        "privileges": [],
        "editable": True,
        "created": ctx.now,
        "modified": ctx.now,
    }
    ctx.touch_role(role_id)
    return {"success": True, "id": role_id}


def update_role(ctx: Ctx) -> dict[str, Any]:
    role = _editable_role(ctx)
    name = ctx.params.text("name")
    description = ctx.params.text("description")
    new_name = _name(ctx, name, role["id"]) if name is not None else role["name"]
    new_description = _description(description) if description is not None else None
    role["name"] = new_name
    if new_description is not None:
        role["description"] = new_description
    role["modified"] = ctx.now
    ctx.touch_role(role["id"])
    return {"success": True, "id": role["id"]}


def delete_role(ctx: Ctx) -> dict[str, Any]:
    role = _editable_role(ctx)
    holders = sorted(u["username"] for u in ctx.portal["users"].values() if u["role"] == role["id"])
    if holders:
        raise ApiError(
            400,
            "ROLE_1004",
            f"Role '{role['name']}' is assigned to members and cannot be deleted",
            holders,
        )
    del ctx.portal["roles"][role["id"]]
    ctx.touch_role(role["id"])
    return {"success": True}


def set_privileges(ctx: Ctx) -> dict[str, Any]:
    role = _editable_role(ctx)
    privileges = _privileges(ctx)
    role["privileges"] = privileges
    role["modified"] = ctx.now
    ctx.touch_role(role["id"])
    return {"success": True}


def _privileges(ctx: Ctx) -> list[str]:
    role_id_field(ctx.params.text("id"), ctx.args["roleId"])
    value = privileges_field(ctx.params.text("privileges", required=True) or "")
    listed = value.get("privileges") if isinstance(value, dict) else None
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise ApiError(
            400,
            "ROLE_1003",
            '\'privileges\' must be a JSON object {"privileges": ["<privilege id>", ...]}',
        )
    platform = portal_platform(ctx.portal)
    extra = ctx.portal.get("extraPrivileges") or []
    problems = [p for p in (privilege_problem(x, platform, extra) for x in listed) if p]
    if problems:
        raise ApiError(400, "ROLE_1003", "Invalid privileges for this organization", problems)
    return sorted(set(listed))


def _role(ctx: Ctx) -> Doc:
    role = ctx.portal["roles"].get(ctx.args["roleId"])
    if role is None:
        raise not_found(f"Role '{ctx.args['roleId']}' does not exist in this organization")
    return role  # type: ignore[no-any-return]


def _editable_role(ctx: Ctx) -> Doc:
    role = _role(ctx)
    if not role.get("editable", True):
        raise ApiError(400, "ROLE_1004", f"Role '{role['name']}' is not editable")
    return role


def _name(ctx: Ctx, name: str, own_id: str | None) -> str:
    name = name.strip()
    if not name:
        raise ApiError(400, "ROLE_1001", "Role name must not be empty")
    if len(name) > ROLE_NAME_MAX:
        raise ApiError(400, "ROLE_1001", f"Role name exceeds {ROLE_NAME_MAX} characters")
    problem = text_problem("name", name)
    if problem:
        raise ApiError(400, "ROLE_1001", problem)
    for role in ctx.portal["roles"].values():
        if role["id"] != own_id and role["name"].lower() == name.lower():
            raise ApiError(400, "ROLE_1001", f"A role named '{role['name']}' already exists")
    return name


def _description(description: str) -> str:
    if len(description) > ROLE_DESCRIPTION_MAX:
        raise ApiError(
            400, "ROLE_1002", f"Role description exceeds {ROLE_DESCRIPTION_MAX} characters"
        )
    problem = text_problem("description", description, multiline=True)
    if problem:
        raise ApiError(400, "ROLE_1002", problem)
    return description
