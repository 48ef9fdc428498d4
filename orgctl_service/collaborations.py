"""Distributed collaborations (docs/rules.md §4.4-§4.8, §4.10): reads, host and guest writes, and
the timing of a host's deletion reaching its guests.

A collaboration the host deleted is gone from the host at once and from each guest at
the guest's next content refresh: the next trigger, strictly after the deletion, of the
guest's job schedule on any workspace of the collaboration; a guest with no schedule left
refreshes at the next UTC midnight after the deletion.
"""

from __future__ import annotations

import json
from typing import Any

from orgctl_service.accounts import default_admins
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, bad_request, not_found
from orgctl_service.params import page
from orgctl_service.rules import check_portal_id
from orgctl_service.timeline import next_day_boundary_after, next_trigger_after, schedule_at
from orgctl_service.wire import start_time_in_seconds
from orgctl_service.world import Doc, World
from reconciler.catalog import (
    MAX_SIZE_MB,
    WORKSPACE_DESCRIPTION_MAX,
    WORKSPACE_NAME_MAX,
    schedule_problem,
)
from reconciler.text_rules import text_problem

# --- visibility ------------------------------------------------------------------------


def guest_refresh_time(collaboration: Doc, guest_id: str) -> int:
    deleted = int(collaboration["deletedAt"])
    triggers = [
        moment
        for ws in collaboration["workspaces"].values()
        if guest_id in ws["schedules"] and not ws["schedules"][guest_id].get("paused")
        for moment in [next_trigger_after(ws["schedules"][guest_id], deleted)]
        if moment is not None
    ]
    return min(triggers) if triggers else next_day_boundary_after(deleted)


def visible(collaboration: Doc, portal_id: str, now: int) -> bool:
    deleted = collaboration.get("deletedAt")
    if portal_id == collaboration["hostPortalId"]:
        return deleted is None
    if portal_id not in collaboration["guests"]:
        return False
    return deleted is None or now < guest_refresh_time(collaboration, portal_id)


def addressed(ctx: Ctx) -> Doc:
    """The collaboration the path names, as this portal sees it (404 otherwise)."""
    check_portal_id(ctx)
    collaboration = ctx.world.collaborations.get(ctx.args["collaborationId"])
    if collaboration is None or not visible(collaboration, ctx.portal["id"], ctx.now):
        raise not_found(f"Collaboration '{ctx.args['collaborationId']}' not found")
    return collaboration


def _workspace(ctx: Ctx, collaboration: Doc) -> Doc:
    workspace = collaboration["workspaces"].get(ctx.args["workspaceId"])
    if workspace is None:
        raise not_found(f"Workspace '{ctx.args['workspaceId']}' not found")
    return workspace  # type: ignore[no-any-return]


def _addressed_workspace(ctx: Ctx) -> Doc:
    return _workspace(ctx, addressed(ctx))


# --- reads ------------------------------------------------------------------------------


def collaboration_view(collaboration: Doc, world: World) -> dict[str, Any]:
    return {
        "id": collaboration["id"],
        "name": collaboration["name"],
        "description": collaboration["description"],
        "collaborationHostPortalId": collaboration["hostPortalId"],
        "config": {"ownerUsername": owner(collaboration, world)},
        "created": collaboration["created"],
        "modified": collaboration["modified"],
    }


def owner(collaboration: Doc, world: World) -> str:
    """Who owns a collaboration (the reference's `config.ownerUsername`): the host's
    first default administrator."""
    host = world.portals.get(collaboration["hostPortalId"])
    admins = [u["username"] for u in default_admins(host)] if host else []
    return str(admins[0]) if admins else ""


def list_collaborations(ctx: Ctx) -> dict[str, Any]:
    check_portal_id(ctx)
    rows = [
        collaboration_view(c, ctx.world)
        for c in sorted(ctx.world.collaborations.values(), key=lambda c: (c["created"], c["id"]))
        if visible(c, ctx.portal["id"], ctx.now)
    ]
    return page(ctx.params, rows, "collaborations")


def one_collaboration(ctx: Ctx) -> dict[str, Any]:
    return collaboration_view(addressed(ctx), ctx.world)


