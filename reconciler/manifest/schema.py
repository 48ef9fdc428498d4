"""The manifest format as JSON Schema, generated from the models (so it cannot drift)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from reconciler.manifest import models

SCHEMA_ID = "https://orgctl.dev/schemas/orgctl-v1.schema.json"


def manifest_schema() -> dict[str, Any]:
    schema = TypeAdapter(models.AnyDocument).json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "orgctl manifest document (apiVersion orgctl/v1)",
        **schema,
    }


def schema_text() -> str:
    """Deterministic text: sorted keys, fixed indentation, one trailing newline."""
    return json.dumps(manifest_schema(), indent=2, sort_keys=True) + "\n"
