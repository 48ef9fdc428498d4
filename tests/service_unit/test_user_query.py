"""The user searches' query language (`user_query`) and wildcard matching, on small real
queries: precedence, grouping, negation, refusals of malformed or hostile queries."""

from __future__ import annotations

import pytest

from orgctl_service.errors import ApiError
from orgctl_service.members import wildcard_match
from orgctl_service.user_query import MAX_DEPTH, parse

MEMBER = {"": "alice smith", "role": "org_user", "username": "alice"}


def matches(query: str, member: dict[str, str] = MEMBER) -> bool:
    node = parse(query)
    assert node is not None
    return node.test(lambda field, value: wildcard_match(value, member.get(field, "")))


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("role:org_admin OR role:org_user", True),
        ("role:org_admin AND role:org_user", False),
        ("role:org_admin role:org_user", False),  # side by side: AND
        ("role:org_user OR role:org_admin AND username:bob", True),  # AND binds tighter
        ("(role:org_user OR role:org_admin) AND username:bob", False),
        ("NOT username:bob", True),
        ("NOT (username:alice OR username:bob)", False),
        ('username:"alice"', True),
        ("username:ali*", True),
        ("username:*ice", True),
        ("username:a*c*e", True),
        ("username:a*z*e", False),
    ],
)
def test_precedence_grouping_negation_and_wildcards(query: str, expected: bool) -> None:
    assert matches(query) is expected


def test_an_empty_query_is_every_member() -> None:
    assert parse("   ") is None


TOO_DEEP = "NOT " * (MAX_DEPTH + 1) + "a"


MALFORMED = ["(a", "a)", "a OR", "OR a", "a AND AND b", "NOT", "()", TOO_DEEP]


@pytest.mark.parametrize("query", MALFORMED)
def test_malformed_queries_are_refused_with_400(query: str) -> None:
    with pytest.raises(ApiError) as refused:
        parse(query)
    assert refused.value.code == 400 and refused.value.message.startswith("Invalid query")


def test_deep_nesting_is_refused_not_recursed_into() -> None:
    with pytest.raises(ApiError):
        parse("(" * 10_000 + "a" + ")" * 10_000)
    with pytest.raises(ApiError):
        parse("NOT " * 10_000 + "a")


def test_many_wildcards_are_matched_part_by_part() -> None:
    """A backtracking pattern would take exponential time on this; parts found in order
    take one pass each."""
    assert not wildcard_match("a*" * 2_000 + "b", "a" * 200)
    assert wildcard_match("a*" * 100, "a" * 200)
