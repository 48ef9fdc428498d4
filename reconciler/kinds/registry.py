"""The registry of manifest kinds (as octoDNS registers its record types).

A kind is one module that builds one `Kind` and registers it. The code that works on
every kind (validation, desired state, planning, the fingerprint, export, adopt) loops
over `registered()`, so it names no kind. Registering a kind twice is refused, and a kind
that lacks a part fails where it is built, at import, never silently at run time.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, get_args

if TYPE_CHECKING:
    from reconciler.adopt.addresses import Address
    from reconciler.adopt.files import ManifestFiles
    from reconciler.export.documents import Document as ExportedDocument
    from reconciler.live.client import PortalClient
    from reconciler.manifest.checks import RuleContext
    from reconciler.manifest.loader import Document
    from reconciler.manifest.models import Document as Model
    from reconciler.manifest.problems import Problem
    from reconciler.manifest.raw import KeyPath
    from reconciler.operations import ReadName
    from reconciler.plan.draft import Draft
    from reconciler.state import DesiredState, LiveState

# The kinds orgctl ships, in the order they are validated, planned and exported (a plan's
# problems are listed in this order).
BUILTIN = (
    "reconciler.kinds.role",
    "reconciler.kinds.members",
    "reconciler.kinds.collaboration",
    "reconciler.kinds.webhook_settings",
    "reconciler.kinds.organization_webhooks",
    "reconciler.kinds.task_run_retention",
    "reconciler.kinds.policy",
    "reconciler.kinds.campaign",
)


@dataclass(frozen=True, slots=True)
class AddressForm:
    """A plan address (README: plan JSON): its head, then one identity part per name in
    `names` (none for a resource that exists once per portal)."""

    head: str
    names: tuple[str, ...]

    @property
    def parts(self) -> int:
        return len(self.names)

    def __str__(self) -> str:
        """As the README writes it: `Workspace/<collaborationId>/<workspaceId>`."""
        return "/".join((self.head, *(f"<{name}>" for name in self.names)))

    def of(self, *ids: str) -> str:
        """The address of one resource; `below` names a group of them."""
        if len(ids) != self.parts:
            raise ValueError(f"{self.head} addresses have {self.parts} part(s), got {ids!r}")
        return "/".join((self.head, *ids))

    def every(self) -> str:
        """The part naming every resource of the form (`Collaboration/*`), as a refused
        listing is kept in `LiveState.unread`."""
        return f"{self.head}/*"

    def below(self, *ids: str) -> str:
        """The address of a group of resources: `TaskRun/alice` for every run of alice's."""
        if not 0 < len(ids) < self.parts:
            raise ValueError(f"{self.head}: {ids!r} names no group of resources")
        return "/".join((self.head, *ids))


T = TypeVar("T")
M = TypeVar("M", bound="Model")


class LiveRead(Protocol):
    """What live/reader.py offers a kind's `read`: every kind's read goes out in the same
    round of concurrent requests as the rest, and shares the reader's bookkeeping."""

    client: PortalClient
    desired: DesiredState | None  # None: the whole portal is read (export)
    everything: bool  # the whole portal is read, whatever the manifests declare
    unread: dict[str, str]  # part -> why the signed-in member may not read it (403)

    async def portal_id(self) -> str: ...

    def readable(self, convert: Callable[[], T]) -> T | None:
        """`convert()`, or None with the resource kept as unreadable."""
        ...


# What a kind's read returns: how its findings fill the live state, once every read is in.
Fill = Callable[["LiveState"], None]


@dataclass(frozen=True, slots=True)
class Unread:
    """What a plan does when the signed-in member may not read the kind's `part` (a key
    of `LiveState.unread`, 403): `read` is the read refused (its access says who may),
    `declared` the addresses whose fields depend on it (None: the kind's own plan says
    what it could not compare), `forget` the live state without the part, given why (a
    saved plan's account could not read it, so the applier compares the same)."""

    part: str
    read: ReadName
    declared: Callable[[DesiredState], list[str]] | None
    forget: Callable[[LiveState, str], LiveState]


@dataclass(frozen=True, slots=True)
class Identity:
    """A key a manifest set may declare once (a role name, a username): `what` names it in
    the message, `fold` says which spellings are the same key."""

    what: str
    document: Document
    path: KeyPath
    key: str
    fold: Callable[[str], str] = str


@dataclass(frozen=True, slots=True)
class Export:
    """What `orgctl export` writes of the kind: its file, and its part of the export.
    A kind without a file states a policy no live portal can tell: its part is notes."""

    file: str | None
    write: Callable[[ExportInput], ExportPart]


@dataclass(frozen=True, slots=True)
class ExportInput:
    live: LiveState
    admin_url: str | None


@dataclass(frozen=True, slots=True)
class ExportPart:
    documents: list[ExportedDocument]
    notes: list[str]
    phrase: str | None  # its part of the summary sentence ("12 roles"); None: nothing


@dataclass(frozen=True, slots=True)
class Adopt:
    """How `orgctl adopt` writes a live value into the manifests: `write` returns the
    sentence saying what changed."""

    write: Callable[[ManifestFiles, LiveState, Address], str]


