"""Load a state file (README: reference service) into a fresh `World`; only an empty
database is seeded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orgctl_service.accounts import ACCESS_LEVELS, NEVER
from orgctl_service.clock import now_real_ms, parse_time
from orgctl_service.passwords import forget_seeded, seed_hash
from orgctl_service.world import Doc, World
from reconciler.catalog import BUILTIN_ROLES, PREBUILT_ROLES, WEBHOOK_SETTINGS, privileges_for
from reconciler.errors import UserError
from reconciler.manifest import yamltree
from reconciler.versions import Platform, VersionError


def load_state_file(path: Path) -> World:
    data = _state_data(path)
    try:
        return build_world(data or {})
    except (KeyError, TypeError, ValueError, VersionError) as exc:
        raise UserError(f"{path}: invalid state: {exc}") from None
    finally:
        forget_seeded()  # `seed_hash` keeps clear-text passwords for one seeding only


def declares_clock(path: Path) -> bool:
    """Whether the state file fixes the clock (`clock:`); without it the clock is wall time."""
    try:
        data = _state_data(path)
    except UserError:
        return False
    return isinstance(data, dict) and data.get("clock") is not None


def _state_data(path: Path) -> Any:
    """The state file's one document, read as manifests are (libyaml, limits on depth and
    aliases, duplicate keys refused): 100,000 members are read in seconds, not a minute."""
    try:
        text = path.read_text(encoding="utf-8")
        documents = list(yamltree.trees(text))
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read the state file: {exc}") from None
    except yamltree.TreeError as exc:
        raise UserError(f"{path}:{exc.line}:{exc.column}: {exc.message}") from None
    if len(documents) > 1:
        raise UserError(f"{path}: a state file holds one YAML document, not {len(documents)}")
    return documents[0].value if documents and documents[0] is not None else None


def build_world(data: dict[str, Any]) -> World:
    clock = parse_time(data["clock"]) if data.get("clock") is not None else now_real_ms()
    world = World(clock=clock, clock_fixed=data.get("clock") is not None)
    for raw in data.get("portals") or []:
        portal = _portal(raw, clock)
        if portal["id"] in world.portals:
            raise ValueError(f"portal id {portal['id']!r} appears twice")
        world.portals[portal["id"]] = portal
    keys = {p["urlKey"]: pid for pid, p in world.portals.items()}
    for raw in data.get("collaborations") or []:
        collaboration = _collaboration(raw, keys, clock)
        world.collaborations[collaboration["id"]] = collaboration
    return world


def _portal(raw: dict[str, Any], clock: int) -> Doc:
    where = f"portal {raw.get('urlKey') or raw.get('id')!r}"
    for key in ("id", "urlKey", "name", "deployment", "version"):
        if not raw.get(key):
            raise ValueError(f"{where}: missing {key!r}")
    platform = Platform.parse(raw["deployment"], str(raw["version"]))
    roles = {str(r["id"]): _role(r, clock) for r in raw.get("roles") or []}
    roles = {**_prebuilt_roles(platform, clock), **roles}
    _refuse_repeated_names(roles, where)
    settings = {
        name: int((raw.get("webhookSettings") or {}).get(name, spec.default))
        for name, spec in WEBHOOK_SETTINGS.items()
    }
    return {
        "id": str(raw["id"]),
        "urlKey": str(raw["urlKey"]),
        "name": str(raw["name"]),
        "deployment": str(raw["deployment"]),
        "version": str(raw["version"]),
        "levelQuotas": {str(k): int(v) for k, v in (raw.get("levelQuotas") or {}).items()},
        "disallowedApps": {
            str(k): [str(a) for a in v] for k, v in (raw.get("disallowedApps") or {}).items()
        },
        "extraPrivileges": [str(p) for p in raw.get("extraPrivileges") or []],
        "roles": roles,
        "users": {
            str(u["username"]): _user(u, roles, where, clock) for u in raw.get("users") or []
        },
        "webhooks": {str(w["id"]): _webhook(w, clock) for w in raw.get("webhooks") or []},
        "serviceWebhooks": {
            str(w["id"]): _webhook(w, clock) for w in raw.get("serviceWebhooks") or []
        },
        "webhookSettings": settings,
        "tasks": {str(t["id"]): _task(t, clock) for t in raw.get("tasks") or []},
        "created": clock,
    }


def _role(raw: dict[str, Any], clock: int) -> Doc:
    return {
        "id": str(raw["id"]),
        "name": str(raw["name"]),
        "description": str(raw.get("description") or ""),
        "privileges": [str(p) for p in raw.get("privileges") or []],
        "editable": bool(raw.get("editable", True)),
        "created": clock,
        "modified": clock,
    }


def _refuse_repeated_names(roles: dict[str, Doc], where: str) -> None:
    """Role names are unique regardless of case, the pre-built ones included, as createRole
    keeps them (ROLE_1001): a state that lists a custom `Viewer` beside the pre-built one
    would seed a portal no real organization can be."""
    seen: dict[str, str] = {}
    for role_id, role in roles.items():
        key = str(role["name"]).casefold()
        if key in seen:
            raise ValueError(
                f"{where}: roles {seen[key]!r} and {role_id!r} are both named"
                f" {role['name']!r}; role names are unique regardless of case"
            )
        seen[key] = role_id


def _prebuilt_roles(platform: Platform, clock: int) -> dict[str, Doc]:
    """Viewer and Data Editor, in every portal (a state may list them to change them)."""
    offered = privileges_for(platform)
    return {
        role.id: {
            "id": role.id,
            "name": role.name,
            "description": role.description,
            "privileges": [p for p in role.privileges if p in offered],
            "editable": False,
            "created": clock,
            "modified": clock,
        }
        for role in PREBUILT_ROLES
    }


def _user(raw: dict[str, Any], roles: dict[str, Doc], where: str, clock: int) -> Doc:
    role = str(raw.get("role") or "org_user")
    if role not in BUILTIN_ROLES and role not in roles:
        by_name = [rid for rid, r in roles.items() if r["name"].lower() == role.lower()]
        if not by_name:
            raise ValueError(f"{where}: user {raw.get('username')!r} has unknown role {role!r}")
        role = by_name[0]
    level = int(raw.get("level", 2))
    if level not in (1, 2):
        raise ValueError(f"{where}: user {raw.get('username')!r} level must be 1 or 2")
    return {
        "username": str(raw["username"]),
        "fullName": str(raw.get("fullName") or raw["username"]),
        "passwordHash": seed_hash(str(raw.get("password") or "")),
        "role": role,
        "level": level,
        "ownedItems": int(raw.get("ownedItems", 0)),
        "ownedGroups": int(raw.get("ownedGroups", 0)),
        "appLicenses": [str(a) for a in raw.get("appLicenses") or []],
        "created": clock,
        "disabled": bool(raw.get("disabled", False)),
        "access": _access(raw.get("access"), where, raw.get("username")),
        # Epoch ms of the last sign-in (ISO 8601 or ms in the state); -1: never signed in.
        "lastLogin": _last_login(raw.get("lastLogin"), where, raw.get("username")),
    }


def _access(value: object, where: str, username: object) -> str:
    """Who may see the member (`visibility`): private, org (the default) or public."""
    access = "org" if value is None else str(value)
    if access not in ACCESS_LEVELS:
        raise ValueError(f"{where}: user {username!r} access must be one of {ACCESS_LEVELS}")
    return access


def _last_login(value: object, where: str, username: object) -> int:
    if value is None or value == -1:
        return NEVER
    try:
        return parse_time(value)
    except ValueError as exc:
        raise ValueError(f"{where}: user {username!r} lastLogin: {exc}") from None


def _webhook(raw: dict[str, Any], clock: int) -> Doc:
    return {
        "id": str(raw["id"]),
        "name": str(raw.get("name") or raw["id"]),
        "active": bool(raw.get("active", True)),
        "payloadUrl": str(raw.get("payloadUrl") or "https://hooks.example.invalid/"),
        "events": [str(e) for e in raw.get("events") or ["/"]],
        "created": clock,
    }


def _task(raw: dict[str, Any], clock: int) -> Doc:
    return {
        "id": str(raw["id"]),
        "owner": str(raw["owner"]),
        "itemId": str(raw["itemId"]),
        "title": str(raw.get("title") or raw["id"]),
        "type": str(raw.get("type") or "ExecuteNotebook"),
        "runs": [
            {
                "runId": str(run["runId"]),
                "status": str(run.get("status") or "succeeded"),
                "created": parse_time(run["created"]) if run.get("created") else clock,
                "resourceFiles": [str(f) for f in run.get("resourceFiles") or []],
            }
            for run in raw.get("runs") or []
        ],
    }


def _collaboration(raw: dict[str, Any], keys: dict[str, str], clock: int) -> Doc:
    where = f"collaboration {raw.get('id')!r}"

    def portal_id(url_key: object) -> str:
        if str(url_key) not in keys:
            raise ValueError(f"{where}: unknown portal urlKey {url_key!r}")
        return keys[str(url_key)]

    workspaces = {}
    for ws in raw.get("workspaces") or []:
        config = ws.get("config") or {}
        workspaces[str(ws["id"])] = {
            "id": str(ws["id"]),
            "name": str(ws.get("name") or ws["id"]),
            "description": str(ws.get("description") or ""),
            "config": dict(config),
            "groupLinks": {
                portal_id(k): {
                    "portalGroupId": str(v.get("portalGroupId") or ""),
                    "enableRealtimeSync": bool(v.get("enableRealtimeSync", False)),
                    "copyFeatureServiceData": bool(v.get("copyFeatureServiceData", False)),
                    "enableFeatureServiceBidirectionalSync": bool(
                        v.get("enableFeatureServiceBidirectionalSync", False)
                    ),
                }
                for k, v in (ws.get("groupLinks") or {}).items()
            },
            "schedules": {
                portal_id(k): {
                    "startTime": parse_time(v.get("startTime", clock)),
                    "interval": int(v.get("interval", 24)),
                    "repeatCount": int(v.get("repeatCount", -1)),
                }
                for k, v in (ws.get("schedules") or {}).items()
            },
            "created": clock,
            "modified": clock,
        }
    return {
        "id": str(raw["id"]),
        "name": str(raw.get("name") or raw["id"]),
        "description": str(raw.get("description") or ""),
        "hostPortalId": portal_id(raw["host"]),
        "guests": [portal_id(g) for g in raw.get("guests") or []],
        "workspaces": workspaces,
        "invitations": {
            str(i["id"]): {
                "id": str(i["id"]),
                "status": str(i.get("status") or "host_created"),
                "guestPortalId": str(i.get("guestPortalId") or ""),
                "created": clock,
            }
            for i in raw.get("invitations") or []
        },
        "deletedAt": None,
        "created": clock,
        "modified": clock,
    }
