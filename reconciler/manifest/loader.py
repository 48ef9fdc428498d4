"""Read manifest files into validated documents that remember where each key was written.

`yamltree` keeps the line and column of every key and list item, so a pydantic error's
`loc` can be mapped back to the line that caused it. Every problem is collected; nothing
stops at the first.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from reconciler.errors import ManifestError, UserError
from reconciler.kinds.registry import registered
from reconciler.manifest import includes, limits, models, overlay, scope, yamltree
from reconciler.manifest.annotations import fields_at
from reconciler.manifest.folder import list_manifests
from reconciler.manifest.includes import Include
from reconciler.manifest.problems import Problem, counted, field_path
from reconciler.manifest.raw import KeyPath, Raw, locate
from reconciler.manifest.suggestions import closest, did_you_mean
from reconciler.versions import Platform


def kind_names() -> tuple[str, ...]:
    """Every kind a document may have: the Portal's, then the registered kinds'."""
    return ("Portal", *(kind.name for kind in registered()))


@functools.cache
def _adapter(kinds: tuple[type[models.Document], ...]) -> TypeAdapter[models.Document]:
    return TypeAdapter(models.document_union(kinds))


def _validate(value: dict[str, Any]) -> models.Document:
    return _adapter(tuple(kind.model for kind in registered())).validate_python(value)


_SECRET_KEYS = frozenset({"token", "password", "secret", "apikey", "apiKey", "username"})


@dataclass(frozen=True, slots=True)
class Document:
    """One validated manifest document and the YAML tree it came from (for positions)."""

    file: str
    line: int
    model: models.Document
    positions: yamltree.Positions
    # What its problems add after the message: the include and the overlays it owes
    # fields to ("" for a document of the portal folder, as it was written).
    origin: str = ""

    @property
    def kind(self) -> str:
        return self.model.kind

    @property
    def name(self) -> str:
        return self.model.metadata.name

    @property
    def resource(self) -> str:
        return f'{self.kind} "{self.name}"'

    def position(self, path: KeyPath) -> tuple[int, int]:
        _file, line, column = self.locate(path)
        return line, column

    def locate(self, path: KeyPath) -> tuple[str, int, int]:
        """File, line and column of `path`: an overlay's field is in the overlay's file."""
        return locate(self.positions, path, self.file, (self.line, 1))

    def problem(self, path: KeyPath, message: str) -> Problem:
        file, line, column = self.locate(path)
        return Problem(file, line, column, self.resource, field_path(path), message + self.origin)

    def warning(self, path: KeyPath, message: str) -> Problem:
        return self.problem(path, message).as_warning()


@dataclass(slots=True)
class Loaded:
    documents: list[Document]
    problems: list[Problem]
    # Kinds of documents refused ("" when the kind is unknowable, as in unparsable YAML):
    # a broken Portal still counts as one, so the user is not also told there is none.
    rejected_kinds: set[str] = field(default_factory=set)
    # Files holding no orgctl document (a mkdocs.yml, a CI file): not read as manifests.
    ignored: list[str] = field(default_factory=list)
    # The folders the Portal includes, and the documents after includes and overlays
    # (what `render` prints).
    includes: list[Include] = field(default_factory=list)
    resolved: list[Raw] = field(default_factory=list)


@dataclass(slots=True)
class Reading:
    """The documents of some files, before the models check them."""

    documents: list[Raw] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    rejected_kinds: set[str] = field(default_factory=set)
    ignored: list[str] = field(default_factory=list)
    files: int = 0
    unreadable: list[str] = field(default_factory=list)  # entries that cannot be listed

    def add_problem(self, problem: Problem) -> None:
        self.problems.append(problem)
        self.rejected_kinds.add(problem.resource.split(" ")[0])


def manifest_files(path: Path) -> list[Path]:
    """The manifest files of a folder (recursively, sorted) or the one file given; any
    entry that cannot be read is an error naming it."""
    listing = list_manifests(path)
    if listing.problems:
        raise ManifestError([f"{entry}: {why}" for entry, why in listing.problems])
    return listing.files


def load(path: Path) -> Loaded:
    """The manifest set of the portal folder `path`: its documents, those of the folders
    its Portal includes, overlays applied, and documents meant for other portals or
    releases left out (README: Bases and overlays)."""
    own = read(path)
    _refuse_fleet(path, own)
    if not own.files and not own.problems:
        own.problems.append(Problem(str(path), 1, 1, "", "", "no *.yaml or *.yml files found"))
    loaded = Loaded([], own.problems, own.rejected_kinds, own.ignored)
    portal = next((d for d in own.documents if d.kind == "Portal"), None)
    bases = Reading()
    if portal is not None:
        loaded.includes, problems = includes_of(portal, path)
        loaded.problems += problems
        for include in loaded.includes:
            _read_into(bases, include.folder, [f"included by {include.site}"])
        loaded.problems += bases.problems
        loaded.rejected_kinds |= bases.rejected_kinds
        loaded.ignored += bases.ignored
    name, platform = _portal_facts(portal)
    mine, others = _scoped(own.documents, name, platform)
    shared, others_shared = _scoped(bases.documents, name, platform)
    others += others_shared
    merged = overlay.merge(shared, mine)
    loaded.problems += merged.problems
    loaded.rejected_kinds |= merged.rejected_kinds
    loaded.resolved = merged.documents
    for raw in merged.documents:
        _check(loaded, raw, keep=True)
    for raw in others:
        _check(loaded, raw, keep=False)  # its shape still, though it is not for this portal
    return loaded


def _refuse_fleet(path: Path, own: Reading) -> None:
    """One portal's command (apply, render, adopt) given a fleet root would report every
    portal's Portal as a second one: say what it is instead."""
    folders = sorted({Path(d.file).parent for d in own.documents if d.kind == "Portal"})
    nested = any(a in b.parents for a in folders for b in folders)
    if len(folders) < 2 or nested:
        return  # one portal; or Portals inside a portal folder, which the rules name
    if own.unreadable:
        # Which portals the fleet holds is unknown past what cannot be read: name that.
        raise ManifestError(own.unreadable)
    shown = ", ".join(f.as_posix() for f in folders[:5])
    more = f" and {len(folders) - 5} more" if len(folders) > 5 else ""
    raise UserError(
        f"{path.as_posix()} is a fleet of {len(folders)} portal folders ({shown}{more}):"
        f" name one portal folder, such as {folders[0].as_posix()}"
    )


