"""A campaign's folder (`reviews/<campaign>/` beside the campaign document): one review
file per reviewer, in YAML to edit by pull request and in HTML to read, and `scope.json`,
the snapshot of the scope taken at start with its SHA-256.

A review file holds no `apiVersion` or `kind`, so the manifest loader passes it by as a
file of another tool. Its values are written as JSON scalars (YAML reads them as they
are), which keeps 10,000 items quick to write; it is read back with positions, so a
decision written wrong is named by file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reconciler.certify.digests import sha256
from reconciler.certify.items import DECISIONS, PENDING, Routed
from reconciler.errors import ManifestError, UserError
from reconciler.html.page import Markup, join, page, text
from reconciler.html.tables import Column, Ids, cell, table
from reconciler.manifest import yamltree

Json = dict[str, Any]
FORMAT_VERSION = 1
# The fields of an item a reviewer reads; `decision` and `comment` are what it writes.
SHOWN = ("role", "level", "privileges", "lastLogin", "disabled", "recommendation")


@dataclass(frozen=True, slots=True)
class Folder:
    """Where a campaign's review files live."""

    path: Path

    @property
    def scope(self) -> Path:
        return self.path / "scope.json"

    def review(self, reviewer: str) -> Path:
        return self.path / f"{reviewer}.yaml"

    def page(self, reviewer: str) -> Path:
        return self.path / f"{reviewer}.html"


def folder_for(document_file: str, campaign: str, out: Path | None) -> Folder:
    """`reviews/<campaign>` beside the campaign's document, or below `out`."""
    base = out if out is not None else Path(document_file).parent / "reviews"
    return Folder(base / campaign)


# --- the snapshot --------------------------------------------------------------------------


def snapshot(header: Json, routed: Sequence[Routed]) -> Json:
    """scope.json: the campaign's terms (`header`), every item with its reviewer, and the
    SHA-256 of all that."""
    items = [{"reviewer": r.reviewer, **_reviewed(r.item)} for r in routed]
    body = {"formatVersion": FORMAT_VERSION, **header, "items": items}
    return {**body, "digest": sha256(body)}


def _reviewed(item: Json) -> Json:
    """An item as the snapshot keeps it: what was reviewed, not the decision."""
    return {k: v for k, v in item.items() if k not in ("decision", "comment")}


