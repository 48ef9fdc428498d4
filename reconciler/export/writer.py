"""Write the manifests that describe a live portal into one folder, one file per kind."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from reconciler.addresses import extras
from reconciler.errors import UserError
from reconciler.export import documents as docs
from reconciler.export.summary import ExportSummary
from reconciler.kinds.registry import ExportInput, registered
from reconciler.manifest.writer import render
from reconciler.state import Auth, LiveState

PORTAL_FILE = "portal.yaml"


def export_files() -> tuple[str, ...]:
    """Every file an export writes: the Portal's, then one per exported kind."""
    return (PORTAL_FILE, *(k.export.file for k in registered() if k.export.file))


# Where a repository keeps the schema (`orgctl schema > schemas/orgctl-v1.schema.json`).
SCHEMA_PATH = Path("schemas") / "orgctl-v1.schema.json"
SCHEMA_NOTE = (
    "No yaml-language-server $schema line: no schemas/orgctl-v1.schema.json was found in"
    " this folder or above it (write it with `orgctl schema`, then export again)."
)


def schema_modeline(out: Path) -> str | None:
    """The editor's `$schema` line for files in `out`: the path from `out` to the nearest
    schemas/orgctl-v1.schema.json in it or above it (a guessed path would make editors
    report every line, so none when there is no such file)."""
    folder = out.resolve()
    for base in (folder, *folder.parents):
        if (base / SCHEMA_PATH).is_file():
            relative = os.path.relpath(base / SCHEMA_PATH, folder)
            return f"yaml-language-server: $schema={Path(relative).as_posix()}"
    return None


@dataclass(frozen=True, slots=True)
class ManifestFile:
    """One file of an export: its name in the folder and its YAML."""

    name: str
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8")


@dataclass(frozen=True, slots=True)
class Exported:
    """The manifests that describe a live portal, not yet written: one file per kind."""

    files: tuple[ManifestFile, ...]
    counts: Mapping[str, int]  # documents, per kind
    phrases: tuple[str, ...]  # what was exported, per kind: "12 roles", "240 members"
    notes: tuple[str, ...]  # live facts the format cannot express, or left unread

    def write(self, out: Path, force: bool = False) -> ExportSummary:
        """Write the files into folder `out`: refused when it is not empty, unless
        `force`; then an earlier export's files this one does not write are removed."""
        written = _write(out, self.files, force)
        return ExportSummary(out, dict(self.counts), self.phrases, written, self.notes)


