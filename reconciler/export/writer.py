"""Write the manifests that describe a live portal into one folder, one file per kind."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from reconciler import catalog
from reconciler.addresses import extras
from reconciler.catalog import Feature
from reconciler.errors import UserError
from reconciler.export import documents as docs
from reconciler.export.summary import ExportSummary
from reconciler.manifest.writer import render
from reconciler.state import Auth, LiveState

PORTAL_FILE = "portal.yaml"
ROLES_FILE = "roles.yaml"
MEMBERS_FILE = "members.yaml"
COLLABORATIONS_FILE = "collaborations.yaml"
WEBHOOK_SETTINGS_FILE = "webhook-settings.yaml"
FILES = (PORTAL_FILE, ROLES_FILE, MEMBERS_FILE, COLLABORATIONS_FILE, WEBHOOK_SETTINGS_FILE)

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
class _File:
    name: str
    content: bytes


@dataclass(slots=True)
class _Export:
    """The files of one export as they are built, with what they count and leave out."""

    live: LiveState
    header: list[str]
    files: list[_File] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    roles: int = 0
    collaborations: int = 0
    workspaces: int = 0
    settings: bool = False

    def add(self, name: str, documents: list[docs.Document]) -> None:
        if documents:
            self.files.append(_File(name, render(documents, self.header)))

    def summary(self, out: Path, written: tuple[Path, ...]) -> ExportSummary:
        return ExportSummary(
            folder=out,
            roles=self.roles,
            members=len(self.live.members),
            collaborations=self.collaborations,
            workspaces=self.workspaces,
            webhookSettings=self.settings,
            files=written,
            notes=tuple(self.notes),
        )


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
    _check_url("portal URL", portal_url)
    if admin_url:
        _check_url("admin URL", admin_url)
    _check_auth(auth)
    export = _Export(live, _header(portal_url, exported_at, schema_modeline(out)))
    _add_portal(export, name=name, url=portal_url, admin_url=admin_url, auth=auth)
    _add_roles(export)
    member_document = docs.members_document(live)
    export.add(MEMBERS_FILE, [member_document] if member_document else [])
    _add_collaborations(export)
    _add_webhook_settings(export, admin_url)
    export.notes.extend(_unexpressed(live))
    return export.summary(out, _write(out, export.files, force))


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
    export.add(PORTAL_FILE, [portal])


def _add_roles(export: _Export) -> None:
    roles = docs.role_documents(export.live)
    export.add(ROLES_FILE, roles)
    export.roles = len(roles)
    fixed = sorted(r.name for r in export.live.roles.values() if not r.editable)
    if fixed:
        export.notes.append(f"pre-built roles that cannot be edited, left out: {', '.join(fixed)}")


def _add_collaborations(export: _Export) -> None:
    found = docs.collaboration_documents(export.live)
    export.add(COLLABORATIONS_FILE, found.documents)
    export.collaborations = len(found.documents)
    export.workspaces = found.workspaces
    if found.pending_invitations:
        export.notes.append(
            f"{found.pending_invitations} invitation(s) that are still valid, left out: a"
            " manifest can only require an invitation to be invalid"
        )


def _add_webhook_settings(export: _Export, admin_url: str | None) -> None:
    settings = docs.webhook_settings_document(export.live) if admin_url else None
    if settings is None:
        export.notes.extend(_settings_notes(export.live, admin_url))
        return
    export.add(WEBHOOK_SETTINGS_FILE, [settings])
    export.settings = True


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


def _settings_notes(live: LiveState, admin_url: str | None) -> list[str]:
    platform = live.portal.platform
    if catalog.feature_problem(Feature.WEBHOOK_SETTINGS, platform) is not None:
        return []
    if not admin_url:
        return ["webhook settings not exported: they need --admin-url (the admin root)"]
    if live.webhookSettings is None:
        return ["webhook settings not exported: the portal did not tell their values"]
    return []


POLICIES_NOTE = (
    "OrganizationWebhooks and TaskRunRetention are not exported: they state what must be"
    " deleted, which no live portal can tell"
)


def _unexpressed(live: LiveState) -> list[str]:
    """Live resources the manifest format has no way to declare, or that could not be
    read (written out, they would claim values nobody saw)."""
    notes = [
        f"{address} left out: its live values could not be read ({why})"
        for address, why in sorted(live.unreadable.items())
    ]
    notes += [
        f"{part} left out: the signed-in account may not read it ({why})"
        for part, why in sorted(live.unread.items())
    ]
    if live.webhooks:
        notes.append(
            f"{len(live.webhooks)} organization webhook(s) left out: a manifest can only"
            " remove them (OrganizationWebhooks)"
        )
    tasks = sum(len(t) for t in live.tasks.values())
    if tasks:
        notes.append(
            f"{tasks} task(s) left out: a manifest can only set the retention of their runs"
            " (TaskRunRetention)"
        )
    notes.append(POLICIES_NOTE)
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


def _write(out: Path, files: list[_File], force: bool) -> tuple[Path, ...]:
    check_output_folder(out, force)
    try:
        out.mkdir(parents=True, exist_ok=True)
        names = {f.name for f in files}
        for stale in FILES:
            if stale not in names:
                (out / stale).unlink(missing_ok=True)
        for f in files:
            (out / f.name).write_bytes(f.content)
    except OSError as exc:
        raise UserError(f"output {out}: cannot write ({exc.strerror or exc})") from None
    return tuple(out / f.name for f in files)
