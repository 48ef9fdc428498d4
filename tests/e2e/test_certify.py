"""A certification campaign end to end against `orgctl serve` whose clock runs ahead of
this machine's: start → decisions committed in Git → status → the portal's clock moved
past the due time → close → plan → apply with a journal → attach, signed with a throwaway
key → verify. Revoked members end at revokeTo, kept ones are untouched, the pending one
is revoked under noResponse, and a bundle with one edited decision fails naming it."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .harness import DEMO_HQ_ADMIN, EXAMPLES, Serve, World, demo_state_with, output_of

pytestmark = pytest.mark.e2e

FRED = "      - {username: fred, password: fred-pass, role: Analyst, level: 2}\n"
GIT = ["git", "-c", "user.name=Carol Reviewer", "-c", "user.email=carol@example.com"]


def _world(serve: Serve, tmp_path: Path, now: dt.datetime) -> World:
    """The demo state with fred on the Analyst role, its clock a day ahead of `now`."""
    state = demo_state_with(tmp_path, {DEMO_HQ_ADMIN: FRED})
    ahead = (now + dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = state.read_text().replace("clock: 2026-11-01T00:00:00Z", f"clock: {ahead}", 1)
    state.write_text(text)
    return serve(state)


def _portal(world: World, due: dt.datetime) -> Path:
    folder = world.workdir / "hq"
    shutil.copytree(EXAMPLES / "reviews", folder)
    campaign = folder / "campaign.yaml"
    text = campaign.read_text().replace("due: 2026-12-15 ", f"due: {due:%Y-%m-%d} ", 1)
    campaign.write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    return folder


def _decide(review: Path, member: str, decision: str, comment: str) -> None:
    text = review.read_text()
    at = text.index(f'- member: "{member}"')
    pending = text.index("decision: pending   # keep or revoke", at)
    end = text.index("\n", text.index("comment:", pending))
    review.write_text(
        text[:pending] + f'decision: {decision}\n    comment: "{comment}"' + text[end:]
    )


def _held(member: dict[str, Any]) -> tuple[str, str | None, str]:
    """A member's role, custom role id (None for a built-in one) and level, as listed."""
    return member["role"], member.get("roleId"), member["level"]


def _commit(folder: Path, message: str) -> None:
    subprocess.run([*GIT, "add", "-A"], cwd=folder, check=True)
    subprocess.run([*GIT, "commit", "-qm", message], cwd=folder, check=True)


def _key(tmp_path: Path) -> tuple[Path, Path]:
    """A throwaway ed25519 key and an allowed-signers file listing it."""
    key = tmp_path / "auditor"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"auditor@example.com {key.with_suffix('.pub').read_text()}")
    return key, allowed


def test_a_campaign_runs_from_start_to_a_verified_bundle(serve: Serve, tmp_path: Path) -> None:
    now = dt.datetime.now(dt.UTC)
    world = _world(serve, tmp_path, now)
    folder = _portal(world, now + dt.timedelta(days=10))
    before = world.api("hq").members()
    unchanged = world.orgctl("plan", folder, "--detailed-exitcode", portal="hq")
    assert unchanged.returncode == 0, output_of(unchanged)  # a campaign changes no plan

    started = world.orgctl("certify", "start", folder, "q4-admins", portal="hq")
    assert started.returncode == 0, output_of(started)
    assert "4 item(s) for 2 reviewer(s) (alice 1, carol 3)" in started.stdout, output_of(started)
    reviews = folder / "reviews" / "q4-admins"
    _commit(folder, "start the q4 review")

    _decide(reviews / "carol.yaml", "dave", "revoke", "left the analysis team")
    _decide(reviews / "carol.yaml", "fred", "keep", "still analyses")
    _decide(reviews / "alice.yaml", "admin", "keep", "the default administrator")
    _commit(folder, "decide")  # erin stays pending

    status = world.orgctl("certify", "status", folder, "q4-admins", portal="hq")
    assert status.returncode == 0, output_of(status)
    assert "carol: 2 of 3 decided (keep 1, revoke 1, pending 1)" in status.stdout
    early = world.orgctl("certify", "close", folder, "q4-admins", portal="hq")
    assert early.returncode == 1 and "still pending" in early.stderr, output_of(early)

    world.advance_clock(24 * 15)  # past due on the portal's clock only
    overdue = world.orgctl("certify", "status", folder, "q4-admins", portal="hq")
    assert overdue.returncode == 2, output_of(overdue)

    key, allowed = _key(tmp_path)
    closed = world.orgctl("certify", "close", folder, "q4-admins", "--sign-key", key, portal="hq")
    assert closed.returncode == 0, output_of(closed)
    assert "2 revoked, 2 kept" in closed.stdout, output_of(closed)
    bundle = folder / "evidence" / "q4-admins.json"
    decisions = {d["member"]: d for d in json.loads(bundle.read_text())["decisions"]}
    assert decisions["dave"]["recorded"]["source"] == "git"
    assert decisions["dave"]["recorded"]["author"] == "Carol Reviewer"
    assert decisions["erin"]["outcome"] == "revoke"  # pending: noResponse revoke

    journal = world.workdir / "remediation.jsonl"
    applied = world.orgctl("apply", folder, "--auto-approve", "--journal", journal, portal="hq")
    assert applied.returncode == 0, output_of(applied)
    after = {name: _held(member) for name, member in world.api("hq").members().items()}
    analyst = world.api("hq").roles()["Analyst"]["id"]
    assert _held(before["dave"]) == ("org_user", analyst, "2")
    assert _held(before["erin"]) == ("org_user", analyst, "1")
    for revoked in ("dave", "erin"):
        assert after[revoked] == ("org_user", None, "2")
    for kept in ("admin", "fred", "alice", "bob", "carol"):
        assert after[kept] == _held(before[kept])

    attached = world.orgctl(
        "certify", "attach", bundle, "--journal", journal, "--sign-key", key, portal="hq"
    )
    assert attached.returncode == 0, output_of(attached)
    verified = world.orgctl(
        "certify", "verify", bundle, "--allowed-signers", allowed, "--require-applied", portal="hq"
    )
    assert verified.returncode == 0, output_of(verified)
    fingerprint = subprocess.run(["ssh-keygen", "-lf", key], capture_output=True, text=True)
    assert f"Signer's key: {fingerprint.stdout.split()[1]}." in verified.stdout

    edited = tmp_path / "edited.json"
    edited.write_text(bundle.read_text().replace("left the analysis team", "still needed"))
    refused = world.orgctl("certify", "verify", edited, portal="hq")
    assert refused.returncode == 1, output_of(refused)
    assert "decision of Member/dave (reviewer carol) was changed" in refused.stderr
    assert "signature: does not verify" in refused.stderr
