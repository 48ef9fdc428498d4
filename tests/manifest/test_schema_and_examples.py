"""The committed schema is current, and every example is valid for orgctl and the schema."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any, get_args

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel
from ruamel.yaml import YAML

from reconciler import kind as registry
from reconciler.manifest.models import Portal
from reconciler.manifest.schema import schema_text
from tests.manifest.conftest import EXAMPLES, REPO, run_cli

EXAMPLE_SETS = ["hq", "field", "cloud", "reviews", "policies"]
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
    kinds = {"Portal", *(kind.name for kind in registry.registered())}
    assert set(mapping) == kinds
    assert len(schema["oneOf"]) == len(kinds)
    for ref in mapping.values():
        definition = schema["$defs"][ref.removeprefix("#/$defs/")]
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


def _errors(document: Any) -> list[str]:
    schema = json.loads(SCHEMA_FILE.read_text())
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    # YAML timestamps are strings to an editor; the schema says `format: date-time`.
    plain = json.loads(json.dumps(document, default=_isoformat))
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(plain)]


def _isoformat(value: Any) -> str:
    if isinstance(value, datetime | date):  # a date: a campaign's due, a grant's until
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


@pytest.mark.parametrize(("where", "document"), _example_documents())
def test_each_example_document_matches_the_schema(where: str, document: Any) -> None:
    assert _errors(document) == [], where


def test_the_schema_refuses_bad_documents() -> None:
    good = {"apiVersion": "orgctl/v1", "kind": "Role", "metadata": {"name": "X"}, "spec": {}}
    assert _errors(good) == []
    assert _errors({**good, "extra": 1})
    assert _errors({**good, "spec": {"description": "d" * 251}})
    assert _errors({**good, "apiVersion": "v2"})
    assert _errors({**good, "kind": "Nope"})


def test_the_schema_knows_the_catalogs_privileges_and_the_role_name_limit() -> None:
    good = {"apiVersion": "orgctl/v1", "kind": "Role", "metadata": {"name": "X"}}
    privileges = {"privileges": ["portal:user:joinGroup", "portal:admin:viewUsers"]}
    assert _errors({**good, "spec": privileges}) == []
    assert _errors({**good, "spec": {"privileges": ["portal:user:nope"]}})
    # Overlays add and remove privileges: the same names are checked there.
    overlay = {**good, "metadata": {"name": "X", "overlay": True}}
    assert _errors({**overlay, "spec": {"privileges": {"remove": ["portal:user:joinGroup"]}}}) == []
    assert _errors({**overlay, "spec": {"privileges": {"add": ["portal:user:nope"]}}})
    assert _errors({**good, "metadata": {"name": "R" * 128}}) == []
    assert _errors({**good, "metadata": {"name": "R" * 300}})
    # Only a role's name has that limit.
    members = {"apiVersion": "orgctl/v1", "kind": "Members", "metadata": {"name": "M" * 300}}
    assert _errors({**members, "spec": {"members": {}}}) == []


def test_the_privilege_enum_describes_each_privilege() -> None:
    privilege = json.loads(SCHEMA_FILE.read_text())["$defs"]["Privilege"]
    assert len(privilege["enum"]) == len(privilege["enumDescriptions"]) > 60
    described = dict(zip(privilege["enum"], privilege["enumDescriptions"], strict=True))
    assert described["portal:user:reassignItems"].endswith("hosted-cloud, self-hosted 11.0+)")


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


def test_offline_validate_and_help_load_no_network_stack() -> None:
    """`orgctl validate` and `orgctl --help` import only what they use: neither the HTTP
    client, nor asyncio, nor the applier."""
    probe = (
        "import sys\n"
        "from reconciler.cli import run\n"
        "run(['validate', sys.argv[1]]); run(['--help'])\n"
        "heavy = ('httpx', 'asyncio', 'reconciler.apply', 'reconciler.live', 'starlette')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(EXAMPLES / "hq")],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_every_command_has_a_summary_for_help() -> None:
    from reconciler.cli import COMMANDS, SUMMARIES

    assert set(SUMMARIES) == set(COMMANDS)


def test_documents_to_writes_one_json_file_a_document_for_schema_tools(tmp_path: Path) -> None:
    source = tmp_path / "roles.yaml"
    source.write_text(
        "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: A}\n---\n"
        "apiVersion: orgctl/v1\nkind: Role\nmetadata: {name: B}\n"
        "spec: {privileges: [portal:user:nope]}\n"
    )
    out = tmp_path / "docs"
    done = subprocess.run(
        [sys.executable, "-m", "reconciler", "schema", "--documents-to", str(out), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    written = sorted(out.glob("*.json"))
    assert [p.name.rsplit(".", 2)[-2] for p in written] == ["1", "2"]
    first, second = (json.loads(p.read_text()) for p in written)
    assert _errors(first) == [] and _errors(second), "the second names an unknown privilege"


def test_documents_to_names_a_file_that_is_not_yaml(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [1,\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "reconciler",
            "schema",
            "--documents-to",
            str(tmp_path / "o"),
            str(broken),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and f"{broken}: not YAML" in done.stderr
    assert "Traceback" not in done.stderr


def _models_under(model: type[BaseModel]) -> Iterator[type[BaseModel]]:
    """`model` and every model its fields hold, at any depth (in unions, lists, dicts)."""
    seen: set[type[BaseModel]] = set()
    waiting = [model]
    while waiting:
        found = waiting.pop()
        if found in seen:
            continue
        seen.add(found)
        yield found
        for field in found.model_fields.values():
            annotations = [field.annotation]
            while annotations:
                annotation = annotations.pop()
                if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                    waiting.append(annotation)
                annotations += get_args(annotation)


def test_no_model_field_has_a_mutable_default() -> None:
    # pydantic deep-copies a `[]` or `{}` default for every document it validates: five
    # a Role made validating 1,000 roles 20 ms slower. `models.empty()` makes one anew.
    models_of_kinds = [Portal, *(kind.model for kind in registry.registered())]
    shared = [
        f"{model.__qualname__}.{name}"
        for root in models_of_kinds
        for model in _models_under(root)
        for name, field in model.model_fields.items()
        if isinstance(field.default, (list, dict, set))
    ]
    assert shared == []
