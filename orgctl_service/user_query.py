"""The user searches' `q`: terms joined by `AND`, `OR` and `NOT`, grouped with
parentheses, as the vendor's Search reference describes the query language.

A term is `field:value` or a bare word; a value may be a quoted phrase and may hold `*`
wildcards. `AND` binds tighter than `OR` (so `a OR b AND c` is `a OR (b AND c)`), and
terms side by side are joined by `AND`: the vendor's Python client narrows a search to
the organization by appending ` accountid:<id>` with no operator. Which member a term
matches is the caller's `Matcher` (the members module's).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from orgctl_service.errors import bad_request

Matcher = Callable[[str, str], bool]  # (field or "", value) -> whether a member matches


@dataclass(frozen=True, slots=True)
class Term:
    field: str
    value: str

    def test(self, match: Matcher) -> bool:
        return match(self.field, self.value)


@dataclass(frozen=True, slots=True)
class Every:
    parts: tuple[Node, ...]

    def test(self, match: Matcher) -> bool:
        return all(part.test(match) for part in self.parts)


@dataclass(frozen=True, slots=True)
class Either:
    parts: tuple[Node, ...]

    def test(self, match: Matcher) -> bool:
        return any(part.test(match) for part in self.parts)


@dataclass(frozen=True, slots=True)
class Negation:
    part: Node

    def test(self, match: Matcher) -> bool:
        return not self.part.test(match)


Node = Term | Every | Either | Negation
OPERATORS = ("AND", "OR", "NOT")
_TOKEN = re.compile(r'[()]|[^\s()"]*"[^"]*"?|[^\s()]+')
MAX_DEPTH = 32  # parentheses or NOTs nested deeper are refused, not recursed into


def parse(query: str) -> Node | None:
    """The query's tree; None for an empty query (every member)."""
    tokens = _TOKEN.findall(query)
    if not tokens:
        return None
    parser = _Parser(tokens)
    node = parser.either(0)
    if parser.position != len(tokens):
        raise _invalid(f"unexpected {tokens[parser.position]!r}")
    return node


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.position = 0

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def either(self, depth: int) -> Node:
        parts = [self.every(depth)]
        while _operator(self.peek()) == "OR":
            self.take()
            parts.append(self.every(depth))
        return parts[0] if len(parts) == 1 else Either(tuple(parts))

    def every(self, depth: int) -> Node:
        parts = [self.unary(depth)]
        while (token := self.peek()) is not None and token != ")" and _operator(token) != "OR":
            if _operator(token) == "AND":
                self.take()
            parts.append(self.unary(depth))
        return parts[0] if len(parts) == 1 else Every(tuple(parts))

    def unary(self, depth: int) -> Node:
        token = self.peek()
        if token is None or token == ")" or _operator(token) in ("AND", "OR"):
            raise _invalid("a term is missing" + (f" before {token!r}" if token else " at the end"))
        self.take()
        if token != "(" and token != "NOT":
            return _term(token)
        if depth >= MAX_DEPTH:
            raise _invalid(f"parentheses or NOT nested deeper than {MAX_DEPTH}")
        if token == "NOT":
            return Negation(self.unary(depth + 1))
        inner = self.either(depth + 1)
        if self.peek() != ")":
            raise _invalid("a parenthesis is not closed")
        self.take()
        return inner


def _operator(token: str | None) -> str | None:
    return token if token in OPERATORS else None


def _term(token: str) -> Term:
    field, colon, value = token.partition(":")
    if not colon or field.startswith('"'):
        field, value = "", token
    return Term(field.lower(), value.strip('"'))


def _invalid(why: str) -> Exception:
    return bad_request(f"Invalid query: {why}.")