@dataclass(frozen=True, slots=True)
class Kind:
    """Every part of one manifest kind. No part has a default: leaving one out is a
    TypeError where the kind is built. A part a kind does not have is stated as None
    (with its module saying why), never left to a missing branch somewhere else."""

    name: str  # the manifest's `kind`
    model: type[Model]  # its manifest document
    singleton: bool  # at most one document per manifest set
    # The plan addresses of its live resources ("Collaboration", "Workspace", "Invitation").
    addresses: tuple[AddressForm, ...]
    # The set-like lists an overlay may patch with {add, remove}: paths in the document.
    set_fields: tuple[tuple[str, ...], ...]
    identities: Callable[[Document], Iterable[Identity]]  # keys unique across documents
    rules: Callable[[Document, RuleContext], Iterable[Problem]]  # the offline rules
    desired: Callable[[DesiredState, Document], None]  # adds the document's declarations
    # How it reads its live resources: the reader gathers it with every other read and
    # calls what it returns on the live state. None for the kinds live/reader.py reads
    # together (roles, members, collaborations, tasks share their round trips).
    read: Callable[[LiveRead], Coroutine[Any, Any, Fill]] | None
    live: Callable[[LiveState], Iterable[tuple[str, Any]]]  # its part of the fingerprint
    # The service's default of each field it may leave out of an answer (plan/normalize
    # compares an omitted field as this value, so it never shows as drift).
    defaults: Mapping[str, Any]
    unread: Unread | None  # a part the planning account may be refused; None: none
    plan: Callable[[Draft], None]  # its changes and calls
    # Planned after every kind's `plan`, for calls that wait on other kinds' outcome (a
    # role is deleted only after no member holds it); None when the kind has none.
    plan_last: Callable[[Draft], None] | None
    export: Export
    adopt: Adopt | None  # None: its manifests are edited by hand (and why, in `unadoptable`)
    unadoptable: Mapping[str, str]  # address head -> why it cannot be adopted

    def __post_init__(self) -> None:
        missing = [
            f.name
            for f in fields(self)
            if f.name not in _MAY_BE_EMPTY and getattr(self, f.name) in (None, "", ())
        ]
        if missing:
            raise TypeError(f"kind {self.name or '?'} lacks {', '.join(missing)}")
        declared = get_args(self.model.model_fields["kind"].annotation)
        if declared != (self.name,):
            raise TypeError(f"kind {self.name}: its model declares kind {declared}")


_MAY_BE_EMPTY = frozenset(
    {"set_fields", "read", "defaults", "unread", "plan_last", "adopt", "unadoptable"}
)
_KINDS: dict[str, Kind] = {}
_loaded = False


def model_reader(model: type[M]) -> Callable[[Document], M]:
    """A kind's reader of its own documents' models, typed as its class: the registry
    hands a kind's parts only documents of that kind."""

    def read(document: Document) -> M:
        assert isinstance(document.model, model)  # the registry routes by kind
        return document.model

    return read


def register(kind: Kind) -> Kind:
    """Add `kind`; a second kind of the same name (or claiming an address another kind
    owns) is refused with a ValueError."""
    _load_builtin()
    _add(kind)
    return kind


def _add(kind: Kind) -> None:
    if kind.name in _KINDS:
        raise ValueError(f"kind {kind.name} is registered twice")
    heads = {form.head for other in _KINDS.values() for form in other.addresses}
    taken = heads & {form.head for form in kind.addresses}
    if taken:
        raise ValueError(f"kind {kind.name}: addresses {sorted(taken)} belong to another kind")
    _KINDS[kind.name] = kind


def unregister(name: str) -> None:
    """Remove a kind (a test's own kind, when the test is over)."""
    _KINDS.pop(name, None)


def field_defaults(kind: str) -> Mapping[str, Any]:
    """The service's default of every field kind `kind` says it may leave out, by field
    name; kept apart per kind, as two kinds may give one field name different defaults."""
    _load_builtin()
    found = _KINDS.get(kind)
    return found.defaults if found is not None else {}


def unread_part(part: str) -> Unread | None:
    """The `Unread` of the kind whose part `part` is ("WebhookSettings"), or None."""
    for kind in registered():
        if kind.unread is not None and kind.unread.part == part:
            return kind.unread
    return None


def registered() -> tuple[Kind, ...]:
    """Every kind, the built-in ones first, in registration order."""
    _load_builtin()
    return tuple(_KINDS.values())


def kind_named(name: str) -> Kind:
    """The registered kind `name`; LookupError for any other (the loader admits only
    registered kinds, so this is a bug, never user input)."""
    _load_builtin()
    found = _KINDS.get(name)
    if found is None:
        raise LookupError(f"no kind {name!r} is registered")
    return found


def owner(head: str) -> tuple[Kind, AddressForm] | None:
    """The kind and address form whose addresses start with `head` ("Workspace"), or None."""
    for kind in registered():
        for form in kind.addresses:
            if form.head == head:
                return kind, form
    return None


def singletons() -> Iterator[str]:
    """The addresses of resources that exist once per portal ("WebhookSettings")."""
    for kind in registered():
        yield from (form.head for form in kind.addresses if not form.parts)


def grouped() -> Iterator[str]:
    """The heads of addresses with several identity parts, so a shorter address selects a
    group of them ("Workspace/c1": every workspace of c1), as `Workspace/`."""
    for kind in registered():
        yield from (form.head + "/" for form in kind.addresses if form.parts > 1)


def _load_builtin() -> None:
    # Imported on first use, not at the top: the kind modules use the layers that loop
    # over this registry (manifest, plan, export), which must not import them back.
    global _loaded
    if _loaded:
        return
    _loaded = True  # before the imports: a kind module may ask for the registry
    try:
        for module in BUILTIN:
            _add(importlib.import_module(module).KIND)
    except BaseException:
        # A kind that fails to load fails every use of the registry, never leaves it short.
        _KINDS.clear()
        _loaded = False
        raise