def read(path: Path) -> Reading:
    """Every document of the files of a folder (or the one file), unchecked."""
    reading = Reading()
    _read_into(reading, path, [])
    return reading


def _read_into(reading: Reading, path: Path, notes: list[str]) -> None:
    listing = list_manifests(path)
    # An entry that cannot be listed says nothing of its kind (see Loaded.rejected_kinds).
    reading.problems += [Problem(str(entry), 1, 1, "", "", why) for entry, why in listing.problems]
    reading.unreadable += [f"{entry}: {why}" for entry, why in listing.problems]
    reading.files += len(listing.files)
    for file in listing.files:
        _read_file(reading, file, notes)


def _read_file(reading: Reading, file: Path, notes: list[str]) -> None:
    name = str(file)
    try:
        size = file.stat().st_size
        if size > limits.MAX_FILE_BYTES:
            reading.add_problem(
                Problem(name, 1, 1, "", "", f"{size:,} bytes: larger than any manifest")
            )
            return
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reading.add_problem(Problem(name, 1, 1, "", "", f"cannot read: {exc}"))
        return
    found: list[yamltree.Tree] = []
    error: Problem | None = None
    try:
        # Documents read before an error are still checked, so that every problem of the
        # file is reported.
        # An empty document (a trailing `---`, one holding only comments) is no document,
        # as YAML has it.
        found.extend(tree for tree in yamltree.trees(text) if tree and tree.value is not None)
    except yamltree.TreeError as exc:
        error = Problem(name, exc.line, exc.column, "", "", f"YAML: {exc.message}")
    if not any(_is_orgctl(tree.value) for tree in found) and not (
        error and looks_like_manifest(text)
    ):
        if found or error:
            reading.ignored.append(name)
        return
    reading.documents += [Raw(name, tree, list(notes)) for tree in found]
    if error:
        reading.add_problem(error)


