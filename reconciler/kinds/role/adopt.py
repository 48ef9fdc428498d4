"""Adopting a Role: the live role written into its document, or the document declared
absent once the portal no longer has it. Loaded when `orgctl adopt` runs: validate loads
the kind, not the editing of files (ruamel.yaml; tests/test_import_budget.py)."""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap

from reconciler import state
from reconciler.adopt.addresses import Address
from reconciler.adopt.adopter import added, outcome
from reconciler.adopt.files import ManifestFiles
from reconciler.adopt.merge import merge_declared
from reconciler.errors import UserError
from reconciler.kinds.role.document import NAME, role_document
from reconciler.manifest.writer import to_node
from reconciler.names import ROLE_NAMES
from reconciler.state import LiveState


def adopt_role(files: ManifestFiles, live: LiveState, address: Address) -> str:
    role = ROLE_NAMES.lookup(address.key, live.roles)
    found = files.find(NAME, address.key, rule=ROLE_NAMES)
    if role is not None and not role.editable:
        raise UserError(f"{address}: a pre-built role that cannot be edited; nothing to adopt")
    if found is None:
        if role is None:
            raise UserError(f"{address}: neither declared in the manifests nor on the portal")
        return added(address, files.append(role_document(role)))
    path, document = found
    spec = document.setdefault("spec", CommentedMap())
    metadata = document.get("metadata")
    role = role or _renamed_from(live, metadata)
    if role is None:
        return outcome(address, path, _mark_absent(spec), files)
    # The live role in another case is this role: its spelling is the portal's value.
    spelled = _spell_as_live(metadata, role.name)
    live_spec = role_document(role)["spec"]
    if spec.get("state") == "absent":
        del spec["state"]
        for key, value in live_spec.items():
            spec[key] = to_node(value)
        return outcome(address, path, [*spelled, "state", *live_spec], files)
    return outcome(address, path, [*spelled, *merge_declared(spec, live_spec)], files)


def _spell_as_live(metadata: Any, live_name: str) -> list[str]:
    """Write the live spelling of the role's name, unless it is spelled so, or the live
    role is a previous name (a rename the manifests still want)."""
    if not isinstance(metadata, dict) or metadata.get("name") == live_name:
        return []
    if not ROLE_NAMES.same(str(metadata.get("name")), live_name):
        return []
    metadata["name"] = live_name
    return ["name"]


def _renamed_from(live: LiveState, metadata: Any) -> state.Role | None:
    """The one live role still named like one of the document's previousNames: a rename
    not yet applied, whose live values are the role's (its name and previousNames stay)."""
    listed = metadata.get("previousNames") if isinstance(metadata, dict) else None
    previous = ROLE_NAMES.keys(str(name) for name in listed or ())
    found = [role for name, role in live.roles.items() if ROLE_NAMES.key(name) in previous]
    return found[0] if len(found) == 1 else None


def _mark_absent(spec: CommentedMap) -> list[str]:
    """The portal no longer has the role: declare it absent (an absent role holds nothing)."""
    if spec.get("state") == "absent":
        return []
    for key in ("description", "privileges"):
        spec.pop(key, None)
    spec["state"] = "absent"
    return ["state"]
