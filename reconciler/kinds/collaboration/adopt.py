"""Collaboration's part of `orgctl adopt`: a live collaboration or one workspace of it
written into its manifest in place, as export would write it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from reconciler.adopt.addresses import Address
from reconciler.adopt.adopter import added, outcome
from reconciler.adopt.files import ManifestFiles
from reconciler.adopt.merge import merge_declared, merge_fields
from reconciler.errors import UserError
from reconciler.kinds.collaboration.export import collaboration_documents
from reconciler.kinds.collaboration.slots import LIVE
from reconciler.manifest.writer import to_node
from reconciler.state import LiveState


def adopt_collaboration(files: ManifestFiles, live: LiveState, address: Address) -> str:
    document = _live_collaboration(live, address.key)
    found = files.find("Collaboration", address.key, key="id")
    if found is None:
        if document is None or address.kind == "Workspace":
            raise UserError(f"{address}: not declared in the manifests; adopt the collaboration")
        return added(address, files.append(document))
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
    return outcome(address, path, changed, files)


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
        return added(address, path)
    return outcome(address, path, _merge_workspace(workspaces, address.workspace, live_spec), files)


def _merge_workspace(workspaces: CommentedMap, wid: str, live_spec: dict[str, Any]) -> list[str]:
    node = workspaces[wid]
    live_workspace = (live_spec.get("workspaces") or {}).get(wid)
    if not isinstance(node, CommentedMap) or live_workspace is None:
        return []
    return merge_declared(node, live_workspace)


def _live_collaboration(live: LiveState, cid: str) -> dict[str, Any] | None:
    found = live.get(LIVE).get(cid)
    if found is None:
        return None
    subset = LiveState(live.portal)
    subset.put(LIVE, {cid: found})
    return collaboration_documents(subset).documents[0]
