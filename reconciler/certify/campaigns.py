"""The steps of a campaign, as the CLI runs them: each takes what was read (the manifests,
the live access, the evaluation time) and returns what it did; none prints."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reconciler.adopt import Adopted, edit_manifests
from reconciler.adopt.files import ManifestFiles
from reconciler.certify import evidence
from reconciler.certify.history import line_commits
from reconciler.certify.items import (
    DECISIONS,
    PENDING,
    Inputs,
    campaign_items,
    expiring_grants,
)
from reconciler.certify.reviews import (
    Decision,
    Folder,
    folder_for,
    read_decisions,
    read_snapshot,
    snapshot,
    write_folder,
)
from reconciler.clock import rfc3339
from reconciler.errors import ManifestError, UserError
from reconciler.kinds import campaign as campaigns
from reconciler.kinds.members.writing import declare_member
from reconciler.kinds.role import owners
from reconciler.manifest.desired import desired_from
from reconciler.manifest.loader import Document
from reconciler.manifest.validation import check
from reconciler.plan.grants import EXPIRING_WITHIN
from reconciler.state import DesiredState, LiveState

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Loaded:
    """A portal's manifests, validated, and the campaign named."""

    path: Path
    desired: DesiredState
    documents: list[Document]
    document: Document  # the campaign's
    campaign: campaigns.Campaign
    environ: Mapping[str, str] = field(repr=False)  # the variables the command read

    def folder(self, out: Path | None) -> Folder:
        return folder_for(self.document.file, self.campaign.metadata.name, out)

    @property
    def evidence(self) -> Path:
        """evidence/<campaign>.json beside the campaign's document."""
        name = self.campaign.metadata.name
        return Path(self.document.file).parent / "evidence" / f"{name}.json"


def load(path: Path, name: str, environ: Mapping[str, str]) -> Loaded:
    checked = check(path, environ)
    if checked.problems:
        raise ManifestError([str(problem) for problem in checked.problems])
    found = campaigns.named(checked.documents, name)
    if found is None:
        known = ", ".join(campaigns.names(checked.documents)) or "none"
        raise UserError(f"{path}: no campaign named {name!r} (kind: Campaign); declared: {known}")
    desired = desired_from(checked, environ)
    return Loaded(path, desired, checked.documents, found[0], found[1], environ)


# --- start ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Started:
    folder: Folder
    items: int
    reviewers: dict[str, int]  # reviewer -> how many items
    warnings: list[str]


def start(
    loaded: Loaded,
    live: LiveState,
    now: dt.datetime,
    violations: Mapping[str, Sequence[str]],
    out: Path | None = None,
) -> Started:
    """Write the review files and the snapshot of the scope; a folder already started is
    refused (its decisions would be lost)."""
    folder = loaded.folder(out)
    if folder.scope.exists():
        raise UserError(
            f"{folder.scope}: the campaign was started already; close it, or remove"
            f" {folder.path} to start again"
        )
    spec = loaded.campaign.spec
    due = campaigns.due(loaded.campaign)
    given = Inputs(
        loaded.campaign,
        owners(loaded.documents),
        violations,
        int(now.timestamp() * 1000),
        sorted(loaded.desired.portal.extraPrivileges),
        expiring_grants(loaded.desired, live, now, max(due, now + EXPIRING_WITHIN)),
    )
    routed = campaign_items(live, given)
    header = {
        "campaign": loaded.campaign.metadata.name,
        "portal": {"name": loaded.desired.portal.name, "url": loaded.desired.portal.url},
        "startedAt": rfc3339(now),
        "due": rfc3339(due),
        "scopeDefinition": spec.scope.model_dump(),
        "noResponse": spec.noResponse,
        "revokeTo": spec.revokeTo.model_dump(),
    }
    write_folder(folder, snapshot(header, routed), routed)
    reviewers: dict[str, int] = {}
    for entry in routed:
        reviewers[entry.reviewer] = reviewers.get(entry.reviewer, 0) + 1
    warnings = [f"the campaign was due on {rfc3339(due)}, before now ({rfc3339(now)})"] * (
        due <= now
    )
    strangers = sorted(name for name in reviewers if name not in live.members)
    warnings += [f"reviewer {name} is not a member of the portal" for name in strangers]
    return Started(folder, len(routed), reviewers, warnings)