@dataclass(slots=True)
class _Export:
    """The files of one export as they are built, with what they count and leave out."""

    live: LiveState
    header: list[str]
    files: list[ManifestFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    phrases: list[str] = field(default_factory=list)

    def add(self, kind: str, name: str, documents: list[docs.Document]) -> None:
        self.counts[kind] = len(documents)
        if documents:
            self.files.append(ManifestFile(name, render(documents, self.header)))

    def done(self) -> Exported:
        return Exported(tuple(self.files), self.counts, tuple(self.phrases), tuple(self.notes))


def write_manifests(
    live: LiveState,
    out: Path,
    *,
    portal_url: str,
    admin_url: str | None,
    auth: Auth,
    name: str | None = None,
    exported_at: datetime | None = None,
    force: bool = False,
) -> ExportSummary:
    """Write manifests describing `live` into folder `out`; `orgctl plan out` then shows
    no changes. `auth` names the environment variables of the credentials (never the
    secrets). `exported_at` goes into each file's header ("now" when not given).

    A non-empty `out` is refused unless `force`; then the files of an earlier export that
    this one does not write are removed, and any other file is left alone.
    """
    exported = export_manifests(
        live,
        portal_url=portal_url,
        admin_url=admin_url,
        auth=auth,
        name=name,
        exported_at=exported_at,
        out=out,
    )
    return exported.write(out, force)


def export_manifests(
    live: LiveState,
    *,
    portal_url: str,
    admin_url: str | None,
    auth: Auth,
    name: str | None = None,
    exported_at: datetime | None = None,
    out: Path | None = None,
) -> Exported:
    """The manifests describing `live`, file by file, unwritten. `out`, the folder they
    are meant for, gives each file the editor's line to the schema found above it."""
    _check_url("portal URL", portal_url)
    if admin_url:
        _check_url("admin URL", admin_url)
    _check_auth(auth)
    modeline = schema_modeline(out) if out is not None else None
    export = _Export(live, _header(portal_url, exported_at, modeline))
    _add_portal(export, name=name, url=portal_url, admin_url=admin_url, auth=auth)
    _add_kinds(export, ExportInput(live, admin_url))
    return export.done()


def _add_kinds(export: _Export, given: ExportInput) -> None:
    """Each kind's file, then what could not be read, then what the policy kinds (those
    without a file) leave out, and that they are not exported."""
    parts = [(kind, kind.export.write(given)) for kind in registered()]
    for kind, part in parts:
        if kind.export.file:
            export.add(kind.name, kind.export.file, part.documents)
            export.notes.extend(part.notes)
        if part.phrase:
            export.phrases.append(part.phrase)
    export.notes.extend(_unreadable(given.live))
    policies = [(kind, part) for kind, part in parts if not kind.export.file]
    export.notes.extend(note for _, part in policies for note in part.notes)
    if policies:
        names = " and ".join(kind.name for kind, _ in policies)
        export.notes.append(
            f"{names} are not exported: they state what must be deleted,"
            " which no live portal can tell"
        )


def _add_portal(
    export: _Export, *, name: str | None, url: str, admin_url: str | None, auth: Auth
) -> None:
    live = export.live
    extra = docs.unknown_privileges(live)
    if extra:
        export.notes.append(
            f"privileges outside the catalog for {live.portal.platform}, listed in the"
            f" Portal's extraPrivileges: {', '.join(extra)}"
        )
    portal = docs.portal_document(
        live,
        name=name or _default_name(live),
        url=url,
        admin_url=admin_url,
        auth=auth,
        extra_privileges=extra,
    )
    export.add("Portal", PORTAL_FILE, [portal])


def _header(portal_url: str, exported_at: datetime | None, modeline: str | None) -> list[str]:
    when = "now"
    if exported_at is not None:
        moment = exported_at if exported_at.tzinfo else exported_at.replace(tzinfo=UTC)
        when = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    exported = f"Exported by orgctl export from {portal_url} at {when} — review before committing."
    # An editor reads the modeline only on the file's first line.
    return [modeline, exported] if modeline else [exported, SCHEMA_NOTE]


def _default_name(live: LiveState) -> str:
    """A label for the Portal document: the portal's name as a slug (`Field Office` →
    `field-office`), else its id."""
    slug = re.sub(r"[^a-z0-9]+", "-", live.portal.name.lower()).strip("-")
    return slug or live.portal.id


def _unreadable(live: LiveState) -> list[str]:
    """Live resources that could not be read, or that the account may not read: written
    out, they would claim values nobody saw."""
    notes = [
        f"{address} left out: its live values could not be read ({why})"
        for address, why in sorted(live.unreadable.items())
    ]
    notes += [
        f"{part} left out: the signed-in account may not read it ({why})"
        for part, why in sorted(live.unread.items())
    ]
    return notes


def _check_url(what: str, url: str) -> None:
    """The URL goes into a committed file, so it must not carry a credential."""
    if extras(url):
        raise UserError(
            f"the {what} must be a plain address without user info, query or fragment"
            " (credentials come from the environment)"
        )


def _check_auth(auth: Auth) -> None:
    if auth.tokenEnv or (auth.usernameEnv and auth.passwordEnv):
        return
    raise UserError("export needs tokenEnv, or both usernameEnv and passwordEnv")


def check_output_folder(out: Path, force: bool) -> None:
    """Refuse a file, or a non-empty folder unless `force` (the CLI asks before reading)."""
    if out.exists() and not out.is_dir():
        raise UserError(f"output {out} is a file, not a folder")
    blocking = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise UserError(f"output {out} cannot be created: {blocking} is a file, not a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise UserError(
            f"output folder {out} is not empty; choose an empty folder, or pass --force to"
            " overwrite the files of an earlier export"
        )


def _write(out: Path, files: tuple[ManifestFile, ...], force: bool) -> tuple[Path, ...]:
    check_output_folder(out, force)
    try:
        out.mkdir(parents=True, exist_ok=True)
        names = {f.name for f in files}
        for stale in export_files():
            if stale not in names:
                (out / stale).unlink(missing_ok=True)
        for f in files:
            (out / f.name).write_bytes(f.content)
    except OSError as exc:
        raise UserError(f"output {out}: cannot write ({exc.strerror or exc})") from None
    return tuple(out / f.name for f in files)
