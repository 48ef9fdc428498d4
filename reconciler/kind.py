"""The kind contract and its registry (as octoDNS registers its record types): the
kernel every layer may use.

A kind is one module under `reconciler/kinds/` that builds one `Kind`; the package's
`__init__.py` imports the built-in ones and hands them to `builtin` in their order. The
code that works on every kind (validation, desired state, planning, the fingerprint,
export, adopt) loops over `registered()`, so it names no kind. Registering a kind twice
is refused, and a kind that lacks a part fails where it is built, at import, never
silently at run time.

This module imports only the kernel below it. The engine's own types (a loaded manifest
document, a rule's context, the planner's draft, the live client) are named here by the
small protocols a kind's parts are typed against, and a `Kind` is generic in them: a kind
module names the engine's concrete classes, which the protocols' bounds check, while the
engine, which holds every kind at once, sees them as `AnyKind`.
"""

from __future__ import annotations

from collections.abc import (
    Awaitable,
    Callable,
    Collection,
    Coroutine,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field, fields
from typing import Any, Generic, Protocol, TypeVar, get_args

from pydantic import BaseModel

from reconciler.operations import OperationName, ReadName
from reconciler.state import DesiredState, Grant, LiveState, PortalInfo, Side


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
        """The address of one resource; `below` names a group of them. (Called for every
        member several times a plan: kept to one length check and one formatting, a join
        only for several parts.)"""
        if len(ids) != len(self.names):
            raise ValueError(f"{self.head} addresses have {self.parts} part(s), got {ids!r}")
        return f"{self.head}/{ids[0]}" if len(ids) == 1 else "/".join((self.head, *ids))

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
X = TypeVar("X")
M = TypeVar("M", bound=BaseModel)


class ManifestDocument(Protocol):
    """A loaded manifest document (manifest/loader.py): its place and its model."""

    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def model(self) -> BaseModel: ...


# The engine's types a kind's parts take, each checked against what the kernel needs of it.
ModelT = TypeVar("ModelT", bound=BaseModel)  # manifest/models.Document: the kind's model
DocumentT = TypeVar("DocumentT", bound=ManifestDocument)  # manifest/loader.Document
ContextT = TypeVar("ContextT")  # manifest/checks.RuleContext: what the rules know of the set
ProblemT = TypeVar("ProblemT")  # manifest/problems.Problem: one finding of validation
DraftT = TypeVar("DraftT")  # plan/draft.Draft: the plan being built
ExportedT = TypeVar("ExportedT")  # export/documents.Document: one document export writes
FilesT = TypeVar("FilesT")  # adopt/files.ManifestFiles: the manifests adopt edits
AddressT = TypeVar("AddressT")  # adopt/addresses.Address: the address adopt was given


class PortalReads(Protocol):
    """What a kind's read may ask of the live client (live/client.py) itself: a read at
    the admin root, where the reader's `pages` and `one` go to the portal's."""

    @property
    def root(self) -> str: ...

    @property
    def admin_root(self) -> str | None: ...

    def admin_url(self, path: str) -> str: ...

    async def get_json(
        self, path: str, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]: ...


class LiveRead(Protocol):
    """What live/reader.py offers a kind's `read`: every kind's read goes out in the same
    round of concurrent requests as the rest, and shares the reader's bookkeeping."""

    @property
    def client(self) -> PortalReads: ...

    desired: DesiredState | None  # None: the whole portal is read (export)
    everything: bool  # the whole portal is read, whatever the manifests declare
    unread: dict[str, str]  # part -> why the signed-in member may not read it (403)

    async def portal(self) -> PortalInfo:
        """`portals/self`, read first and once."""
        ...

    async def portal_id(self) -> str: ...

    async def pages(
        self, read: ReadName, params: dict[str, str] | None = None, **arguments: str
    ) -> list[dict[str, Any]]:
        """Every entry of a paged listing of the reads table."""
        ...

    async def converted_pages(
        self,
        read: ReadName,
        convert: Callable[[list[dict[str, Any]]], Awaitable[list[T]]],
        params: dict[str, str] | None = None,
        *,
        expected: int = 0,
        arguments: dict[str, str] | None = None,
    ) -> list[T]:
        """What `convert` makes of each page of a listing, page by page as they come
        (`expected`: the entries the manifests suggest, so the first pages go out at once)."""
        ...

    def once(self, read: Callable[[LiveRead], Coroutine[Any, Any, T]]) -> Awaitable[T]:
        """What `read` finds, read once however many kinds' reads ask for it, in the same
        round as the rest (the member listing names custom roles by id: Members awaits
        Role's listing rather than reading it again)."""
        ...

    async def one(
        self, read: ReadName, params: dict[str, Any] | None = None, **arguments: str
    ) -> dict[str, Any]:
        """One answer of the reads table."""
        ...

    # The guard and the containment every read goes through, so one refused or unreadable
    # resource leaves the rest read and planned:
    async def permitted(self, part: str, read: Awaitable[T], fallback: T) -> T:
        """The read's answer, or `fallback` with `part` kept in `unread` (403)."""
        ...

    def readable(self, convert: Callable[[], T]) -> T | None:
        """`convert()`, or None with the resource kept as unreadable."""
        ...

    def kept(self, entries: Iterable[X], convert: Callable[[X], T]) -> list[T]:
        """`readable` over a listing."""
        ...

    def distinct(
        self, found: list[T], field: str, key: Callable[[T], str], address: Callable[[T], str]
    ) -> list[T]:
        """`found` less the entries whose `field` another one repeats (unreadable)."""
        ...


# What a kind's read returns: how its findings fill the live state, once every read is in.
Fill = Callable[[LiveState], None]


@dataclass(frozen=True, slots=True)
class Unread:
    """What a plan does when the signed-in member may not read the kind's `part` (a key
    of `LiveState.unread`, 403; one ending in "/" stands for every key below it, as
    "Member/" for each member's details): `read` is the read refused (its access says who
    may), `declared` the addresses whose fields depend on one such key (None: the kind's
    own plan says what it could not compare), `forget` the live state without the parts not read,
    given each with why (a saved plan's account could not read them, so the applier
    compares the same)."""

    part: str
    read: ReadName
    declared: Callable[[DesiredState, str], list[str]] | None
    forget: Callable[[LiveState, Mapping[str, str]], LiveState]

    def covers(self, part: str) -> bool:
        """Whether `part`, a key of `LiveState.unread`, is this kind's."""
        return part == self.part or (self.part.endswith("/") and part.startswith(self.part))


@dataclass(frozen=True, slots=True)
class Grants:
    """How the kind's time-bound grants (README: Temporary access), which its `desired`
    keeps in `DesiredState.grants` by address, change what it declares at an evaluation
    time: `apply` is the desired state with the grants in force applied (given by
    address, each address's in declared order); `held` says whether the live state still
    gives an expired grant's access that the desired state at that time (its last
    argument) does not, which makes the change taking it back an overdue revocation."""

    apply: Callable[[DesiredState, Mapping[str, Sequence[Grant]]], DesiredState]
    held: Callable[[Grant, LiveState, DesiredState], bool]


@dataclass(frozen=True, slots=True)
class Identities(Generic[DocumentT]):
    """Keys a manifest set may declare once, of one sort in one document (a role's name, a
    Members document's usernames): `what` names them in a message, `fold` says which
    spellings are the same key. One record holds all of a document's keys of a sort: the
    name rules and the duplicate check go over the keys themselves, where a record per key
    cost a fifth of a second at 100,000 usernames."""

    what: str
    document: DocumentT
    keys: Collection[str]
    path: tuple[str | int, ...]  # manifest/raw.KeyPath: the key's, or with `keyed` its mapping's
    keyed: bool
    fold: Callable[[str], str] = str

    @classmethod
    def named(
        cls,
        what: str,
        document: DocumentT,
        path: tuple[str | int, ...],
        key: str,
        fold: Callable[[str], str] = str,
    ) -> Identities[DocumentT]:
        """One key, written at `path` (a role's metadata.name)."""
        return cls(what, document, (key,), path, False, fold)

    @classmethod
    def under(
        cls,
        what: str,
        document: DocumentT,
        path: tuple[str | int, ...],
        keys: Collection[str],
        fold: Callable[[str], str] = str,
    ) -> Identities[DocumentT]:
        """The keys of the mapping at `path` (the usernames under spec.members)."""
        return cls(what, document, keys, path, True, fold)

    def at(self, key: str) -> tuple[str | int, ...]:
        """Where `key`, one of `keys`, is written."""
        return (*self.path, key) if self.keyed else self.path


@dataclass(frozen=True, slots=True)
class Write:
    """A write a kind's declarations may need, not only today's plan's (`orgctl doctor`
    checks the applying member may make it): its operation, the address it is sent for,
    and what decides who may make it: its arguments (a task's owner) and the side of its
    collaboration this portal is on."""

    operation: OperationName
    address: str
    arguments: Mapping[str, str] = field(default_factory=dict)
    side: Side | None = None


@dataclass(frozen=True, slots=True)
class Export(Generic[ExportedT]):
    """What `orgctl export` writes of the kind: its file, and its part of the export.
    A kind without a file states a policy no live portal can tell: its part is notes."""

    file: str | None
    write: Callable[[ExportInput], ExportPart[ExportedT]]


@dataclass(frozen=True, slots=True)
class ExportInput:
    live: LiveState
    admin_url: str | None


@dataclass(frozen=True, slots=True)
class ExportPart(Generic[ExportedT]):
    documents: list[ExportedT]
    notes: list[str]
    phrase: str | None  # its part of the summary sentence ("12 roles"); None: nothing


@dataclass(frozen=True, slots=True)
class Adopt(Generic[FilesT, AddressT]):
    """How `orgctl adopt` writes a live value into the manifests: `write` returns the
    sentence saying what changed."""

    write: Callable[[FilesT, LiveState, AddressT], str]


@dataclass(frozen=True, slots=True)
class Kind(Generic[ModelT, DocumentT, ContextT, ProblemT, DraftT]):
    """Every part of one manifest kind. No part has a default: leaving one out is a
    TypeError where the kind is built. A part a kind does not have is stated as None
    (with its module saying why), never left to a missing branch somewhere else."""

    name: str  # the manifest's `kind`
    model: type[ModelT]  # its manifest document
    singleton: bool  # at most one document per manifest set
    # The plan addresses of its live resources ("Collaboration", "Workspace", "Invitation").
    addresses: tuple[AddressForm, ...]
    # The set-like lists an overlay may patch with {add, remove}: paths in the document.
    set_fields: tuple[tuple[str, ...], ...]
    # The keys unique across documents.
    identities: Callable[[DocumentT], Iterable[Identities[DocumentT]]]
    rules: Callable[[DocumentT, ContextT], Iterable[ProblemT]]  # the offline rules
    desired: Callable[[DesiredState, DocumentT], None]  # adds the document's declarations
    # How it reads its live resources: the reader gathers it with every other read and
    # calls what it returns on the live state. None for a kind with no live resources
    # (Policy, Campaign: what they judge is the other kinds' state).
    read: Callable[[LiveRead], Coroutine[Any, Any, Fill]] | None
    # Whether its live resources say who holds what (roles, their members): an access
    # review reads only these kinds (live/reader.read_people).
    people: bool
    live: Callable[[LiveState], Iterable[tuple[str, Any]]]  # its part of the fingerprint
    # The service's default of each field it may leave out of an answer (plan/normalize
    # compares an omitted field as this value, so it never shows as drift).
    defaults: Mapping[str, Any]
    unread: Unread | None  # a part the planning account may be refused; None: none
    # How its time-bound grants apply at an evaluation time, which is all the planner
    # sees of them; None when it declares none.
    grants: Grants | None
    # Run on the draft before any kind's `plan`, for a kind that files the live state
    # under the manifests' names or completes its declarations from it (Role: a renamed
    # role, the live privileges its ignore patterns keep); None when the kind has none.
    prepare: Callable[[DraftT], None] | None
    plan: Callable[[DraftT], None]  # its changes and calls
    # Planned after every kind's `plan`, for calls that wait on other kinds' outcome (a
    # role is deleted only after no member holds it); None when the kind has none.
    plan_last: Callable[[DraftT], None] | None
    # Run once every change is known and --target applied: its checks of the plan as kept
    # and what its changes carry of the resources around them (Role: what the applying
    # member would lose midway, a privilege the release lacks, an ignore pattern naming
    # none, a role's holders, administrative privileges the portal grants that the
    # manifests do not); None when it has none.
    annotate: Callable[[DraftT], None] | None
    # The writes its declarations may need, whatever today's plan sends; None: it has
    # none, or leaves them to today's plan.
    writes: Callable[[DesiredState, LiveState], Iterable[Write]] | None
    # The privileges each of its live resources holds, by address, for `orgctl doctor` to
    # check against the catalog; None: its resources hold none of their own.
    privileges: Callable[[LiveState], Iterable[tuple[str, frozenset[str]]]] | None
    export: Export[Any]
    adopt: (
        Adopt[Any, Any] | None
    )  # None: its manifests are edited by hand (and why, in `unadoptable`)
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


AnyKind = Kind[Any, Any, Any, Any, Any]  # a kind as the engine holds it, among the others

_MAY_BE_EMPTY = frozenset(
    {
        "set_fields",
        "read",
        "defaults",
        "unread",
        "grants",
        "prepare",
        "plan_last",
        "annotate",
        "writes",
        "privileges",
        "adopt",
        "unadoptable",
    }
)
_KINDS: dict[str, AnyKind] = {}
_builtin_loaded = False


def model_reader(model: type[M]) -> Callable[[ManifestDocument], M]:
    """A kind's reader of its own documents' models, typed as its class: the registry
    hands a kind's parts only documents of that kind."""

    def read(document: ManifestDocument) -> M:
        assert isinstance(document.model, model)  # the registry routes by kind
        return document.model

    return read


def builtin(*kinds: AnyKind) -> None:
    """Register the kinds orgctl ships, in the order they are validated, planned and
    exported (a plan's problems are listed in this order): `reconciler/kinds/__init__.py`
    calls it once, so importing that package is what loads them."""
    global _builtin_loaded
    if _builtin_loaded or _KINDS:
        raise ValueError("the built-in kinds are registered once, ahead of any other")
    try:
        for kind in kinds:
            _add(kind)
    except BaseException:
        # A kind that fails to load fails every use of the registry, never leaves it short.
        _KINDS.clear()
        raise
    _builtin_loaded = True


def register(kind: AnyKind) -> AnyKind:
    """Add `kind` after the built-in ones; a second kind of the same name (or claiming an
    address another kind owns) is refused with a ValueError."""
    _require_builtin()
    _add(kind)
    return kind


def _add(kind: AnyKind) -> None:
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
    _require_builtin()
    found = _KINDS.get(kind)
    return found.defaults if found is not None else {}


def unread_part(part: str) -> Unread | None:
    """The `Unread` of the kind whose part `part` is ("WebhookSettings", "Member/ann"),
    or None."""
    for kind in registered():
        if kind.unread is not None and kind.unread.covers(part):
            return kind.unread
    return None


def registered() -> tuple[AnyKind, ...]:
    """Every kind, the built-in ones first, in registration order."""
    _require_builtin()
    return tuple(_KINDS.values())


def kind_named(name: str) -> AnyKind:
    """The registered kind `name`; LookupError for any other (the loader admits only
    registered kinds, so this is a bug, never user input)."""
    _require_builtin()
    found = _KINDS.get(name)
    if found is None:
        raise LookupError(f"no kind {name!r} is registered")
    return found


def owner(head: str) -> tuple[AnyKind, AddressForm] | None:
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


def _require_builtin() -> None:
    # The kinds stand above the engine that loops over them, so the kernel cannot import
    # them: whoever stands above both (the CLI, a program using the library, the test
    # suite's conftest) imports `reconciler.kinds` once. Forgetting it is a bug of that
    # caller, said here rather than seen as a portal with no kinds.
    if not _builtin_loaded:
        raise RuntimeError("no kinds are loaded: import reconciler.kinds before using them")
