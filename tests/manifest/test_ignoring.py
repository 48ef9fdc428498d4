"""The ignoreChanges path matcher (reconciler.manifest.ignoring): paths are checked against
each kind's own spec model, and taken out of a document's values with `*` standing for
any key or element."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from reconciler.kind import kind_named
from reconciler.manifest import models
from reconciler.manifest.ignoring import (
    every_path,
    path_problem,
    remove,
    segments,
    spec_model,
    stripped,
)
from reconciler.manifest.validation import check

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _problem(kind: str, path: str) -> str | None:
    return path_problem(spec_model(kind_named(kind).model), path)


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("Role", "description"),
        ("Role", "privileges"),
        ("Role", "spec.description"),  # the spec. prefix may be written
        ("Members", "members.*.level"),
        ("Members", "members.alice.level"),  # a key written as itself
        ("Collaboration", "workspaces.*.schedule.startTime"),
        ("Collaboration", "workspaces.ws1.groupLink.enableRealtimeSync"),
        ("Collaboration", "invalidInvitations"),
        ("WebhookSettings", "daysInPast"),
        ("TaskRunRetention", "maxAgeDays"),
    ],
)
def test_a_field_the_kind_has_is_accepted(kind: str, path: str) -> None:
    assert _problem(kind, path) is None


@pytest.mark.parametrize(
    ("kind", "path", "expected"),
    [
        ("Role", "descripton", "spec has no field 'descripton'; did you mean spec.description?"),
        (
            "Members",
            "members.alice.levle",
            "spec.members.alice has no field 'levle'; did you mean spec.members.*.level?",
        ),
        (
            "Collaboration",
            "workspaces.*.schedul.startTime",
            "has no field 'schedul'; did you mean spec.workspaces.*.schedule.startTime?",
        ),
        ("Members", "level", "spec has no field 'level'"),
        ("Members", "members", "a required field cannot be ignored"),
        ("Role", "state", "left out, it means 'present', not 'not managed'"),
        ("Collaboration", "workspaces.*", "name a field, not every element or key"),
        ("Members", "members..level", "is not a field path"),
        ("Role", "description.text", "spec.description has no field 'text'"),
    ],
)
def test_a_path_the_kind_lacks_is_refused_with_the_reason(
    kind: str, path: str, expected: str
) -> None:
    problem = _problem(kind, path)
    assert problem is not None and expected in problem, problem


def test_a_path_far_from_every_field_gets_no_suggestion() -> None:
    problem = _problem("WebhookSettings", "zzzzzzzz")
    assert problem == "spec.zzzzzzzz: spec has no field 'zzzzzzzz'"


def test_every_path_walks_maps_and_nested_models() -> None:
    paths = set(every_path(spec_model(kind_named("Collaboration").model)))
    assert {"workspaces.*.schedule.startTime", "workspaces.*.groupLink", "state"} <= paths
    assert "workspaces.*" not in paths


def _spec() -> dict[str, Any]:
    return {
        "members": {
            "alice": {"level": 1, "role": "Analyst"},
            "bob": {"role": "org_user"},
        },
        "workspaces": {"ws1": {"schedule": {"startTime": 5, "interval": 24}}},
        "tags": [{"name": "a", "level": 3}, {"name": "b"}],
    }


def test_remove_takes_every_key_a_star_names_and_leaves_the_rest() -> None:
    spec = _spec()
    remove(spec, segments("members.*.level"))
    assert spec["members"] == {"alice": {"role": "Analyst"}, "bob": {"role": "org_user"}}
    remove(spec, segments("spec.workspaces.*.schedule.startTime"))
    assert spec["workspaces"] == {"ws1": {"schedule": {"interval": 24}}}


def test_remove_with_a_written_key_takes_that_one_only() -> None:
    spec = _spec()
    remove(spec, segments("members.bob.role"))
    assert spec["members"] == {"alice": {"level": 1, "role": "Analyst"}, "bob": {}}


def test_remove_walks_list_elements_and_ignores_what_is_not_there() -> None:
    spec = _spec()
    remove(spec, segments("tags.*.level"))
    assert spec["tags"] == [{"name": "a"}, {"name": "b"}]
    before = _spec()
    remove(before, segments("members.carol.level"))
    remove(before, segments("nothing.*.here"))
    assert before == _spec()


@pytest.mark.parametrize("example", ["hq", "field"])
def test_every_ignorable_path_of_the_examples_strips_to_a_valid_document(example: str) -> None:
    """Each path validate accepts takes its field out of a real document, which stays
    valid (the kind then sees the field as left out, never a validation error)."""
    checked = check(EXAMPLES / example, {})
    assert not checked.problems, checked.problems
    count = 0
    for document in checked.documents:
        if isinstance(document.model, models.Portal):
            continue
        model = spec_model(kind_named(document.kind).model)
        for path in every_path(model):
            if path_problem(model, path) is not None:
                continue
            metadata = document.model.metadata.model_copy(update={"ignoreChanges": [path]})
            ignoring = replace(
                document, model=document.model.model_copy(update={"metadata": metadata})
            )
            spec = stripped(ignoring).model.model_dump()["spec"]
            assert _absent(spec, segments(path)), (document.resource, path)
            count += 1
    assert count > 10


def _absent(data: Any, parts: tuple[str, ...]) -> bool:
    """Nothing is left at `parts` but a field's unmanaged default."""
    head, rest = parts[0], parts[1:]
    if isinstance(data, dict):
        keys = list(data) if head == "*" else [head] if head in data else []
        if not rest:
            return all(data[key] in (None, [], {}) for key in keys)
        return all(_absent(data[key], rest) for key in keys)
    return True
