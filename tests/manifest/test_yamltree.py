"""Plain scalars resolve under YAML 1.2's core schema: every form that is not text, and
text that merely starts like one (the resolver looks at the first character first).
Anchors, aliases and `<<` merges keep their values and the positions they were written at."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest

from reconciler.manifest import yamltree

RESOLVED: list[tuple[str, Any]] = [
    ("~", None),
    ("null", None),
    ("NULL", None),
    ("", None),
    ("true", True),
    ("False", False),
    ("42", 42),
    ("-7", -7),
    ("+3", 3),
    ("0o17", 15),
    ("0x1F", 31),
    ("1.5", 1.5),
    ("-.5", -0.5),
    ("6e3", 6000.0),
    ("-.inf", -math.inf),
    (".Inf", math.inf),
    ("2026-12-01", date(2026, 12, 1)),
    ("2026-12-01T08:30:00Z", datetime(2026, 12, 1, 8, 30, tzinfo=UTC)),
    (
        "2026-12-01 08:30:00 +02:00",
        datetime(2026, 12, 1, 8, 30, tzinfo=timezone(timedelta(hours=2))),
    ),
    # Text, whatever its first character:
    ("nobody", "nobody"),
    ("Nullable", "Nullable"),
    ("tomas", "tomas"),
    ("TRUEish", "TRUEish"),
    ("falcon", "falcon"),
    ("yes", "yes"),  # a YAML 1.1 boolean, text in 1.2
    ("on", "on"),
    ("-team", "-team"),
    ("+x", "+x"),
    (".hidden", ".hidden"),
    ("0xZZ", "0xZZ"),
    ("10.6.1", "10.6.1"),
    ("2026-13", "2026-13"),
    ("org_user", "org_user"),
    ("portal:user:joinGroup", "portal:user:joinGroup"),
]


def value_of(text: str) -> Any:
    tree = next(yamltree.trees(f"key: {text}\n"))
    assert tree is not None
    return tree.value["key"]


@pytest.mark.parametrize(("text", "expected"), RESOLVED, ids=[t or "empty" for t, _ in RESOLVED])
def test_a_plain_scalar_resolves_under_the_core_schema(text: str, expected: Any) -> None:
    value = value_of(text)
    assert value == expected and type(value) is type(expected)


def test_nan_is_a_float_that_is_not_a_number() -> None:
    assert math.isnan(value_of(".nan"))


def test_quoted_scalars_are_always_text() -> None:
    tree = next(yamltree.trees("a: '42'\nb: \"true\"\nc: !!str 7\nd: !!int '8'\n"))
    assert tree is not None and tree.value == {"a": "42", "b": "true", "c": "7", "d": 8}


def only_tree(text: str) -> yamltree.Tree:
    tree = next(yamltree.trees(text))
    assert tree is not None
    return tree


def test_a_merge_key_brings_the_base_keys_and_the_written_ones_win() -> None:
    tree = only_tree("base: &base {role: org_user, level: 2}\nuser: {<<: *base, level: 1}\n")
    assert tree.value["user"] == {"role": "org_user", "level": 1}
    user = tree.positions.children["user"].children
    assert (user["role"].line, user["role"].column) == (1, 14)  # where the base wrote it
    assert (user["level"].line, user["level"].column) == (2, 19)


def test_several_merges_into_one_mapping_all_count() -> None:
    tree = only_tree("a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: *a\n  <<: *b\n")
    assert tree.value["c"] == {"x": 1, "y": 2}


def test_a_merge_of_a_scalar_is_refused_where_it_is_written() -> None:
    with pytest.raises(yamltree.TreeError, match="merges only a mapping") as raised:
        only_tree("a: &a 1\nb: {<<: *a}\n")
    assert raised.value.line == 2


def test_anchored_scalars_and_mappings_are_reused_by_their_aliases() -> None:
    tree = only_tree("one: &name Analyst\ntwo: *name\nbase: &m {k: v}\ncopy: *m\n")
    assert tree.value == {
        "one": "Analyst",
        "two": "Analyst",
        "base": {"k": "v"},
        "copy": {"k": "v"},
    }
    assert tree.positions.children["copy"].line == 4


BROKEN = [
    "a: [1, 2\nb: c\n",
    "a: 'open\n",
    "a: b: c\n",
    "- a\nb: c\n",
    "a:\n  - b\n c: d\n",
    "a: {b: 1\n",
    'a: "x\\q"\n',
    "kind: Members\n\tspec: {}\n",
    "--- a\n... b\n--- [\n",
]


@pytest.mark.parametrize("text", BROKEN)
def test_the_syntax_check_finds_what_reading_the_values_finds(text: str) -> None:
    with pytest.raises(yamltree.TreeError) as read:
        list(yamltree.trees(text))
    with pytest.raises(yamltree.TreeError) as checked:
        yamltree.check_syntax(text)
    assert (checked.value.line, checked.value.column, checked.value.message) == (
        read.value.line,
        read.value.column,
        read.value.message,
    )


def test_the_syntax_check_passes_any_yaml() -> None:
    yamltree.check_syntax("a: 1\n---\n- [b, {c: d}]\n")
