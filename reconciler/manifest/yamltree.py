"""YAML text → plain Python values, each key and item remembering its line and column.

libyaml (through PyYAML's C parser) turns the text into events; one pass over them builds
plain dicts, lists and scalars together with a tree of positions, and enforces the limits
on untrusted input as it goes (`limits`): nesting depth, what aliases may add, tags. No
node graph is kept and nothing recurses, so neither a bomb nor deep nesting costs more
than the text itself.

Scalars are read as YAML 1.2's core schema (as the round-trip loader did): `yes`, `on`
and `010` stay text, `true`, `12`, `1.5`, `null` and ISO timestamps are typed. A quoted
scalar is always text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import yaml
from yaml import events
from yaml._yaml import CParser

from reconciler.manifest import limits

STANDARD_TAG = "tag:yaml.org,2002:"
MERGE_KEY = "<<"

# A plain scalar can be other than text only when it starts with one of these (or is
# empty): null, booleans, numbers, .inf/.nan and timestamps all do. Most scalars of a
# manifest are names and keys, resolved by this one look instead of ten patterns.
_MAY_NOT_BE_TEXT = frozenset("~nNtTfF-+.0123456789")
# Tuples, not `A | B`: a union written in a function is built anew at every call, and
# these are asked once per node.
_OPENS = (events.MappingStartEvent, events.SequenceStartEvent)
_CLOSES = (events.MappingEndEvent, events.SequenceEndEvent)
_COLLECTIONS = (dict, list)
_NULL = re.compile(r"~|null|Null|NULL|")
_TRUE = re.compile(r"true|True|TRUE")
_FALSE = re.compile(r"false|False|FALSE")
_INT = re.compile(r"[-+]?[0-9]+")
_OCTAL = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INFINITY = re.compile(r"[-+]?\.(inf|Inf|INF)")
_NAN = re.compile(r"\.(nan|NaN|NAN)")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?"
)


@dataclass(slots=True)
class Positions:
    """Where a value was written (1-based), and where each of its keys or items was."""

    line: int
    column: int
    children: dict[Any, Positions] = field(default_factory=dict)  # keys, or list indexes
    # The file it was written in, when not the document's own (a field an overlay patched
    # into an included document: `overlay`).
    file: str | None = None


@dataclass(frozen=True, slots=True)
class Tree:
    value: Any
    positions: Positions


class TreeError(Exception):
    """Text that is no manifest (a broken limit, a duplicate key, a syntax error), at a
    1-based line and column."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message


def trees(text: str) -> Iterator[Tree | None]:
    """Each document of `text` in turn (None for an empty one). An error is raised when
    its document is reached, after the documents before it were given."""
    builder: _Document | None = None
    try:
        for event in yaml.parse(text, Loader=yaml.CBaseLoader):
            if isinstance(event, events.DocumentStartEvent):
                builder = _Document()
            elif isinstance(event, events.DocumentEndEvent) and builder is not None:
                yield builder.result()
                builder = None
            elif builder is not None:
                builder.feed(event)
    except yaml.MarkedYAMLError as exc:
        raise syntax_error(exc) from None
    except yaml.YAMLError as exc:
        raise TreeError(1, 1, str(exc)) from None


def check_syntax(text: str) -> None:
    """Raise TreeError where `text` is no YAML, without building any value (libyaml's
    parser alone: the cheap check of a file whose values are not needed)."""
    try:
        # The C parser's own loop makes no Python event: 2.3 ms for a file of 1,000
        # members against 10 ms, and a fleet's discovery checks every such file.
        CParser(text).raw_parse()
    except yaml.MarkedYAMLError as exc:
        raise syntax_error(exc) from None
    except yaml.YAMLError as exc:
        raise TreeError(1, 1, str(exc)) from None


# Constructs that open with a character and must close with another: an unclosed one is
# found only where the text runs out (often the end of the file), so the error is placed
# where it opened, the line a reader has to fix.
_OPENED = ("while scanning a quoted scalar", "while parsing a flow")


