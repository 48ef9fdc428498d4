"""A campaign's steps on a copy of examples/reviews and a live state built in memory:
start writes the review files and the snapshot, a decision written wrong is named by
file:line, close honours due and noResponse and edits the Members manifests keeping
comments, and verify finds what does not hold in a bundle (an edited decision, a bad
signature, a journal that did not carry out the remediation)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from reconciler.certify import campaigns, evidence
from reconciler.errors import ManifestError, UserError
from reconciler.state import LiveState, Member, PortalInfo, Role
from reconciler.versions import Platform

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "reviews"
BEFORE_DUE = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
AFTER_DUE = dt.datetime(2027, 1, 1, tzinfo=dt.UTC)
ANALYST = frozenset({"portal:user:joinGroup", "portal:user:createItem"})
MEMBERS = """apiVersion: orgctl/v1
kind: Members
metadata:
  name: members
spec:
  members:
    # dave analyses for the field office
    dave: {role: Analyst}   # since 2025
"""


def _live() -> LiveState:
    members = [
        Member("admin", "org_admin", 2, disabled=False, lastLogin=1_790_000_000_000),
        Member("dave", "Analyst", 2, disabled=False, lastLogin=1_790_000_000_000),
        Member("erin", "Analyst", 1, disabled=False, lastLogin=1_790_000_000_000),
    ]
    return LiveState(
        portal=PortalInfo("p1", "HQ", Platform.parse("self-hosted", "10.6.1"), "admin"),
        roles={"Analyst": Role("Analyst", "", ANALYST, id="r1")},
        members={m.username: m for m in members},
    )


@pytest.fixture
def portal(tmp_path: Path) -> Path:
    folder = tmp_path / "hq"
    shutil.copytree(EXAMPLE, folder)
    (folder / "members.yaml").write_text(MEMBERS)
    return folder


def _start(portal: Path) -> campaigns.Loaded:
    loaded = campaigns.load(portal, "q4-admins", {})
    campaigns.start(loaded, _live(), BEFORE_DUE, {})
    return loaded


def _decide(portal: Path, reviewer: str, member: str, decision: str, comment: str) -> None:
    path = portal / "reviews" / "q4-admins" / f"{reviewer}.yaml"
    text = path.read_text()
    at = text.index(f'- member: "{member}"')
    pending = text.index("decision: pending   # keep or revoke", at)
    end = text.index("\n", text.index("comment:", pending))
    decided = f'decision: {decision}\n    comment: "{comment}"'
    path.write_text(text[:pending] + decided + text[end:])


def test_start_writes_each_reviewers_files_and_the_snapshot(portal: Path) -> None:
    _start(portal)
    folder = portal / "reviews" / "q4-admins"
    assert sorted(p.name for p in folder.iterdir()) == [
        "alice.html",
        "alice.yaml",
        "carol.html",
        "carol.yaml",
        "scope.json",
    ]
    scope = json.loads((folder / "scope.json").read_text())
    assert [(i["member"], i["reviewer"]) for i in scope["items"]] == [
        ("admin", "alice"),  # org_admin has no owner: the fallback other than admin itself
        ("dave", "carol"),  # Analyst's owner
        ("erin", "carol"),
    ]
    assert scope["digest"].startswith("sha256:")
    assert "<td>dave</td>" in (folder / "carol.html").read_text()


def test_a_campaign_starts_once(portal: Path) -> None:
    loaded = _start(portal)
    with pytest.raises(UserError, match="started already"):
        campaigns.start(loaded, _live(), BEFORE_DUE, {})


def test_a_decision_written_wrong_is_named_by_file_and_line(portal: Path) -> None:
    loaded = _start(portal)
    _decide(portal, "carol", "erin", "maybe", "")
    with pytest.raises(ManifestError) as raised:
        campaigns.progress(loaded)
    assert raised.value.lines == [
        f"{portal}/reviews/q4-admins/carol.yaml:25:5: erin: decision 'maybe' is none of"
        " keep, revoke, pending"
    ]


def test_before_due_a_campaign_closes_only_when_every_item_is_decided(portal: Path) -> None:
    loaded = _start(portal)
    _decide(portal, "carol", "dave", "revoke", "left the team")
    with pytest.raises(UserError, match="2 item\\(s\\) still pending"):
        campaigns.close(loaded, BEFORE_DUE)
    assert not loaded.evidence.exists()


def test_close_revokes_to_revoke_to_keeping_comments_and_honours_no_response(
    portal: Path,
) -> None:
    loaded = _start(portal)
    _decide(portal, "carol", "dave", "revoke", "left the team")
    _decide(portal, "alice", "admin", "keep", "still administers")
    closed = campaigns.close(loaded, AFTER_DUE)  # erin pending: noResponse revoke
    assert (closed.revoked, closed.kept) == (2, 1)
    members = (portal / "members.yaml").read_text()
    assert "    # dave analyses for the field office\n" in members
    assert "dave: {role: org_user, level: 2} # since 2025\n" in members
    assert "erin: {role: org_user, level: 2}" in members
    assert "admin" not in members  # kept: untouched
    bundle = evidence.read_bundle(loaded.evidence)
    outcomes = {d["member"]: (d["decision"], d["outcome"]) for d in bundle["decisions"]}
    assert outcomes == {
        "admin": ("keep", "keep"),
        "dave": ("revoke", "revoke"),
        "erin": ("pending", "revoke"),
    }
    assert bundle["decisions"][0]["recorded"]["source"] == "file"  # no repository here
    assert [c["address"] for c in bundle["remediation"]["changes"]] == [
        "Member/dave",
        "Member/erin",
    ]
    assert evidence.verify(bundle, None, False).failures == []


def _closed(portal: Path) -> dict[str, object]:
    loaded = _start(portal)
    _decide(portal, "carol", "dave", "revoke", "left the team")
    campaigns.close(loaded, AFTER_DUE)
    return evidence.read_bundle(loaded.evidence)


def test_an_edited_decision_fails_verification_naming_it(portal: Path) -> None:
    bundle = _closed(portal)
    text = json.dumps(bundle).replace('"decision": "revoke"', '"decision": "keep"')
    failures = evidence.verify(json.loads(text), None, False).failures
    assert "decision of Member/dave (reviewer carol) was changed" in failures[0], failures


def test_a_missing_decision_fails_verification_naming_the_member(portal: Path) -> None:
    bundle = _closed(portal)
    decisions = [d for d in bundle["decisions"] if d["member"] != "admin"]  # type: ignore[attr-defined]
    failures = evidence.verify(evidence.digested({**bundle, "decisions": decisions}), None, False)
    assert "Member/admin: in scope, and no decision" in failures.failures


def test_without_a_journal_the_remediation_is_not_shown_applied(portal: Path) -> None:
    failures = evidence.verify(_closed(portal), None, True).failures
    assert failures == ["journal: none attached (orgctl certify attach BUNDLE --journal FILE)"]


def test_a_signed_bundle_verifies_against_its_allowed_signer_only(
    portal: Path, tmp_path: Path
) -> None:
    keys = [tmp_path / "auditor", tmp_path / "stranger"]
    for key in keys:
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
    listed = tmp_path / "allowed_signers"
    listed.write_text(f"auditor {keys[0].with_suffix('.pub').read_text()}")
    signed = evidence.signed(_closed(portal), keys[0])
    verdict = evidence.verify(signed, listed, False)
    shown = subprocess.run(["ssh-keygen", "-lf", keys[0]], capture_output=True, text=True)
    assert verdict.failures == [] and verdict.fingerprint == shown.stdout.split()[1]
    other = evidence.signed(signed, keys[1])
    assert evidence.verify(other, listed, False).failures == [
        f"signature: does not verify (the signer's key is not listed in {listed})"
    ]
    tampered = {**signed, "closedAt": "2027-02-01T00:00:00Z"}
    assert (
        evidence.verify(tampered, None, False).failures[0].startswith("signature: does not verify")
    )


def test_a_decision_committed_in_git_records_its_commit(portal: Path) -> None:
    loaded = _start(portal)
    git = ["git", "-c", "user.name=Carol", "-c", "user.email=carol@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=portal, check=True)
    _decide(portal, "carol", "dave", "revoke", "left the team")
    subprocess.run([*git, "add", "-A"], cwd=portal, check=True)
    subprocess.run([*git, "commit", "-qm", "decide"], cwd=portal, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=portal, capture_output=True, text=True)
    campaigns.close(loaded, AFTER_DUE)
    recorded = evidence.read_bundle(loaded.evidence)["decisions"][1]["recorded"]
    assert (recorded["source"], recorded["commit"], recorded["author"]) == (
        "git",
        head.stdout.strip(),
        "Carol",
    )


def test_a_due_time_already_past_is_a_warning_at_start(portal: Path) -> None:
    loaded = campaigns.load(portal, "q4-admins", {})
    started = campaigns.start(loaded, _live(), AFTER_DUE, {})
    assert started.warnings[0] == (
        "the campaign was due on 2026-12-15T00:00:00Z, before now (2027-01-01T00:00:00Z)"
    )


def test_a_journal_that_did_not_carry_out_a_change_fails_naming_it(
    portal: Path, tmp_path: Path
) -> None:
    bundle = _closed(portal)
    needed = [
        {"address": change["address"], "operation": operation, "event": "done"}
        for change in bundle["remediation"]["changes"]  # type: ignore[index]
        for operation in ("updateUserRole", "updateUserLevel")
    ]
    journal = tmp_path / "journal.jsonl"
    journal.write_text("".join(json.dumps(line) + "\n" for line in needed))
    assert evidence.verify(evidence.with_journal(bundle, journal), None, True).failures == []
    failed = {"address": "Member/dave", "operation": "updateUserRole", "event": "failed"}
    lines = [failed if line["address"] == "Member/dave" else line for line in needed]
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert evidence.verify(evidence.with_journal(bundle, journal), None, True).failures == [
        "Member/dave: the journal carried out no updateUserRole"
    ]
