"""The committed schema is current, and every example is valid for orgctl and the schema."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from reconciler.manifest.schema import schema_text
from tests.manifest.conftest import EXAMPLES, REPO, run_cli

EXAMPLE_SETS = ["hq", "field", "cloud"]
SCHEMA_FILE = REPO / "schemas" / "orgctl-v1.schema.json"
MODELINE = "# yaml-language-server: $schema=../../schemas/orgctl-v1.schema.json"


def test_committed_schema_is_up_to_date() -> None:
    assert SCHEMA_FILE.read_text() == schema_text(), (
        "schemas/orgctl-v1.schema.json is out of date: run `make schema` and commit it"
    )


def test_schema_command_prints_json_with_one_branch_per_kind() -> None:
    result = run_cli("schema")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == {
        "Portal",
        "Role",
        "Members",
        "Collaboration",
        "WebhookSettings",
        "OrganizationWebhooks",
        "TaskRunRetention",
    }
    assert len(schema["oneOf"]) == 7
    for ref in mapping.values():
        definition = _resolve(schema, ref)
        assert definition["additionalProperties"] is False
        assert set(definition["required"]) >= {"apiVersion", "kind", "metadata"}


@pytest.mark.parametrize("name", EXAMPLE_SETS)
def test_each_example_set_validates(name: str) -> None:
    result = run_cli("validate", str(EXAMPLES / name))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("name", EXAMPLE_SETS)
def test_each_example_file_names_the_schema(name: str) -> None:
    files = sorted((EXAMPLES / name).glob("*.yaml"))
    assert files
    for file in files:
        assert file.read_text().splitlines()[0] == MODELINE, file


def _example_documents() -> list[tuple[str, Any]]:
    found = []
    # Only the manifest sets: examples/ also holds the demo service state and CI files.
    files = sorted(f for name in EXAMPLE_SETS for f in (EXAMPLES / name).rglob("*.yaml"))
    for file in files:
        for index, document in enumerate(YAML(typ="safe").load_all(file.read_text())):
            found.append((f"{file.relative_to(EXAMPLES)}#{index}", document))
    return found


@pytest.mark.parametrize(("where", "document"), _example_documents())
def test_each_example_document_matches_the_schema(where: str, document: Any) -> None:
    schema = json.loads(SCHEMA_FILE.read_text())
    branch = _resolve(schema, schema["discriminator"]["mapping"][document["kind"]])
    assert _errors(schema, branch, document, "") == [], where


def test_the_schema_check_itself_refuses_bad_documents() -> None:
    schema = json.loads(SCHEMA_FILE.read_text())
    role = _resolve(schema, "#/$defs/Role")
    good = {"apiVersion": "orgctl/v1", "kind": "Role", "metadata": {"name": "X"}, "spec": {}}
    assert _errors(schema, role, good, "") == []
    assert _errors(schema, role, {**good, "extra": 1}, "")
    assert _errors(schema, role, {**good, "spec": {"description": "d" * 251}}, "")
    assert _errors(schema, role, {**good, "apiVersion": "v2"}, "")


# A small JSON Schema checker for the keywords pydantic emits (the project carries no
# jsonschema dependency): $ref, type, const, enum, anyOf, properties, required,
# additionalProperties, items, maxLength/minLength, minimum/maximum.


def _resolve(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    node: Any = schema
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    result: dict[str, Any] = node
    return result


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _errors(root: dict[str, Any], node: dict[str, Any], value: Any, at: str) -> list[str]:
    if isinstance(value, datetime):
        value = value.isoformat()
    if "$ref" in node:
        return _errors(root, _resolve(root, node["$ref"]), value, at)
    if "anyOf" in node:
        options = [_errors(root, option, value, at) for option in node["anyOf"]]
        return [] if any(not o for o in options) else [f"{at}: matches no option"]
    expected = node.get("type")
    if expected:
        is_bool = isinstance(value, bool)
        if not isinstance(value, _TYPES[expected]) or (is_bool and expected != "boolean"):
            return [f"{at}: not {expected}"]
    if "const" in node and value != node["const"]:
        return [f"{at}: not {node['const']!r}"]
    if "enum" in node and value not in node["enum"]:
        return [f"{at}: not in {node['enum']}"]
    errors: list[str] = []
    if isinstance(value, str):
        if len(value) > node.get("maxLength", len(value)):
            errors.append(f"{at}: too long")
        if len(value) < node.get("minLength", 0):
            errors.append(f"{at}: too short")
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    if numeric and not node.get("minimum", value) <= value <= node.get("maximum", value):
        errors.append(f"{at}: out of range")
    if isinstance(value, list) and "items" in node:
        for index, item in enumerate(value):
            errors += _errors(root, node["items"], item, f"{at}[{index}]")
    if isinstance(value, dict):
        errors += _object_errors(root, node, value, at)
    return errors


def _object_errors(
    root: dict[str, Any], node: dict[str, Any], value: dict[str, Any], at: str
) -> list[str]:
    errors = [f"{at}.{key}: missing" for key in node.get("required", []) if key not in value]
    properties = node.get("properties", {})
    extra = node.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            errors += _errors(root, properties[key], item, f"{at}.{key}")
        elif extra is False:
            errors.append(f"{at}.{key}: not allowed")
        elif isinstance(extra, dict):
            errors += _errors(root, extra, item, f"{at}.{key}")
    return errors


def test_missing_path_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    done = subprocess.run(
        [sys.executable, "-m", "reconciler", "validate", str(missing)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 1
    assert f"{missing}: no such file or folder" in done.stderr
    assert "Traceback" not in done.stderr