# --- status --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Progress:
    due: dt.datetime
    decisions: list[Decision]

    def by_reviewer(self) -> dict[str, dict[str, int]]:
        counts: dict[str, dict[str, int]] = {}
        for decision in self.decisions:
            mine = counts.setdefault(decision.reviewer, dict.fromkeys((*DECISIONS, PENDING), 0))
            mine[decision.decision] += 1
        return counts

    @property
    def pending(self) -> int:
        return sum(1 for d in self.decisions if d.decision == PENDING)

    def overdue(self, now: dt.datetime) -> bool:
        """Past its due time with items pending (status exits 2)."""
        return now >= self.due and self.pending > 0


def progress(loaded: Loaded, out: Path | None = None) -> tuple[Json, Progress]:
    folder = loaded.folder(out)
    scope = read_snapshot(folder)
    decisions = read_decisions(folder, scope)
    due = dt.datetime.fromisoformat(scope["due"].replace("Z", "+00:00"))
    return scope, Progress(due, decisions)


# --- close ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Closed:
    bundle: Path
    edited: Adopted | None  # None: no revocation changes the manifests
    revoked: int
    kept: int


def close(
    loaded: Loaded, now: dt.datetime, key: Path | None = None, out: Path | None = None
) -> Closed:
    """Revocations into Members edits (as adopt makes them), then the evidence bundle."""
    if loaded.evidence.exists():
        raise UserError(f"{loaded.evidence}: the campaign was closed already")
    scope, found = progress(loaded, out)
    if now < found.due and found.pending:
        raise UserError(
            f"campaign {scope['campaign']}: {found.pending} item(s) still pending and the"
            f" campaign is due on {scope['due']}: it closes before then only when every"
            " item is decided"
        )
    times = _commit_times(found.decisions)
    decisions = [
        {
            "member": d.member,
            "reviewer": d.reviewer,
            "decision": d.decision,
            "comment": d.comment,
            "outcome": evidence.outcome(d.decision, scope["noResponse"]),
            "recorded": times[(d.file, d.line)],
        }
        for d in found.decisions
    ]
    remedy = evidence.remediation(scope, decisions)
    edited = _remediate(loaded, remedy) if remedy["changes"] else None
    bundle = evidence.bundle(scope, decisions, rfc3339(now), remedy)
    if key is not None:
        bundle = evidence.signed(bundle, key)
    evidence.write_bundle(loaded.evidence, bundle)
    revoked = sum(1 for d in decisions if d["outcome"] == "revoke")
    return Closed(loaded.evidence, edited, revoked, len(decisions) - revoked)


def _commit_times(decisions: Sequence[Decision]) -> dict[tuple[Path, int], Json]:
    lines: dict[Path, set[int]] = {}
    for decision in decisions:
        lines.setdefault(decision.file, set()).add(decision.line)
    return {
        (path, line): recorded
        for path, wanted in lines.items()
        for line, recorded in line_commits(path, wanted).items()
    }


def _remediate(loaded: Loaded, remedy: Json) -> Adopted:
    """Each revoked member's role (and level, when revokeTo names one) declared in the
    Members manifests, comments kept."""
    level = remedy["revokeTo"].get("level")

    def edit(files: ManifestFiles) -> list[str]:
        lines = []
        for change in remedy["changes"]:
            values: dict[str, Any] = {"role": change["after"]["role"]}
            if level is not None:
                values["level"] = level
            member = change["address"].split("/", 1)[1]
            lines.append(declare_member(files, member, values))
        return lines

    return edit_manifests(loaded.path, edit, "closing the campaign", loaded.environ)
