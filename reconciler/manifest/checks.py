"""What the kinds' manifest parts are given and share: the rest of the manifest set as a
`RuleContext`, the checks several kinds make (a release gate, text the portal refuses)
and where a declaration was written."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reconciler import state
from reconciler.catalog import Feature
from reconciler.clock import moment, rfc3339
from reconciler.manifest import models
from reconciler.manifest.lookalikes import lookalike_problem
from reconciler.manifest.problems import Problem
from reconciler.manifest.raw import KeyPath
from reconciler.operations import OperationName, availability_problem
from reconciler.text_rules import text_problem
from reconciler.versions import Platform

if TYPE_CHECKING:
    from reconciler.manifest.loader import Document


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What the per-document rules need to know about the rest of the manifest set."""

    platform: Platform | None  # None when the Portal is missing or its version invalid
    portal: models.PortalSpec | None
    name: str | None  # the Portal's metadata.name
    environ: Mapping[str, str]
    documents: tuple[Document, ...]
    # Facts about the whole set a kind works out once per check (see `once`).
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def extra_privileges(self) -> frozenset[str]:
        return frozenset(self.portal.extraPrivileges) if self.portal else frozenset()


def gate(
    document: Document, path: KeyPath, needs: OperationName | Feature, platform: Platform | None
) -> Iterator[Problem]:
    """What the platform lacks of the operation or parameter a declaration needs."""
    problem = availability_problem(needs, platform) if platform else None
    if problem:
        yield document.problem(path, problem)


def text(
    document: Document, at: KeyPath, value: str, multiline: bool = False, label: str = ""
) -> Iterator[Problem]:
    """The portal refuses control and bidi characters: say so before anything is sent.
    `label`: what the value is, when it is a key (a username) rather than a field."""
    field = label or (at[-1] if isinstance(at[-1], str) else "text")
    problem = text_problem(field, value, multiline)
    if problem:
        yield document.problem(at, problem)


def lookalike(document: Document, at: KeyPath, value: str, what: str) -> Iterator[Problem]:
    """A name that reads as another (mixed scripts, invisible or unnormalized characters):
    the portal takes it, so it is a warning."""
    problem = lookalike_problem(what, value)
    if problem:
        yield document.warning(at, problem)


def at(document: Document) -> str:
    return f"{document.file}:{document.line}"


def source(document: Document, *path: str | int) -> state.Source:
    """Where the document (or the key at `path` in it) was declared, for messages."""
    file, line, column = document.locate(path)
    return state.Source(file, line, column)


def deadline(
    document: Document, path: KeyPath, value: object, now: dt.datetime, expired: str
) -> Iterator[Problem]:
    """A deadline (a policy exception's, a grant's `until`) that is no time is an error;
    one already past at `now`, a warning: `expired`, its `{end}` the deadline."""
    try:
        end = moment(value)  # type: ignore[arg-type]
    except ValueError:
        yield document.problem(path, f"{value!r} is neither RFC 3339 nor a date")
        return
    if end is not None and end <= now:
        yield document.warning(path, expired.replace("{end}", rfc3339(end)))