# A file is orgctl's when one of its documents says `apiVersion: orgctl/...` (or a
# misspelling of it), or names a kind of orgctl's with an apiVersion that names no other
# tool's API group (absent, `123`, `v1`): a forgotten or mistyped line must be an error,
# never a manifest silently unmanaged. Text that does not parse is judged by the same words.
@functools.cache
def _manifest_text(kinds: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(
        r"^\s*(apiVersion:\s*[\"']?orgctl/|kind:\s*[\"']?(" + "|".join(kinds) + r")\b)",
        re.MULTILINE,
    )


def looks_like_manifest(text: str) -> bool:
    """Whether text that is no valid YAML was meant as an orgctl manifest."""
    return bool(_manifest_text(kind_names()).search(text))


def _is_orgctl(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    api = value.get("apiVersion")
    group = _api_group(api)
    if group is not None:
        # Another tool's API (a Kubernetes `rbac.authorization.k8s.io/v1` Role) is not
        # ours; a misspelt `orgclt/v1` is.
        return group == "orgctl" or closest(group, ["orgctl"]) is not None
    return value.get("kind") in kind_names() or str(api).startswith("orgctl/")


def _api_group(api: Any) -> str | None:
    """The group of an `apiVersion` written `group/version`, else None."""
    if not isinstance(api, str):
        return None
    group, slash, version = api.partition("/")
    return group if slash and group and version else None


def includes_of(portal: Raw, folder: Path) -> tuple[list[Include], list[Problem]]:
    """The folders the Portal document `portal` of the portal folder `folder` includes,
    and a problem for each entry refused."""
    spec = portal.value.get("spec")
    written = spec.get("include") if isinstance(spec, dict) else None
    if not isinstance(written, list):
        return [], []  # absent, or a shape the models report
    at = portal.positions.children["spec"].children["include"]
    entries = [
        includes.Entry(text, index, at.children[index].line, at.children[index].column)
        for index, text in enumerate(written)
        if isinstance(text, str)
    ]
    return includes.resolve(entries, portal.file, folder, portal.label)


def _portal_facts(portal: Raw | None) -> tuple[str | None, Platform | None]:
    """The Portal's name and declared platform, as far as they can be read."""
    if portal is None:
        return None, None
    spec = portal.value.get("spec")
    platform = None
    if isinstance(spec, dict):
        try:
            platform = Platform.parse(str(spec.get("deployment")), str(spec.get("version")))
        except ValueError:
            platform = None
    return portal.name, platform


def _scoped(
    documents: list[Raw], portal: str | None, platform: Platform | None
) -> tuple[list[Raw], list[Raw]]:
    mine: list[Raw] = []
    others: list[Raw] = []
    for document in documents:
        (mine if scope.applies(document.metadata, portal, platform) else others).append(document)
    return mine, others


def _check(loaded: Loaded, raw: Raw, keep: bool) -> None:
    for problem_or_doc in _document(raw):
        if isinstance(problem_or_doc, Problem):
            loaded.problems.append(problem_or_doc)
            loaded.rejected_kinds.add(problem_or_doc.resource.split(" ")[0])
        elif keep:
            loaded.documents.append(problem_or_doc)


def document_problems(raw: Raw) -> list[Problem]:
    """The problems of one document as its model finds them, each where it was written
    (an overlay's field in the overlay's file)."""
    return [found for found in _document(raw) if isinstance(found, Problem)]


def _document(raw: Raw) -> Iterator[Document | Problem]:
    file, line, value = raw.file, raw.line, raw.value
    if not isinstance(value, dict):
        yield Problem(file, line, 1, "", "", "a document must be a mapping" + raw.origin)
        return
    resource = raw.label
    kind = value.get("kind")
    if kind not in kind_names():
        at_file, at_line, at_column = raw.locate(("kind",))
        expected = ", ".join(kind_names())
        hint = did_you_mean(str(kind), kind_names()) if kind is not None else ""
        message = (
            f"unknown kind {kind!r}{hint}; expected one of {expected}"
            if kind is not None
            else f"required field is missing (one of {expected})"
        )
        if kind == "Test":  # a scenario of `orgctl test`, put where manifests are read
            message = "a Test document is no manifest: `orgctl test` runs it; keep it in a"
            message += " folder beside the portal folder (tests/ next to portals/)"
        yield Problem(at_file, at_line, at_column, resource, "kind", message + raw.origin)
        return
    try:
        model = _validate(value)
    except ValidationError as exc:
        yield from validation_problems(raw, resource, exc)
        return
    yield Document(file, line, model, raw.positions, raw.origin)


# What a sort of pydantic error is, counted: "… and 199,990 more unknown keys".
_SORTS = {"extra_forbidden": "unknown keys", "missing": "missing fields"}


def validation_problems(raw: Raw, resource: str, exc: ValidationError) -> Iterator[Problem]:
    """The model's errors, the first few of each sort, and how many more there are."""
    by_sort: dict[str, list[Any]] = {}
    for error in exc.errors(include_url=False):
        by_sort.setdefault(error["type"], []).append(error)
    limit = limits.MAX_PROBLEMS_OF_A_SORT
    for sort, errors in by_sort.items():
        yield from (_validation_problem(raw, resource, error) for error in errors[:limit])
        if len(errors) > limit:
            first = _validation_problem(raw, resource, errors[limit])
            more = _SORTS.get(sort, "problems of this sort") + raw.origin
            yield counted(first, len(errors) - limit, more)


def _validation_problem(raw: Raw, resource: str, error: Any) -> Problem:
    loc: KeyPath = tuple(error["loc"])
    kind = raw.value.get("kind")
    if loc and loc[0] == kind:
        loc = loc[1:]  # the discriminated union puts the kind first
    file, line, column = raw.locate(loc)
    message = _message(loc, error, _document_models().get(str(kind)))
    return Problem(file, line, column, resource, field_path(loc), message + raw.origin)


def _document_models() -> dict[str, type[models.Document]]:
    """Each kind's document model, the Portal's included."""
    return {"Portal": models.Portal, **{kind.name: kind.model for kind in registered()}}


def _message(loc: KeyPath, error: Any, model: type[models.Document] | None) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        key = loc[-1] if loc else "?"
        if len(loc) >= 2 and loc[-2] == "auth" and key in _SECRET_KEYS:
            return (
                f"a literal secret ({key!r}) may not be written in a manifest; auth holds only"
                " environment variable names: tokenEnv, or usernameEnv + passwordEnv"
            )
        fields = fields_at(model, loc[:-1]) if model is not None else []
        return f"unknown field {key!r}{did_you_mean(str(key), fields)}"
    if kind == "missing":
        return "required field is missing"
    if loc == ("apiVersion",):
        return f"must be {models.API_VERSION!r}, not {error['input']!r}"
    if kind == "string_type" and loc[-1:] == ("version",):
        return 'must be a quoted string such as "10.6.1" (YAML reads 10.10 as the number 10.1)'
    message: str = error["msg"]
    return message.removeprefix("Value error, ")