def workspace_view(collaboration: Doc, workspace: Doc, own_id: str) -> dict[str, Any]:
    links = []
    for portal_id, link in workspace["groupLinks"].items():
        entry: dict[str, Any] = {
            "portalId": portal_id,
            "accessMode": "sendAndReceive",
            "config": {
                k: link[k]
                for k in (
                    "enableRealtimeSync",
                    "copyFeatureServiceData",
                    "enableFeatureServiceBidirectionalSync",
                )
            },
        }
        if portal_id == own_id:  # only one's own group is shown (api-notes)
            entry["portalGroupId"] = link["portalGroupId"]
            entry["portalGroupName"] = link["portalGroupId"]
        links.append(entry)
    return {
        "id": workspace["id"],
        "name": workspace["name"],
        "description": workspace["description"],
        "collaborationId": collaboration["id"],
        "lastSyncSuccess": None,
        "config": dict(workspace["config"]),
        "participantGroupLinks": links,
        "created": workspace["created"],
        "modified": workspace["modified"],
    }


def list_workspaces(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    rows = [
        workspace_view(collaboration, ws, ctx.portal["id"])
        for ws in sorted(collaboration["workspaces"].values(), key=lambda w: w["id"])
    ]
    return page(ctx.params, rows, "workspaces")


def one_workspace(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    return workspace_view(collaboration, _workspace(ctx, collaboration), ctx.portal["id"])


def read_schedule(ctx: Ctx) -> dict[str, Any]:
    schedule = _own_schedule(ctx, _addressed_workspace(ctx))
    view = schedule_at(schedule, ctx.now)
    return {
        "startTime": schedule["startTime"],
        "interval": schedule["interval"],
        "repeatCount": schedule["repeatCount"],
        "timesTriggered": view.times_triggered,
        "nextFireTime": None if schedule.get("paused") else view.next_fire_time,
        "state": "PAUSED" if schedule.get("paused") else "NORMAL",
    }


def participants(ctx: Ctx) -> dict[str, Any]:
    """Every portal of the collaboration, host first, in the vendor's participant shape."""
    collaboration = addressed(ctx)
    rows = [
        participant_view(ctx, collaboration, portal_id)
        for portal_id in [collaboration["hostPortalId"], *collaboration["guests"]]
    ]
    return page(ctx.params, rows, "participants")


def one_participant(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    portal_id = ctx.args["participantId"]
    if portal_id not in (collaboration["hostPortalId"], *collaboration["guests"]):
        raise not_found(f"Participant '{portal_id}' not found in this collaboration")
    return participant_view(ctx, collaboration, portal_id)


def participant_view(ctx: Ctx, collaboration: Doc, portal_id: str) -> dict[str, Any]:
    """A participant as the vendor's participants page shows one: the portal's address
    (on this server, beside the caller's own), its kind, its role as `Host` or `Guest`
    and its state `active`; `config` holds the contact the host knows it by."""
    portal = ctx.world.portals.get(portal_id, {})
    host = portal_id == collaboration["hostPortalId"]
    contact = _default_admin_name(portal)
    return {
        "collaborationId": collaboration["id"],
        "portalInfo": {
            "id": portal_id,
            "url": _portal_url(ctx, portal),
            "name": portal.get("name", ""),
            "description": portal.get("description", ""),
            "portalType": PORTAL_TYPES.get(portal.get("deployment", ""), "onpremises"),
        },
        "collaborationRole": "Host" if host else "Guest",
        "status": "active",
        "config": {
            "contactEmailAddress": f"{contact}@{portal.get('urlKey', '')}.example.invalid",
            "contactFirstname": contact,
            "contactLastname": "",
            "canRunAgent": True,
            "portalVersion": portal.get("version", ""),
            "lastConfigSync": collaboration["modified"],
        },
        "created": collaboration["created"],
        "modified": collaboration["modified"],
    }


# `portalType` as the vendor's participants page names a self-hosted portal; a
# hosted-cloud organization is `online`.
PORTAL_TYPES = {"self-hosted": "onpremises", "hosted-cloud": "online"}


def _portal_url(ctx: Ctx, portal: Doc) -> str:
    """The participant's address: its key on the server the caller reached."""
    server = ctx.base_url.rsplit("/", 1)[0] if ctx.base_url else ""
    return f"{server}/{portal.get('urlKey', '')}"


def _default_admin_name(portal: Doc) -> str:
    admins = sorted(
        u["username"] for u in (portal.get("users") or {}).values() if u["role"] == "org_admin"
    )
    return str(admins[0]) if admins else ""


def invitation_view(collaboration: Doc, invitation: Doc) -> dict[str, Any]:
    return {
        "id": invitation["id"],
        "collaborationId": collaboration["id"],
        "hostPortalId": collaboration["hostPortalId"],
        "guestPortalId": invitation["guestPortalId"],
        "guestPortalUrl": "",
        "status": invitation["status"],
        # What the host hands the guest, as the reference shows it: the file's name and
        # the invitation request it holds, as JSON text.
        "config": {"invitationRequestFilename": f"collaboration-{invitation['id']}.invite"},
        "invitationString": json.dumps(
            {
                "invitationRequest": {
                    "id": invitation["id"],
                    "collaborationId": collaboration["id"],
                    "collaborationName": collaboration["name"],
                    "collaborationDescription": collaboration["description"],
                }
            }
        ),
        "created": invitation["created"],
    }


def invitations(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    rows = [
        invitation_view(collaboration, inv)
        for inv in sorted(collaboration["invitations"].values(), key=lambda i: i["id"])
    ]
    return page(ctx.params, rows, "collaborationInvitations")


def one_invitation(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    invitation = collaboration["invitations"].get(ctx.args["invitationId"])
    if invitation is None:
        raise not_found(f"Invitation '{ctx.args['invitationId']}' not found")
    return invitation_view(collaboration, invitation)


# --- host writes ------------------------------------------------------------------------


def delete_collaboration(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    collaboration["deletedAt"] = ctx.now
    ctx.touch_collaborations()
    return {"success": True}


def update_info(ctx: Ctx) -> dict[str, Any]:
    workspace = _addressed_workspace(ctx)
    changes = _info_changes(ctx)
    config_changes = changes.pop("config")
    workspace.update(changes)
    workspace["config"].update(config_changes)
    workspace["modified"] = ctx.now
    ctx.touch_collaborations()
    return {"success": True}


def _info_changes(ctx: Ctx) -> dict[str, Any]:
    params = ctx.params
    changes: dict[str, Any] = {"config": {}}
    name = params.text("name")
    if name is not None:
        if not name.strip() or len(name) > WORKSPACE_NAME_MAX:
            raise ApiError(
                400, "COLL_1001", f"Workspace name must be 1 to {WORKSPACE_NAME_MAX} characters"
            )
        _check_text("name", name, multiline=False)
        changes["name"] = name
    description = params.text("description")
    if description is not None:
        if len(description) > WORKSPACE_DESCRIPTION_MAX:
            raise ApiError(
                400,
                "COLL_1001",
                f"Workspace description exceeds {WORKSPACE_DESCRIPTION_MAX} characters",
            )
        _check_text("description", description, multiline=True)
        changes["description"] = description
    for size in ("maxItemSizeInMB", "maxReplicationPackageSizeInMB"):
        value = params.number(size)
        if value is not None:
            if not 0 <= value <= MAX_SIZE_MB:
                raise ApiError(400, "COLL_1001", f"'{size}' must be from 0 to {MAX_SIZE_MB} MB")
            changes["config"][size] = int(value) if value.is_integer() else value
    copy_by_ref = params.boolean("copyByRefIfCopyFail")
    if copy_by_ref is not None:
        changes["config"]["copyByRefIfCopyFail"] = copy_by_ref
    if params.given("config"):
        legacy = params.json_value("config")
        if not isinstance(legacy, dict):
            raise bad_request("'config' must be a JSON object")
        changes["config"].update(legacy)
    return changes


def _check_text(field: str, value: str, multiline: bool) -> None:
    problem = text_problem(field, value, multiline)
    if problem:
        raise ApiError(400, "COLL_1001", problem)


def invalidate_invitation(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    invitation = collaboration["invitations"].get(ctx.args["invitationId"])
    if invitation is None:
        raise not_found(f"Invitation '{ctx.args['invitationId']}' not found")
    invitation["status"] = "invalidated"
    ctx.touch_collaborations()
    return {"success": True}


def import_invitation_response(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    # A form field, or the file the vendor's client uploads as multipart.
    given = "invitationResponseFile" if ctx.params.given("invitationResponseFile") else None
    response = ctx.params.json_value(given or "invitationResponse", required=True)
    if not isinstance(response, dict) or not all(
        isinstance(response.get(k), str) and response.get(k)
        for k in ("invitationId", "guestPortalId")
    ):
        raise bad_request(
            "'invitationResponse' must be a JSON object with invitationId and guestPortalId"
        )
    invitation = collaboration["invitations"].get(response["invitationId"])
    if invitation is None:
        raise not_found(f"Invitation '{response['invitationId']}' not found")
    if invitation["status"] == "invalidated":
        raise ApiError(
            400,
            "COLL_1004",
            f"The invitation '{invitation['id']}' is invalid: it was invalidated by the host;"
            " the response was not imported.",
        )
    guest = str(response["guestPortalId"])
    if guest not in ctx.world.portals or guest == collaboration["hostPortalId"]:
        raise bad_request(f"Guest portal '{guest}' is not known to this server")
    if guest not in collaboration["guests"]:
        collaboration["guests"].append(guest)
    invitation["status"] = "guest_accepted"
    invitation["guestPortalId"] = guest
    ctx.touch_collaborations()
    return {"success": True}


# --- guest writes ----------------------------------------------------------------------


def update_schedule(ctx: Ctx) -> dict[str, Any]:
    workspace = _addressed_workspace(ctx)
    start = ctx.params.integer("startTime")
    start_time_in_seconds(start)
    interval = ctx.params.integer("interval")
    repeat = ctx.params.integer("repeatCount")
    problem = schedule_problem(interval, repeat, start)
    if problem:
        raise ApiError(400, "COLL_1002", problem)
    workspace["schedules"][ctx.portal["id"]] = {
        "startTime": ctx.now if start is None else start,
        "interval": 24 if interval is None else interval,
        "repeatCount": -1 if repeat is None else repeat,
    }
    ctx.touch_collaborations()
    return {"success": True}


def update_group_link(ctx: Ctx) -> dict[str, Any]:
    workspace = _addressed_workspace(ctx)
    link = dict(
        workspace["groupLinks"].get(ctx.portal["id"])
        or {"portalGroupId": "", "enableRealtimeSync": False, "copyFeatureServiceData": False}
    )
    group = ctx.params.text("portalGroupId")
    if group is not None and group.strip():
        problem = text_problem("portalGroupId", group.strip())
        if problem:
            raise bad_request(problem)
        link["portalGroupId"] = group.strip()
    if not link["portalGroupId"]:
        raise ApiError(400, "COLL_1003", "'portalGroupId' is required to link a group")
    for flag in ("enableRealtimeSync", "copyFeatureServiceData", "copyByRefIfCopyFail"):
        value = ctx.params.boolean(flag)
        if value is not None:
            link[flag] = value
    link["enableFeatureServiceBidirectionalSync"] = bool(
        ctx.params.boolean("enableFeatureServiceBidirectionalSync")
    )
    if link["enableFeatureServiceBidirectionalSync"] and not link["copyFeatureServiceData"]:
        raise ApiError(
            400,
            "COLL_1003",
            "enableFeatureServiceBidirectionalSync may be true only when"
            " copyFeatureServiceData is true",
        )
    workspace["groupLinks"][ctx.portal["id"]] = link
    ctx.touch_collaborations()
    return {"success": True}


def pause_schedule(ctx: Ctx) -> dict[str, Any]:
    """Suspend this guest's job on the workspace; it keeps its settings until resumed."""
    return _set_paused(ctx, True)


def resume_schedule(ctx: Ctx) -> dict[str, Any]:
    return _set_paused(ctx, False)


def delete_schedule(ctx: Ctx) -> dict[str, Any]:
    """Remove this guest's job on the workspace (it syncs no more until a new one)."""
    workspace = _addressed_workspace(ctx)
    _own_schedule(ctx, workspace)
    del workspace["schedules"][ctx.portal["id"]]
    ctx.touch_collaborations()
    return {"success": True}


def _set_paused(ctx: Ctx, paused: bool) -> dict[str, Any]:
    workspace = _addressed_workspace(ctx)
    _own_schedule(ctx, workspace)["paused"] = paused
    ctx.touch_collaborations()
    return {"success": True}


def _own_schedule(ctx: Ctx, workspace: Doc) -> Doc:
    schedule = workspace["schedules"].get(ctx.portal["id"])
    view = schedule_at(schedule, ctx.now) if schedule else None
    if schedule is None or view is None or view.deleted:
        raise not_found(f"No job schedule exists for workspace '{workspace['id']}'")
    return schedule  # type: ignore[no-any-return]


def remove_participation(ctx: Ctx) -> dict[str, Any]:
    collaboration = addressed(ctx)
    guest = ctx.portal["id"]
    collaboration["guests"].remove(guest)
    for workspace in collaboration["workspaces"].values():
        workspace["groupLinks"].pop(guest, None)
        workspace["schedules"].pop(guest, None)
    ctx.touch_collaborations()
    return {"success": True}
