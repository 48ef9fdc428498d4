"""Lamp and Dial: two kinds that exist only in the tests and both have a field `level`,
a Lamp's a switch (on or off, off when the service leaves it out) and a Dial's a number
(3 when left out). They plan nothing: they are here so the tests can show that a field's
meaning and default belong to its kind, never to its bare name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from reconciler import kind as registry
from reconciler.kind import AddressForm, Export, ExportInput, ExportPart, Identities
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState


class LampSpec(models.Strict):
    level: bool | None = None


class Lamp(models.Document):
    kind: Literal["Lamp"]
    metadata: models.DocumentMetadata
    spec: LampSpec


class DialSpec(models.Strict):
    level: int | None = None


class Dial(models.Document):
    kind: Literal["Dial"]
    metadata: models.DocumentMetadata
    spec: DialSpec


def _identities(document: Document) -> Iterator[Identities]:
    yield from ()


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    yield from ()


def _desired(desired: DesiredState, document: Document) -> None:
    return None


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    yield from ()


def _plan(draft: Draft) -> None:
    return None


def _export(given: ExportInput) -> ExportPart:
    return ExportPart([], [], None)


def _kind(name: str, model: type[models.Document], default: Any) -> registry.Kind:
    return registry.Kind(
        name=name,
        model=model,
        singleton=False,
        addresses=(AddressForm(name, ("name",)),),
        set_fields=(),
        identities=_identities,
        rules=_rules,
        desired=_desired,
        read=None,
        people=False,
        live=_live,
        defaults={"level": default},
        unread=None,
        grants=None,
        prepare=None,
        plan=_plan,
        plan_last=None,
        annotate=None,
        writes=None,
        privileges=None,
        export=Export(None, _export),
        adopt=None,
        unadoptable={name: "a test kind"},
    )


LAMP = _kind("Lamp", Lamp, False)
DIAL = _kind("Dial", Dial, 3)
