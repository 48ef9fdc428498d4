"""Accept what the portal holds: each adopted resource's live value is written into the
manifest document that declares it, or into a new document where its kind lives.

The live values come from export's documents, so an adopted resource reads exactly as an
exported one would, and plans empty for the same reasons.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from reconciler.adopt.addresses import Address
from reconciler.adopt.files import ManifestFiles
from reconciler.adopt.merge import merge_declared, merge_fields
from reconciler.errors import UserError
from reconciler.export import documents as docs
from reconciler.manifest.writer import FlowMap, to_node
from reconciler.state import LiveState


def adopt(files: ManifestFiles, live: LiveState, address: Address) -> str:
    """Write the live value of `address` into `files`; a sentence saying what changed."""
    if address.kind == "Role":
        return _role(files, live, address)
    if address.kind == "Member":
        return _member(files, live, address)
    if address.kind == "WebhookSettings":
        return _settings(files, live, address)
    return _collaboration(files, live, address)


def _outcome(address: Address, path: Path, fields: list[str], files: ManifestFiles) -> str:
    if not fields:
        return f"{address}: already as the portal has it"
    files.touch(path)
    return f"{address}: {', '.join(fields)} written to {path}"


def _added(address: Address, path: Path) -> str:
    return f"{address}: added to {path}"


# --- roles -----------------------------------------------------------------------------------


def _role(files: ManifestFiles, live: LiveState, address: Address) -> str:
    role = live.roles.get(address.key)
    found = files.find("Role", address.key)
    if role is not None and not role.editable:
        raise UserError(f"{address}: a pre-built role that cannot be edited; nothing to adopt")
    if found is None:
        if role is None:
            raise UserError(f"{address}: neither declared in the manifests nor on the portal")
        return _added(address, files.append(docs.role_document(role)))
    path, document = found
    spec = document.setdefault("spec", CommentedMap())
    if role is None:
        return _outcome(address, path, _mark_absent(spec), files)
    live_spec = docs.role_document(role)["spec"]
    if spec.get("state") == "absent":
        del spec["state"]
        for key, value in live_spec.items():
            spec[key] = to_node(value)
        return _outcome(address, path, ["state", *live_spec], files)
    return _outcome(address, path, merge_declared(spec, live_spec), files)


def _mark_absent(spec: CommentedMap) -> list[str]:
    """The portal no longer has the role: declare it absent (an absent role holds nothing)."""
    if spec.get("state") == "absent":
        return []
    for key in ("description", "privileges"):
        spec.pop(key, None)
    spec["state"] = "absent"
    return ["state"]


# --- members ---------------------------------------------------------------------------------


def _member(files: ManifestFiles, live: LiveState, address: Address) -> str:
    username = address.key
    declared = next(
        (
            (path, document)
            for path, document in files.documents("Members")
            if username in ((document.get("spec") or {}).get("members") or {})
        ),
        None,
    )
    if username not in live.members:
        where = f" (declared in {declared[0]})" if declared else ""
        raise UserError(
            f"{address}: not a member of the portal{where}; a manifest cannot declare a"
            " member away, so remove the entry by hand"
        )
    entry = docs.member_entry(live, username)
    if declared is None:
        return _added(address, _add_member(files, username, entry))
    path, document = declared
    node = document["spec"]["members"][username]
    if not isinstance(node, CommentedMap):  # `alice:` with nothing declared
        return _outcome(address, path, [], files)
    return _outcome(address, path, merge_declared(node, entry), files)


def _add_member(files: ManifestFiles, username: str, entry: FlowMap) -> Path:
    first = next(iter(files.documents("Members")), None)
    if first is None:
        return files.append(
            docs.document("Members", {"name": "members"}, {"members": {username: entry}})
        )
    path, document = first
    document["spec"]["members"][username] = to_node(entry)
    files.touch(path)
    return path


# --- webhook settings ------------------------------------------------------------------------


def _settings(files: ManifestFiles, live: LiveState, address: Address) -> str:
    document = docs.webhook_settings_document(live)
    if document is None:
        reason = live.webhookSettingsUnread or "the portal did not tell them"
        raise UserError(f"{address}: the live settings are unknown ({reason})")
    found = next(iter(files.documents("WebhookSettings")), None)
    if found is None:
        return _added(address, files.append(document))
    path, declared = found
    return _outcome(address, path, merge_declared(declared["spec"], document["spec"]), files)


# --- collaborations and workspaces -----------------------------------------------------------


def _collaboration(files: ManifestFiles, live: LiveState, address: Address) -> str:
    document = _live_collaboration(live, address.key)
    found = files.find("Collaboration", address.key)
    if found is None:
        if document is None or address.kind == "Workspace":
            raise UserError(f"{address}: not declared in the manifests; adopt the collaboration")
        return _added(address, files.append(document))
    path, declared = found
    spec = declared.setdefault("spec", CommentedMap())
    if document is None:
        raise UserError(
            f"{address}: the portal no longer has collaboration {address.key}; declare it"
            f" `state: absent` in {path} or remove it by hand"
        )
    live_spec: dict[str, Any] = document["spec"]
    if address.kind == "Workspace":
        return _workspace(files, path, spec, live_spec, address)
    workspaces = spec.get("workspaces")
    if not isinstance(workspaces, CommentedMap):
        workspaces = CommentedMap()
    changed = [
        f"workspaces.{wid}.{key}"
        for wid in list(workspaces)
        for key in _merge_workspace(workspaces, wid, live_spec)
    ]
    if "invalidInvitations" in spec:
        live_invalid = {"invalidInvitations": live_spec.get("invalidInvitations", [])}
        changed += merge_fields(spec, live_invalid, ["invalidInvitations"])
    return _outcome(address, path, changed, files)


def _workspace(
    files: ManifestFiles,
    path: Path,
    spec: CommentedMap,
    live_spec: dict[str, Any],
    address: Address,
) -> str:
    live_workspaces = live_spec.get("workspaces") or {}
    if address.workspace not in live_workspaces:
        raise UserError(f"{address}: the portal has no such workspace")
    workspaces = spec.setdefault("workspaces", CommentedMap())
    if address.workspace not in workspaces:
        workspaces[address.workspace] = to_node(live_workspaces[address.workspace])
        files.touch(path)
        return _added(address, path)
    return _outcome(
        address, path, _merge_workspace(workspaces, address.workspace, live_spec), files
    )


def _merge_workspace(workspaces: CommentedMap, wid: str, live_spec: dict[str, Any]) -> list[str]:
    node = workspaces[wid]
    live_workspace = (live_spec.get("workspaces") or {}).get(wid)
    if not isinstance(node, CommentedMap) or live_workspace is None:
        return []
    return merge_declared(node, live_workspace)


def _live_collaboration(live: LiveState, cid: str) -> dict[str, Any] | None:
    if cid not in live.collaborations:
        return None
    subset = LiveState(live.portal, collaborations={cid: live.collaborations[cid]})
    return docs.collaboration_documents(subset).documents[0]