def syntax_error(exc: yaml.MarkedYAMLError) -> TreeError:
    """libyaml's error at the line to fix: where an unclosed quote or bracket opened,
    otherwise where the parser stopped."""
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    opened, found = exc.context_mark, exc.problem_mark
    context = (exc.context or "").strip()
    if opened is not None and context.startswith(_OPENED):
        construct = context.removeprefix("while scanning ").removeprefix("while parsing ")
        where = f" at line {found.line + 1}" if found is not None else ""
        message = f"{construct} opened here is never closed: {problem}{where}"
        return TreeError(opened.line + 1, opened.column + 1, message)
    mark = found or opened
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    return TreeError(line, column, problem)


@dataclass(slots=True)
class _Open:
    """A mapping or sequence being built, with what the next scalar or item is for."""

    value: dict[Any, Any] | list[Any]
    positions: Positions
    anchor: str | None
    key: Any = None
    key_positions: Positions | None = None
    has_key: bool = False
    merges: list[Tree] | None = None  # the mappings `<<` merges in, once there is one
    nodes: int = 1  # nodes within, aliases expanded


class _Document:
    def __init__(self) -> None:
        self.stack: list[_Open] = []
        self.anchors: dict[str, tuple[Tree, int]] = {}  # the tree and its expanded size
        self.expanded = 0  # nodes that aliases added
        self.root: Tree | None = None

    def result(self) -> Tree | None:
        return self.root

    def feed(self, event: events.Event) -> None:
        # Most events are scalars: an exact class test first, cheaper than isinstance.
        if type(event) is events.ScalarEvent or isinstance(event, events.ScalarEvent):
            self.scalar(event)
        elif isinstance(event, _OPENS):
            self.open(event)
        elif isinstance(event, _CLOSES):
            self.close()
        elif isinstance(event, events.AliasEvent):
            self.alias(event)

    # --- nodes ---------------------------------------------------------------------------

    def scalar(self, event: events.ScalarEvent) -> None:
        # The path of most nodes of a large file: kept free of needless calls.
        if event.tag is not None:
            self.check_tag(event)
        value = _scalar(event)
        mark = event.start_mark
        positions = Positions(mark.line + 1, mark.column + 1)
        if event.anchor:
            self.anchors[event.anchor] = (Tree(value, positions), 1)
        self.place(value, positions, event, 1)

    def open(self, event: events.CollectionStartEvent) -> None:
        if event.tag is not None:
            self.check_tag(event)
        if len(self.stack) >= limits.MAX_DEPTH:
            raise _error(event, f"nested deeper than {limits.MAX_DEPTH} levels")
        container: dict[Any, Any] | list[Any] = (
            {} if isinstance(event, events.MappingStartEvent) else []
        )
        self.stack.append(_Open(container, _at(event), event.anchor))

    def close(self) -> None:
        # As `scalar`: the path of every mapping of a large file, kept free of needless calls.
        done = self.stack.pop()
        if done.merges:
            _merge(done)
        if done.anchor:
            self.anchors[done.anchor] = (Tree(done.value, done.positions), done.nodes)
        self.place(done.value, done.positions, None, done.nodes)

    def alias(self, event: events.AliasEvent) -> None:
        found = self.anchors.get(event.anchor or "")
        if found is None:
            if any(open_.anchor == event.anchor for open_ in self.stack):
                raise _error(event, "an alias refers to a node that contains it")
            raise _error(event, f"the alias *{event.anchor} names no anchor before it")
        tree, size = found
        self.expanded += size
        if self.expanded > limits.MAX_ALIAS_EXPANSION:
            raise _error(
                event,
                f"aliases expand this document by more than {limits.MAX_ALIAS_EXPANSION:,} nodes",
            )
        here = Positions(*_line_column(event), tree.positions.children)
        self.place(tree.value, here, event, size)

    # --- placing a finished node in its parent -------------------------------------------

    def place(
        self, value: Any, positions: Positions, event: events.Event | None, size: int
    ) -> None:
        """Put a finished node (its value and positions) in its parent."""
        if not self.stack:
            self.root = Tree(value, positions)
            return
        parent = self.stack[-1]
        parent.nodes += size
        if isinstance(parent.value, list):
            parent.positions.children[len(parent.value)] = positions
            parent.value.append(value)
        elif not parent.has_key:
            self.set_key(parent, value, positions, event)
        else:
            self.set_value(parent, value, positions)

    def set_key(self, parent: _Open, key: Any, at: Positions, event: events.Event | None) -> None:
        if isinstance(key, _COLLECTIONS):
            raise TreeError(at.line, at.column, "a mapping key must be a plain value")
        plain = isinstance(event, events.ScalarEvent) and event.implicit[0]
        is_merge = plain and key == MERGE_KEY
        if not is_merge and key in parent.value:
            first = parent.positions.children[key].line
            message = f"duplicate key {str(key)!r} (first at line {first})"
            raise TreeError(at.line, at.column, message)
        parent.key = _MergeMarker if is_merge else key
        parent.key_positions = at
        parent.has_key = True

    def set_value(self, parent: _Open, value: Any, positions: Positions) -> None:
        assert isinstance(parent.value, dict) and parent.key_positions is not None
        if parent.key is _MergeMarker:
            parent.merges = (parent.merges or []) + _merge_sources(Tree(value, positions))
        else:
            parent.value[parent.key] = value
            key_at = parent.key_positions
            parent.positions.children[parent.key] = Positions(
                key_at.line, key_at.column, positions.children
            )
        parent.has_key = False

    # --- anchors and tags ----------------------------------------------------------------

    @staticmethod
    def check_tag(event: events.NodeEvent) -> None:
        tag = getattr(event, "tag", None)
        if tag and tag != "!" and not tag.startswith(STANDARD_TAG):
            raise _error(event, f"the tag {tag[:40]!r} is not allowed: manifests hold plain YAML")