def read_snapshot(folder: Folder) -> Json:
    """scope.json, its digest checked: a snapshot changed since start is refused."""
    try:
        found = json.loads(folder.scope.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{folder.scope}: no such file; run `orgctl certify start` first") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"{folder.scope}: cannot be read ({exc})") from None
    if not isinstance(found, dict) or found.get("formatVersion") != FORMAT_VERSION:
        raise UserError(f"{folder.scope}: not a campaign's snapshot of format {FORMAT_VERSION}")
    body = {k: v for k, v in found.items() if k != "digest"}
    if sha256(body) != found.get("digest"):
        raise UserError(f"{folder.scope}: its digest does not match: the snapshot was changed")
    return found


# --- writing -------------------------------------------------------------------------------


def write_folder(folder: Folder, scope: Json, routed: Sequence[Routed]) -> list[Path]:
    """The snapshot and each reviewer's files; the paths written."""
    folder.path.mkdir(parents=True, exist_ok=True)
    by_reviewer: dict[str, list[Json]] = {}
    for entry in routed:
        by_reviewer.setdefault(entry.reviewer, []).append(entry.item)
    written = [folder.scope]
    folder.scope.write_text(json.dumps(scope, indent=1, ensure_ascii=False) + "\n", "utf-8")
    for reviewer, items in sorted(by_reviewer.items()):
        folder.review(reviewer).write_text(review_text(scope, reviewer, items), "utf-8")
        folder.page(reviewer).write_text(review_page(scope, reviewer, items), "utf-8")
        written += [folder.review(reviewer), folder.page(reviewer)]
    return written


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def review_text(scope: Json, reviewer: str, items: Iterable[Json]) -> str:
    campaign = scope["campaign"]
    lines = [
        f"# Certification campaign {campaign}: the review of {reviewer}, due {scope['due']}.",
        "# Set each item's decision to keep or revoke and say why in its comment, then",
        "# propose the change by pull request. An item left pending when the campaign",
        f"# closes after its due time is {_no_response(scope)}.",
        f"campaign: {_json(campaign)}",
        f"reviewer: {_json(reviewer)}",
        f"due: {_json(scope['due'])}",
        "items:",
    ]
    for item in items:
        lines.append(f"  - member: {_json(item['member'])}")
        lines += [f"    {key}: {_json(item[key])}" for key in SHOWN]
        lines.append(f"    decision: {PENDING}   # keep or revoke")
        lines.append(f"    comment: {_json(item['comment'])}")
    return "\n".join(lines) + "\n"


def _no_response(scope: Json) -> str:
    if scope["noResponse"] == "keep":
        return "kept"
    revoke = scope["revokeTo"]
    level = f" at level {revoke['level']}" if revoke.get("level") is not None else ""
    return f"revoked to the role {revoke['role']}{level}"


def review_page(scope: Json, reviewer: str, items: Sequence[Json]) -> str:
    title = f"Campaign {scope['campaign']}: review of {reviewer}"
    columns = [Column(title) for title in ("member", *SHOWN)]
    rows = [
        [
            cell(item["member"]),
            cell(item["role"]),
            cell("" if item["level"] is None else item["level"]),
            cell(", ".join(item["privileges"])),
            cell(item["lastLogin"] or "never, or not reported"),
            cell({True: "disabled", False: "enabled", None: ""}[item["disabled"]]),
            cell("; ".join(item["recommendation"])),
        ]
        for item in items
    ]
    intro = (
        f"{len(items)} member(s) to review by {scope['due']}; decide in {reviewer}.yaml"
        f" (keep or revoke, with a comment). Pending at close after the due time:"
        f" {_no_response(scope)}."
    )
    body = join(
        [
            Markup(f"<h1>{text(title)}</h1>"),
            Markup(f'<p class="summary">{text(intro)}</p>'),
            table(Ids().next(), "items", columns, rows),
        ],
        "\n",
    )
    return page(title, body)


# --- reading the decisions -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decision:
    member: str
    reviewer: str
    decision: str  # keep, revoke or pending
    comment: str
    file: Path
    line: int  # of the item's `decision`


def read_decisions(folder: Folder, scope: Json) -> list[Decision]:
    """Every item's decision, in the snapshot's order. Every problem of every review file
    at once (file:line), as validate reports manifests."""
    expected: dict[str, list[str]] = {}
    for item in scope["items"]:
        expected.setdefault(item["reviewer"], []).append(item["member"])
    found: dict[str, Decision] = {}
    problems: list[str] = []
    for reviewer, members in expected.items():
        read = _review(folder.review(reviewer), reviewer, members, problems)
        found.update({d.member: d for d in read})
    if problems:
        raise ManifestError(problems)
    return [found[item["member"]] for item in scope["items"]]


def _review(path: Path, reviewer: str, members: list[str], problems: list[str]) -> list[Decision]:
    try:
        tree = next((t for t in yamltree.trees(path.read_text("utf-8")) if t), None)
    except OSError as exc:
        problems.append(f"{path}: cannot be read ({exc.strerror})")
        return []
    except yamltree.TreeError as exc:
        problems.append(f"{path}:{exc.line}:{exc.column}: {exc.message}")
        return []
    listed = tree.value.get("items") if tree and isinstance(tree.value, dict) else None
    if tree is None or not isinstance(listed, list):
        problems.append(f"{path}:1:1: a review file holds `items`, one per member to review")
        return []
    positions = tree.positions.children["items"]
    decisions = []
    wanted = set(members)
    for index, item in enumerate(listed):
        at = positions.children[index]
        decision = _decision(path, reviewer, item, at, problems)
        if decision is None:  # named already: not also missing
            wanted.discard(item.get("member") if isinstance(item, Mapping) else None)
            continue
        if decision.member not in wanted:
            problems.append(f"{path}:{at.line}:{at.column}: {decision.member!r} is not an item")
            continue
        wanted.discard(decision.member)
        decisions.append(decision)
    problems += [f"{path}: the item of {m!r} is missing" for m in members if m in wanted]
    return decisions


def _decision(
    path: Path, reviewer: str, item: object, at: yamltree.Positions, problems: list[str]
) -> Decision | None:
    if not isinstance(item, Mapping) or not isinstance(item.get("member"), str):
        problems.append(f"{path}:{at.line}:{at.column}: an item names its `member`")
        return None
    where = at.children.get("decision", at)
    decision, comment = item.get("decision"), item.get("comment")
    if decision not in (*DECISIONS, PENDING):
        problems.append(
            f"{path}:{where.line}:{where.column}: {item['member']}: decision"
            f" {decision!r} is none of keep, revoke, pending"
        )
        return None
    if comment is not None and not isinstance(comment, str):
        spot = at.children.get("comment", at)
        problems.append(f"{path}:{spot.line}:{spot.column}: {item['member']}: a comment is text")
        return None
    return Decision(item["member"], reviewer, decision, comment or "", path, where.line)
