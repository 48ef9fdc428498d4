"""Writing members into the manifests: the exported Members document, adopting a member
(`orgctl adopt Member/<username>`), and declaring its role and level (a certification
campaign's revocations). Loaded when one of them runs: validate loads the kind, not the
writing of YAML (ruamel.yaml; tests/test_import_budget.py)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from reconciler.adopt.addresses import Address
from reconciler.adopt.adopter import added, outcome
from reconciler.adopt.files import ManifestFiles
from reconciler.adopt.merge import merge_declared, merge_fields
from reconciler.errors import UserError
from reconciler.export.documents import Document as Exported
from reconciler.export.documents import document
from reconciler.kinds.members.names import ADDRESS, NAME
from reconciler.manifest.writer import FlowMap, to_node
from reconciler.operations import OperationName, availability_problem
from reconciler.state import LiveState


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


def adopt_member(files: ManifestFiles, live: LiveState, address: Address) -> str:
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
