"""A field's meaning and the service's default of it belong to its kind: two kinds may
give one field name different ones (tests/kinds/twins.py), and the planner compares each
kind's values by what its own model says."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from reconciler.kinds import registry
from reconciler.manifest import models
from reconciler.manifest.models import Meaning
from reconciler.plan.diff import diff_record
from reconciler.plan.meanings import kind_meanings
from reconciler.plan.normalize import fields_at
from tests.kinds import twins


@pytest.fixture
def twin_kinds() -> Iterator[None]:
    for kind in (twins.LAMP, twins.DIAL):
        registry.register(kind)
    yield
    for kind in (twins.LAMP, twins.DIAL):
        registry.unregister(kind.name)


def test_one_field_name_keeps_each_kinds_meaning(twin_kinds: None) -> None:
    assert diff_record("Lamp/hall", {"level": "true"}, {"level": True}) is None
    assert diff_record("Dial/hall", {"level": "3.0"}, {"level": 3}) is None
    change = diff_record("Lamp/hall", {"level": "false"}, {"level": True})
    assert change is not None and change.before == {"level": False}


def test_one_field_name_keeps_each_kinds_default(twin_kinds: None) -> None:
    """The service leaving `level` out means off for a lamp and 3 for a dial."""
    assert diff_record("Lamp/hall", {}, {"level": False}) is None
    assert diff_record("Dial/hall", {}, {"level": 3}) is None
    change = diff_record("Lamp/hall", {}, {"level": True})
    assert change is not None and change.before == {"level": False}


def test_meanings_are_read_off_the_models() -> None:
    workspace = fields_at("Workspace/c1/ws1").meanings
    assert workspace["startTime"] is Meaning.TIME  # models.StartTime says so
    assert workspace["copyByRefIfCopyFail"] is Meaning.BOOLEAN
    assert workspace["maxItemSizeInMB"] is Meaning.NUMBER  # a float
    assert workspace["interval"] is Meaning.NUMBER  # in a nested record
    assert fields_at("Member/alice").meanings["level"] is Meaning.NUMBER  # Literal[1, 2]
    assert fields_at("Role/Analyst").meanings == {
        "description": Meaning.TEXT,
        "privileges": Meaning.SET,
        "ignorePrivileges": Meaning.SET,
    }
    assert "role" not in fields_at("Member/alice").meanings  # a text never empty
    assert fields_at("TaskRun/frank/t1/r1").meanings["created"] is Meaning.TIME  # stated


def test_a_model_giving_one_name_two_meanings_is_refused() -> None:
    class Inner(models.Strict):
        level: bool | None = None

    class Spec(models.Strict):
        level: int | None = None
        inner: Inner | None = None

    class Twice(BaseModel):
        spec: Spec

    with pytest.raises(TypeError, match="field level is both a number and a boolean"):
        kind_meanings(Twice)


def test_every_registered_kinds_model_gives_each_name_one_meaning() -> None:
    """A kind's table is built when a plan first needs it; here every kind's is, so a
    model giving a name two meanings fails in the tests rather than in a user's plan."""
    for kind in registry.registered():
        assert all(isinstance(m, Meaning) for m in kind_meanings(kind.model).values()), kind
