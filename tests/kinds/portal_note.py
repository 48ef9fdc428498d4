"""PortalNote: a kind that exists only in the tests, to prove that a kind is one module.

A note is a text the portal keeps as one of its file resources (`note-<name>.json`, a
JSON object `{"message": ...}`), written with `addResource` and read with the
`resources` listing: operations the reference service already has, so the service needs
nothing for it. Nothing outside this module knows the kind: the round trip registers it with
`reconciler.kind.register(KIND)` (a built-in kind has its line in `reconciler/kinds/__init__.py`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import Field

from reconciler.adopt.addresses import Address
from reconciler.adopt.adopter import added, outcome
from reconciler.adopt.files import ManifestFiles
from reconciler.adopt.merge import merge_declared
from reconciler.errors import UserError
from reconciler.export.documents import Document as Exported
from reconciler.export.documents import document
from reconciler.export.summary import counted
from reconciler.kind import (
    AddressForm,
    Adopt,
    Export,
    ExportInput,
    ExportPart,
    Fill,
    Identities,
    Kind,
    LiveRead,
    model_reader,
)
from reconciler.manifest import models
from reconciler.manifest.checks import RuleContext, source, text
from reconciler.manifest.loader import Document
from reconciler.manifest.problems import Problem
from reconciler.operations import OperationName, ReadName
from reconciler.plan.diff import created, diff_record
from reconciler.plan.draft import Draft
from reconciler.state import DesiredState, LiveState, StateKey

NAME = "PortalNote"
ADDRESS = AddressForm(NAME, ("name",))
PREFIX, SUFFIX = "note-", ".json"


class PortalNoteSpec(models.Strict):
    message: str = Field(min_length=1, max_length=200)


class PortalNote(models.Document):
    kind: Literal["PortalNote"]
    metadata: models.DocumentMetadata
    spec: PortalNoteSpec


_model = model_reader(PortalNote)
# Note name -> message, declared or read.
NOTES: StateKey[dict[str, str]] = StateKey(NAME, dict)


def _identities(document: Document) -> Iterator[Identities[Document]]:
    yield Identities.named("note", document, ("metadata", "name"), document.name)


def _rules(document: Document, context: RuleContext) -> Iterator[Problem]:
    yield from text(document, ("spec", "message"), _model(document).spec.message)
    if "/" in document.name:
        yield document.problem(("metadata", "name"), "a note's name cannot hold '/'")


def _desired(desired: DesiredState, document: Document) -> None:
    desired.get(NOTES)[document.name] = _model(document).spec.message
    desired.sources[ADDRESS.of(document.name)] = source(document)


async def _read(source: LiveRead) -> Fill:
    """Through the reader's reads table (a refused read names who may make it), in the
    same round of requests as every other kind's read."""
    entries = await source.pages(ReadName.RESOURCES)
    keys = [k for e in entries if _is_note(k := str(e.get("key", "")))]
    notes: dict[str, str] = {}
    for key in keys:
        body = await source.one(ReadName.RESOURCE, key=key)
        notes[key.removeprefix(PREFIX).removesuffix(SUFFIX)] = str(body.get("message", ""))

    def fill(live: LiveState) -> None:
        live.put(NOTES, notes)

    return fill


def _is_note(key: str) -> bool:
    return key.startswith(PREFIX) and key.endswith(SUFFIX)


def _notes(live: LiveState) -> dict[str, str]:
    return live.get(NOTES).copy()


def _live(live: LiveState) -> Iterator[tuple[str, Any]]:
    for name, message in _notes(live).items():
        yield ADDRESS.of(name), message


def _plan(draft: Draft) -> None:
    have = _notes(draft.live)
    for name, message in sorted(draft.desired.get(NOTES).items()):
        address = ADDRESS.of(name)
        if name in have:
            change = diff_record(address, {"message": have[name]}, {"message": message})
            if change is None:
                continue
            draft.changes.append(change)
        else:
            draft.changes.append(created(address, {"message": message}))
        params = {"key": f"{PREFIX}{name}{SUFFIX}", "text": json.dumps({"message": message})}
        draft.call(address, OperationName.ADD_RESOURCE, params)


def _document(name: str, message: str) -> Exported:
    return document(NAME, {"name": name}, {"message": message})


def _export(given: ExportInput) -> ExportPart[Exported]:
    notes = _notes(given.live)
    found = [_document(name, notes[name]) for name in sorted(notes)]
    return ExportPart(found, [], counted(len(found), "note"))


def _adopt(files: ManifestFiles, live: LiveState, address: Address) -> str:
    message = _notes(live).get(address.key)
    if message is None:
        raise UserError(f"{address}: the portal has no such note")
    exported = _document(address.key, message)
    found = files.find(NAME, address.key)
    if found is None:
        return added(address, files.append(exported))
    path, declared = found
    return outcome(address, path, merge_declared(declared["spec"], exported["spec"]), files)


KIND = Kind(
    name=NAME,
    model=PortalNote,
    singleton=False,
    addresses=(ADDRESS,),
    set_fields=(),
    identities=_identities,
    rules=_rules,
    desired=_desired,
    read=_read,
    people=False,
    live=_live,
    defaults={},
    unread=None,
    grants=None,
    prepare=None,
    plan=_plan,
    plan_last=None,
    annotate=None,
    writes=None,
    privileges=None,
    export=Export("portal-notes.yaml", _export),
    adopt=Adopt(_adopt),
    unadoptable={},
)
