"""The manifest format as JSON Schema, generated from the models (so it cannot drift)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from reconciler import catalog
from reconciler.kind import registered
from reconciler.manifest import models

SCHEMA_ID = "https://orgctl.dev/schemas/orgctl-v1.schema.json"


def manifest_schema() -> dict[str, Any]:
    union = models.document_union(kind.model for kind in registered())
    schema = TypeAdapter(union).json_schema()
    schema = _with_privilege_refs(schema)
    schema["$defs"]["Privilege"] = _privilege_schema()
    _limit_role_name(schema["$defs"]["Role"])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "orgctl manifest document (apiVersion orgctl/v1)",
        **schema,
    }


def schema_text() -> str:
    """Deterministic text: sorted keys, fixed indentation, one trailing newline."""
    return json.dumps(manifest_schema(), indent=2, sort_keys=True) + "\n"


def _with_privilege_refs(node: Any) -> Any:
    """Every `PRIVILEGE_MARK` replaced by a reference to the Privilege definition."""
    if node == models.PRIVILEGE_MARK:
        return {"$ref": "#/$defs/Privilege"}
    if isinstance(node, dict):
        return {key: _with_privilege_refs(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_with_privilege_refs(value) for value in node]
    return node


def _privilege_schema() -> dict[str, Any]:
    """The catalog's privileges as an enum an editor completes, each with what it grants
    and where it exists (`enumDescriptions`: VS Code and yaml-language-server)."""
    privileges = sorted(catalog.PRIVILEGES.values(), key=lambda p: p.id)
    return {
        "type": "string",
        "description": "a privilege of the catalog (README: Role)",
        "enum": [p.id for p in privileges],
        "enumDescriptions": [_described(p) for p in privileges],
        "markdownEnumDescriptions": [_described(p) for p in privileges],
    }


def _described(privilege: catalog.Privilege) -> str:
    where = [
        *(["hosted-cloud"] if privilege.cloud else []),
        *(
            [
                f"self-hosted {privilege.self_hosted_since}+"
                if privilege.self_hosted_since
                else "self-hosted"
            ]
            if privilege.self_hosted
            else []
        ),
    ]
    return f"{privilege.grants} ({privilege.group}; {', '.join(where)})"


def _limit_role_name(role: dict[str, Any]) -> None:
    """A role's name is at most ROLE_NAME_MAX characters; other kinds' names are not, so
    the limit is laid over the shared metadata for Role alone."""
    role["properties"]["metadata"] = {
        "allOf": [
            role["properties"]["metadata"],
            {"properties": {"name": {"maxLength": catalog.ROLE_NAME_MAX}}},
        ]
    }