class _MergeMarker:
    """The `<<` key of a mapping: its value's keys are merged in, not stored under it."""


def _merge_sources(tree: Tree) -> list[Tree]:
    if isinstance(tree.value, dict):
        return [tree]
    raise TreeError(tree.positions.line, tree.positions.column, "'<<' merges only a mapping")


def _merge(done: _Open) -> None:
    """`<<: *base`: the keys written in the mapping win over merged ones."""
    assert isinstance(done.value, dict)
    for source in done.merges or ():
        for key, value in source.value.items():
            if key not in done.value:
                done.value[key] = value
                done.positions.children[key] = source.positions.children[key]


def _scalar(event: events.ScalarEvent) -> Any:
    text: str = event.value
    tag = event.tag
    if tag and tag.startswith(STANDARD_TAG):  # an explicit standard tag: !!int, !!str
        kind = tag[len(STANDARD_TAG) :]
        return text if kind == "str" else _resolved(text, kind)
    if tag == "!" or not event.implicit[0]:
        return text  # quoted, block or `!` text is always text
    return _resolved(text, None)


def _resolved(text: str, kind: str | None) -> Any:
    """A plain scalar's value under YAML 1.2's core schema (and ISO timestamps)."""
    if kind is None and text and text[0] not in _MAY_NOT_BE_TEXT:
        return text
    if kind in (None, "null") and _NULL.fullmatch(text):
        return None
    if kind in (None, "bool") and _TRUE.fullmatch(text):
        return True
    if kind in (None, "bool") and _FALSE.fullmatch(text):
        return False
    if kind in (None, "int"):
        if _INT.fullmatch(text):
            return int(text)
        if _OCTAL.fullmatch(text):
            return int(text[2:], 8)
        if _HEX.fullmatch(text):
            return int(text[2:], 16)
    if kind in (None, "float"):
        if _FLOAT.fullmatch(text):
            return float(text)
        if _INFINITY.fullmatch(text):
            return -math.inf if text.startswith("-") else math.inf
        if _NAN.fullmatch(text):
            return math.nan
    if kind in (None, "timestamp"):
        moment = _timestamp(text)
        if moment is not None:
            return moment
    return text


def _timestamp(text: str) -> date | datetime | None:
    if _DATE.fullmatch(text):
        return date.fromisoformat(text)
    if not _TIMESTAMP.fullmatch(text):
        return None
    normal = re.sub(r"[ \t]+", "T", text.strip(), count=1).replace("t", "T")
    normal = re.sub(r"[ \t]*Z$", "+00:00", normal)
    try:
        return datetime.fromisoformat(normal)
    except ValueError:
        return None


def _line_column(event: events.Event) -> tuple[int, int]:
    mark = event.start_mark
    return mark.line + 1, mark.column + 1


def _at(event: events.Event) -> Positions:
    return Positions(*_line_column(event))


def _error(event: events.Event, message: str) -> TreeError:
    return TreeError(*_line_column(event), message)
